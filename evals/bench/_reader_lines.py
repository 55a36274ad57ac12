"""The lines where the scorer and the readers part: ``memeval bench reader --disagreements``.

A line counts when the scorer keeps it and every labeller who judged it strikes it, or the
other way round: the lines that move a file's grade. (A line struck for another reason, junk
against noise, does not move it.) Each comes with the scorer's evidence and each labeller's
words, so that a reader can say which side the protocol is on without running anything else.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

from evals.bench._reader_agreement import Grading, Part, ReaderFile

__all__ = ["LineVerdict", "ScoredLine", "disagreements", "format_disagreements"]


@dataclass(frozen=True)
class ScoredLine:
    """The scorer's label of one line and why."""

    label: str
    """One of :data:`READER_CLASSES` (``keep`` for a kept line)."""
    evidence: str
    """The rule that held and what it matched."""


@dataclass(frozen=True)
class LineVerdict:
    """One line the scorer keeps and the labellers strike, or the other way round."""

    file: str
    part: Part
    line: int
    text: str
    scorer: str
    evidence: str
    first: str
    """The first labeller's class."""
    first_words: str
    """The first labeller's words ("invented: never said")."""
    second: str | None
    """The second labeller's class, or None when only one labeller judged the file."""


def disagreements(
    items: Sequence[ReaderFile],
    scored: Mapping[str, Mapping[int, ScoredLine]],
    second: Mapping[str, Grading],
) -> list[LineVerdict]:
    """Every line of ``items`` the scorer keeps while each labeller who judged it strikes it,
    or strikes while each keeps it; in file order."""
    found: list[LineVerdict] = []
    for item in items:
        first = item.grading().classes
        theirs = second.get(item.name)
        text = item.path.read_text(encoding="utf-8").splitlines()
        for number, ours in sorted(scored.get(item.name, {}).items()):
            if number not in first:
                continue
            other = theirs.classes.get(number) if theirs else None
            kept = {first[number] == "keep"} | ({other == "keep"} if other else set())
            if len(kept) != 1 or (ours.label == "keep") in kept:
                continue  # the labellers split, or the scorer sides with them
            found.append(
                LineVerdict(
                    item.name,
                    item.part,
                    number,
                    text[number - 1].strip() if number <= len(text) else "",
                    ours.label,
                    ours.evidence,
                    first[number],
                    item.judgements.get(number, first[number]),
                    other,
                )
            )
    return found


def format_disagreements(found: Sequence[LineVerdict], lines: int, as_json: bool) -> str:
    """Text (each line, then counts of scorer class against the first labeller's) or JSON
    lines, one object per line, for other tools."""
    if as_json:
        return "\n".join(json.dumps(asdict(v), ensure_ascii=False) for v in found)
    rows = []
    for v in found:
        second = f"; second: {v.second}" if v.second else ""
        rows.append(
            f"{v.part:6} {v.file}:{v.line}  scorer {v.scorer} ({v.evidence}); "
            f"first: {v.first_words}{second}\n         {v.text}"
        )
    pairs = Counter((v.scorer, v.first) for v in found)
    rows.append(
        f"\n{len(found)} of the {lines} labelled lines: the scorer keeps what the labellers "
        "strike, or strikes what they keep"
    )
    rows.extend(f"  scorer {a:10} first labeller {b:10} {n}" for (a, b), n in pairs.most_common())
    return "\n".join(rows)
