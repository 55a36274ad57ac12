"""How far two graders of MEMORY.md files agree: two readers, or a reader and the scorer.

A grader gives each file a 0-1 grade and each entry line one class of the reader's protocol
(``docs/reader-protocol.md``): ``keep`` (the protocol's ``fact`` and ``extra``: the first
labeller wrote only "keep") or the label of a line to strike. :func:`agreement` compares two
graders over the files and lines both judged: Spearman's rank correlation of the grades, the
mean absolute grade gap, the share of lines both keep or both strike, and the share given the
same class.

The reader-labelled set is split by a fixed rule on the file name, not by results
(:func:`part_of`): about a third is held aside, never used to choose a rule or a constant.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd

from evals.errors import UsageError
from evals.stats.tests import BOOTSTRAP_DRAWS, SEED

__all__ = [
    "HELD_AGAIN_FROM",
    "HELD_ASIDE_EVERY",
    "HELD_FROM",
    "READER_CLASSES",
    "TUNING_FROM",
    "Agreement",
    "Grading",
    "Part",
    "ReaderFile",
    "SpearmanGap",
    "agreement",
    "parse_set_name",
    "part_of",
    "read_versioned_json",
    "reader_class",
    "spearman",
    "spearman_gap",
    "within_target",
]

Part = Literal["tuning", "held"]
HELD_ASIDE_EVERY = 3
"""A file is held aside when the first 8 hex digits of the SHA-256 of its name, read as a
number, are divisible by this (about one file in three)."""
HELD_FROM = 63
"""Files numbered from this on, up to :data:`TUNING_FROM` (``63-...md`` to ``107-...md``), are
all held aside: they were added on 2026-12-02, after the scorer's rules were last changed,
and labelled blind by two labellers; no rule or constant has been chosen on them."""
TUNING_FROM = 108
"""Files numbered from this on, up to :data:`HELD_AGAIN_FROM`, were added (2026-12-02) to the
tuning part, labelled blind by one labeller, to find rules on; none is held aside."""
HELD_AGAIN_FROM = 168
"""Files numbered from this on are all held aside again: added on 2026-12-03 (second
session), after the reading rules read on files 63-107, which so stopped measuring them held
out; labelled blind by two labellers; no rule or constant has been chosen on them."""

READER_CLASSES = ("keep", "stale", "noise", "junk", "model_name", "invented", "repeat")
"""What a line is to a reader: kept, or struck as one of the protocol's labels."""

# The first labeller's strike reasons, by the first of these words they contain.
_REASON_WORDS: tuple[tuple[str, str], ...] = (
    ("stale", "stale"),
    ("repeat", "repeat"),
    ("model", "model_name"),
    ("invented", "invented"),
    ("made up", "invented"),
    ("profession", "invented"),
    ("tradesman", "invented"),
    ("as the user", "invented"),
    ("transient", "noise"),
    ("screenshot", "noise"),
    ("progress", "noise"),
    ("is gone", "noise"),
)


def reader_class(judgement: str) -> str:
    """The class of one line's judgement: a protocol label (``fact``/``extra`` are ``keep``),
    ``keep ...``, or ``strike: REASON`` (by the first word of :data:`_REASON_WORDS` the reason
    holds; any other reason, "none", "placeholder", "vague", "fragment", "question", "tool
    text", is ``junk``).

    Raises:
        ValueError: the judgement is none of these.
    """
    text = judgement.strip().lower()
    head = re.split(r"[\s:(,]", text, maxsplit=1)[0]
    if head in ("keep", "fact", "extra"):
        return "keep"
    if head in READER_CLASSES:
        return head
    if head != "strike":
        raise ValueError(f"{judgement!r} is not a label ({', '.join(READER_CLASSES)}) or strike")
    found = [(text.find(word), cls) for word, cls in _REASON_WORDS if word in text]
    return min(found)[1] if found else "junk"


_SET_FILE = re.compile(r"^(\d+)-(.+)\.md$")


def parse_set_name(name: str) -> tuple[int, str] | None:
    """A set file's number and scenario from its name ("NN-SCENARIO.md"), None for another
    name."""
    found = _SET_FILE.match(name)
    return (int(found[1]), found[2]) if found else None


def part_of(name: str) -> Part:
    """``held`` (aside, for reporting only) or ``tuning``, from the file name alone: files
    numbered from :data:`HELD_FROM` to before :data:`TUNING_FROM` are held, those from
    :data:`TUNING_FROM` to before :data:`HELD_AGAIN_FROM` are tuning, those from
    :data:`HELD_AGAIN_FROM` on are held, and one in three of the first ones is held by hash."""
    number = name.split("-", 1)[0]
    if number.isdigit() and int(number) >= HELD_AGAIN_FROM:
        return "held"
    if number.isdigit() and int(number) >= HELD_FROM:
        return "held" if int(number) < TUNING_FROM else "tuning"
    digest = int(hashlib.sha256(name.encode("utf-8")).hexdigest()[:8], 16)
    return "held" if digest % HELD_ASIDE_EVERY == 0 else "tuning"


@dataclass(frozen=True)
class ReaderFile:
    """One file of the reader-labelled set, with the first labeller's judgements."""

    path: Path
    """The MEMORY.md copy (``files/NN-SCENARIO.md``)."""
    scenario: str
    """Its scenario's name."""
    grade: float
    """The reader's 0-1 grade."""
    keep: dict[int, bool]
    """Line number -> the reader keeps it."""
    judgements: Mapping[int, str] = field(default_factory=dict)
    """Line number -> the reader's words ("keep", "strike: invented", ...)."""
    source: str = ""
    """The run-relative path the copy was taken from
    (``SCENARIO/MODEL/POLICY/VARIANT/repeat-N/memory/MEMORY.md``); empty where not known."""

    @property
    def name(self) -> str:
        """The copy's file name, the key every grader uses."""
        return self.path.name

    @property
    def part(self) -> Part:
        """Tuning or held aside (:func:`part_of`)."""
        return part_of(self.name)

    def grading(self) -> Grading:
        """The first labeller's grading."""
        return Grading(self.grade, {n: reader_class(j) for n, j in self.judgements.items()})


@dataclass(frozen=True)
class Grading:
    """One grader's judgement of one file."""

    grade: float
    """0-1: for the scorer, ``quality``."""
    classes: Mapping[int, str]
    """Line number -> one of :data:`READER_CLASSES`."""


@dataclass(frozen=True)
class Agreement:
    """How two graders agree over the files (and lines) both judged."""

    files: int
    spearman: float
    """Rank correlation of the grades."""
    mean_gap: float
    """Mean absolute difference of the grades."""
    lines: int
    """Lines both judged."""
    line_agreement: float
    """Share of those lines both keep or both strike."""
    class_agreement: float
    """Share of those lines given the same class."""


def _average_ranks(values: np.ndarray) -> np.ndarray:
    """Ranks (from 1) along the last axis, ties taking their mean rank (pandas sorts each
    row: the bootstrap's 10,000 rows of 650 files took minutes as pairwise comparisons)."""
    rows = pd.DataFrame(values.reshape(-1, values.shape[-1]))
    ranks: np.ndarray = rows.rank(axis=1, method="average").to_numpy().reshape(values.shape)
    return ranks


def _spearman_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Spearman's rank correlation of each row of ``a`` with the same row of ``b`` (0 where
    a row is constant)."""
    ra, rb = _average_ranks(a), _average_ranks(b)
    ra = ra - ra.mean(-1, keepdims=True)
    rb = rb - rb.mean(-1, keepdims=True)
    spread = np.sqrt((ra**2).sum(-1) * (rb**2).sum(-1))
    together = (ra * rb).sum(-1)
    found: np.ndarray = np.divide(together, spread, out=np.zeros_like(together), where=spread > 0)
    return found


def spearman(a: Sequence[float], b: Sequence[float]) -> float:
    """Spearman's rank correlation (ties take their mean rank)."""
    return float(_spearman_rows(np.asarray([a], dtype=float), np.asarray([b], dtype=float))[0])


@dataclass(frozen=True)
class SpearmanGap:
    """How far one pair of graders' Spearman falls below a reference pair's, on the same
    files, and how sure that is."""

    gap: float
    """Reference Spearman minus the pair's."""
    low: float
    high: float
    """Percentile bootstrap interval of the gap (files resampled, all grades together)."""
    confidence: float


def spearman_gap(
    reference: tuple[Sequence[float], Sequence[float]],
    pair: tuple[Sequence[float], Sequence[float]],
    confidence: float = 0.95,
    seed: int = SEED,
    groups: Sequence[str] | None = None,
) -> SpearmanGap:
    """``spearman(*reference) - spearman(*pair)``, the four grade lists aligned by file, with
    a bootstrap interval: :data:`BOOTSTRAP_DRAWS` resamples of the files, each taking every
    grader's grade of the drawn file, so the two correlations move together as they would
    on another set of files of the same kind. With ``groups`` (each file's group, e.g. its
    writer) the groups are resampled instead, each drawn group bringing all its files: the
    interval then speaks for another set of writers like these, not for more files of the
    same few (files of one writer are alike, so resampling files overstates the evidence).

    Raises:
        ValueError: the lists differ in length or hold fewer than two files, or ``groups``
            does not name one group per file, at least two.
    """
    grades = np.asarray([*reference, *pair], dtype=float)
    if grades.ndim != 2 or grades.shape[1] < 2:
        raise ValueError("a Spearman gap needs four grade lists of one length, at least 2 files")
    gap = spearman(*reference) - spearman(*pair)
    rng = np.random.default_rng(seed)
    if groups is None:
        drawn = grades[:, rng.integers(0, grades.shape[1], size=(BOOTSTRAP_DRAWS, grades.shape[1]))]
        gaps = _spearman_rows(drawn[0], drawn[1]) - _spearman_rows(drawn[2], drawn[3])
    else:
        gaps = _group_gaps(grades, groups, rng)
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(gaps, [tail, 100 - tail])
    return SpearmanGap(gap, float(low), float(high), confidence)


def _group_gaps(grades: np.ndarray, groups: Sequence[str], rng: np.random.Generator) -> np.ndarray:
    """The bootstrap gaps of :func:`spearman_gap` drawing whole groups: each draw takes as
    many groups as there are, with replacement, and every file of each."""
    if len(groups) != grades.shape[1]:
        raise ValueError(f"{len(groups)} groups for {grades.shape[1]} files")
    _, group_of = np.unique(np.asarray(groups), return_inverse=True)
    members = [np.flatnonzero(group_of == g) for g in range(group_of.max() + 1)]
    if len(members) < 2:
        raise ValueError("resampling groups needs at least 2 groups")
    gaps = np.empty(BOOTSTRAP_DRAWS)
    draws = rng.integers(0, len(members), size=(BOOTSTRAP_DRAWS, len(members)))
    for draw, picked in enumerate(draws):
        drawn = grades[:, np.concatenate([members[p] for p in picked])]
        rows = _spearman_rows(drawn[[0, 2]], drawn[[1, 3]])
        gaps[draw] = rows[0] - rows[1]
    return gaps


def agreement(a: Mapping[str, Grading], b: Mapping[str, Grading]) -> Agreement:
    """``a`` against ``b`` over the files both graded (by name) and the lines both judged.

    Raises:
        ValueError: no file is graded by both.
    """
    names = sorted(set(a) & set(b))
    if not names:
        raise ValueError("the two graders have no file in common")
    grades_a, grades_b = [a[n].grade for n in names], [b[n].grade for n in names]
    gap = sum(abs(x - y) for x, y in zip(grades_a, grades_b, strict=True)) / len(names)
    lines = kept_same = class_same = 0
    for name in names:
        theirs = b[name].classes
        for number, mine in a[name].classes.items():
            other = theirs.get(number)
            if other is None:
                continue
            lines += 1
            kept_same += (mine == "keep") == (other == "keep")
            class_same += mine == other
    return Agreement(
        len(names),
        spearman(grades_a, grades_b),
        gap,
        lines,
        kept_same / lines if lines else 0.0,
        class_same / lines if lines else 0.0,
    )


def read_versioned_json(path: Path, kind: str, version: int) -> dict[str, object]:
    """The JSON object of ``path``, which must carry ``schema_version`` ``version``.

    Raises:
        UsageError: the file is unreadable, not JSON, or not a ``kind`` of that version.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(f"{path}: cannot be read as JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("schema_version") != version:
        raise UsageError(f"{path}: not a {kind} (schema_version {version} expected)")
    return data


TARGET_GAP = 0.05
"""Issue 38: the scorer's Spearman and mean grade gap within this of the labellers' own."""
TARGET_LINES = 0.85
"""Issue 38: the share of lines the scorer keeps or strikes as a labeller does."""


def within_target(got: Agreement, ceiling: Agreement) -> bool:
    """The scorer's agreement ``got`` with a labeller is within issue 38's target of the
    labellers' agreement with each other (``ceiling``)."""
    return (
        got.spearman >= ceiling.spearman - TARGET_GAP
        and got.mean_gap <= ceiling.mean_gap + TARGET_GAP
        and got.line_agreement >= TARGET_LINES
    )
