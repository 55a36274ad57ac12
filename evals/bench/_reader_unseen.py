"""The scorer's grades of each fresh batch as they were before any rule was read from it.

A rule read from a labelled file fits that file: once the scorer has been changed after
reading a batch's lines, its agreement on that batch no longer says how it does on files it
has not seen. So each fresh batch is frozen when it is chosen (``--choose-fresh``; or
``memeval bench reader --freeze-unseen FIRST-LAST``), graded by the committed scorer of
that moment, before its labels arrive, into
:data:`UNSEEN` beside the labels; ``--agreement`` pools every frozen batch into one figure
(:mod:`._reader_unseen_table`), the scorer on files it had not seen against the two
labellers, which is the figure a new set of files should be expected to give.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from evals.bench._reader_agreement import (
    READER_CLASSES,
    Grading,
    ReaderFile,
    parse_set_name,
    read_versioned_json,
)
from evals.errors import UsageError
from memsys.safe_io import write_output

__all__ = [
    "UNSEEN",
    "FrozenBatch",
    "Grader",
    "check_unfrozen",
    "committed_scorer",
    "freeze_batch",
    "freeze_files",
    "load_unseen",
    "save_unseen",
    "unchanged_since_frozen",
]

UNSEEN = "unseen.json"
"""The frozen batches' file, in the labels directory."""

SCHEMA_VERSION = 1


@dataclass(frozen=True)
class FrozenBatch:
    """One fresh batch as the scorer graded it before any of its lines was read."""

    first: int
    last: int
    """The batch's file numbers, first to last."""
    commit: str
    """The commit whose scorer graded it."""
    note: str
    """When and how it was frozen."""
    gradings: Mapping[str, Grading]
    """File name -> the scorer's grading then."""

    @property
    def span(self) -> str:
        """ "168-197"."""
        return f"{self.first}-{self.last}"


def _batch_from(path: Path, raw: object) -> FrozenBatch:
    if not isinstance(raw, dict):
        raise UsageError(f"{path}: a batch is not an object")
    try:
        first, last, commit = int(raw["first"]), int(raw["last"]), str(raw["commit"])
        files = raw["files"]
        gradings = {
            str(name): Grading(
                float(item["grade"]), {int(n): str(c) for n, c in item["lines"].items()}
            )
            for name, item in files.items()
        }
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise UsageError(f"{path}: a batch lacks first, last, commit or files ({exc})") from None
    for name, grading in gradings.items():
        wrong = sorted(set(grading.classes.values()) - set(READER_CLASSES))
        if wrong or not 0 <= grading.grade <= 1:
            raise UsageError(f"{path}: {name}: grade or classes not the protocol's ({wrong})")
    return FrozenBatch(first, last, commit, str(raw.get("note", "")), gradings)


def load_unseen(path: Path) -> list[FrozenBatch]:
    """The frozen batches of ``path`` (none when it does not exist).

    Raises:
        UsageError: the file is unreadable or a batch is malformed.
    """
    if not path.exists():
        return []
    data = read_versioned_json(path, "frozen-batches file", SCHEMA_VERSION)
    batches = data.get("batches", [])
    if not isinstance(batches, list):
        raise UsageError(f"{path}: batches is not a list")
    return [_batch_from(path, raw) for raw in batches]


def save_unseen(path: Path, batches: Sequence[FrozenBatch]) -> None:
    """Write ``batches`` to ``path`` (atomically), in file order."""
    data = {
        "schema_version": SCHEMA_VERSION,
        "batches": [
            {
                "first": b.first,
                "last": b.last,
                "commit": b.commit,
                "note": b.note,
                "files": {
                    name: {
                        "grade": round(g.grade, 6),
                        "lines": {str(n): c for n, c in g.classes.items()},
                    }
                    for name, g in sorted(b.gradings.items())
                },
            }
            for b in sorted(batches, key=lambda b: b.first)
        ],
    }
    write_output(path, json.dumps(data, indent=1, ensure_ascii=False) + "\n")


def check_unfrozen(batches: Sequence[FrozenBatch], first: int, last: int) -> None:
    """Raise unless ``first``-``last`` is a range no frozen batch overlaps.

    Raises:
        UsageError: the range is empty or overlaps a frozen batch (a batch is frozen once:
            after its lines are read, its grades would be fitted).
    """
    if first > last:
        raise UsageError(f"--freeze-unseen {first}-{last}: the first file is after the last")
    for batch in batches:
        if first <= batch.last and batch.first <= last:
            raise UsageError(
                f"--freeze-unseen {first}-{last}: overlaps files {batch.span}, frozen at "
                f"{batch.commit[:12]}; a batch is frozen once, before its lines are read"
            )


def freeze_batch(batches: Sequence[FrozenBatch], batch: FrozenBatch) -> list[FrozenBatch]:
    """``batches`` with ``batch`` added.

    Raises:
        UsageError: ``batch`` grades no file or overlaps a frozen batch.
    """
    check_unfrozen(batches, batch.first, batch.last)
    if not batch.gradings:
        raise UsageError(f"--freeze-unseen {batch.span}: no file of the set in that range")
    return [*batches, batch]


_SCORER_PATHS = ("evals", "memsys", "scenarios")
"""What a grade depends on: the scorer's code and the scenarios' listed facts."""

Grader = Callable[[Sequence[ReaderFile]], Mapping[str, Grading]]
"""The scorer as a grader of the set's files (``reader.scorer_gradings``)."""


def _git(option: str, *args: str) -> str:
    try:
        done = subprocess.run(["git", *args], capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        raise UsageError(f"{option} needs a git checkout (git {args[0]}: {exc})") from None
    return done.stdout.strip()


def committed_scorer(option: str) -> str:
    """HEAD's commit, whose scorer a freeze records.

    Raises:
        UsageError: not a git checkout, or what a grade depends on has uncommitted changes
            (a grade from a scorer no commit holds could not be told apart later).
    """
    changed = _git(option, "status", "--porcelain", "--", *_SCORER_PATHS)
    if changed:
        raise UsageError(
            f"{option} grades with the committed scorer, and what it reads has "
            f"uncommitted changes:\n{changed}"
        )
    return _git(option, "rev-parse", "HEAD")


def freeze_files(
    labels: Path, first: int, last: int, commit: str, grade: Grader, how: str
) -> FrozenBatch:
    """Grade the set's files ``first``-``last`` (``files/NN-SCENARIO.md``, labelled or not:
    a batch is best frozen before its labels arrive) and add them to :data:`UNSEEN`.

    Raises:
        UsageError: the range overlaps a frozen batch or holds no file.
    """
    path = labels / UNSEEN
    batches = load_unseen(path)
    check_unfrozen(batches, first, last)
    chosen = [
        ReaderFile(p, parts[1], 0.0, {})
        for p in sorted((labels / "files").glob("*.md"))
        if (parts := parse_set_name(p.name)) and first <= parts[0] <= last
    ]
    note = f"frozen on {datetime.now(UTC).date().isoformat()} by {how}"
    batch = FrozenBatch(first, last, commit, note, dict(grade(chosen)))
    save_unseen(path, freeze_batch(batches, batch))
    return batch


def _reproduces(batch: FrozenBatch, now: Mapping[str, Grading]) -> bool:
    """Today's scorer grades every file of ``batch`` it was asked about (``now``: the
    labelled ones) as when it was frozen: the grade to the six places stored, and every
    line's class."""
    return all(
        abs(now[name].grade - then.grade) < 5e-7 and dict(now[name].classes) == dict(then.classes)
        for name, then in batch.gradings.items()
        if name in now
    )


def unchanged_since_frozen(
    batches: Sequence[FrozenBatch], now: Mapping[str, Grading]
) -> list[FrozenBatch]:
    """The newest batches that today's scorer grades exactly as it did when each was frozen.

    No rule made since has changed a grade or a line label of theirs, so on these files
    today's scorer is measured on files it had not seen: the verdict's own figure, which
    grows with every fresh batch until a rule changes one of them. Taken from the newest
    back, stopping at the first batch a later rule changed (a rule read from a batch
    changes it, so everything before that point may be fitted)."""
    tail: list[FrozenBatch] = []
    for batch in sorted(batches, key=lambda b: b.first, reverse=True):
        if not any(name in now for name in batch.gradings):
            continue  # its labels are still to come: nothing to compare yet
        if not _reproduces(batch, now):
            break
        tail.append(batch)
    return tail[::-1]
