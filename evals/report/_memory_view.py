"""The final MEMORY.md, each line coloured by its one label (the page's script diffs two runs).

The scorers count over one label per line (:mod:`evals.scorers.labels`) and each marks the
lines it counted with a tag (``fact``, ``noise``, ``junk: placeholder``, ``model name: GPT-4``,
``repeat of line 9``...). A line's colour is the label its tag names, never a default: a line
no scorer tagged has no colour (``extra``, kept by a reader, or not a bullet), and an unknown
tag is shown as a note only. ``wrong section`` and ``structure`` are flags on a kept line, an
outline rather than a colour.
"""

from __future__ import annotations

from dataclasses import dataclass

from evals.results import RunResult

__all__ = [
    "LABEL_STYLES",
    "LabelStyle",
    "MemoryLine",
    "highlighted_lines",
    "line_label",
    "missing_facts",
]


@dataclass(frozen=True)
class LabelStyle:
    """How the page paints one label, and what the legend calls it."""

    label: str
    """The scorer label (:data:`evals.scorers.labels.LABELS`)."""
    colour: str
    """Background colour of its lines."""
    legend: str
    """What the legend says."""


LABEL_STYLES = (
    LabelStyle("fact", "#c9efc9", "expected fact"),
    LabelStyle("stale", "#e3cdfb", "stale (the old side of a contradiction)"),
    LabelStyle("noise", "#ffc9c9", "noise (forbidden, screenshot, transient)"),
    LabelStyle("model_name", "#ffd9a8", "model or product name"),
    LabelStyle("junk", "#d5d5d5", "junk (placeholder, pasted prompt, fragment)"),
    LabelStyle("invented", "#f9c3ec", "invented (the user never said it)"),
    LabelStyle("repeat", "#fff0a8", "repeat of an earlier line"),
)
"""One colour per label; a line no scorer tagged (``extra``) stays white."""

# The tag each scorer writes -> its label (prefix match; "duplicate" from results scored
# before the line labels).
_TAGS = (
    ("fact", "fact"),
    ("stale", "stale"),
    ("noise", "noise"),
    ("model name", "model_name"),
    ("junk", "junk"),
    ("invented", "invented"),
    ("repeat", "repeat"),
    ("duplicate", "repeat"),
)
_FLAGS = ("wrong section", "structure")


@dataclass(frozen=True)
class MemoryLine:
    """One line of MEMORY.md, its label and why."""

    number: int
    """1-based line number."""
    text: str
    """The line."""
    label: str
    """Its one label (a key of :data:`LABEL_STYLES`), or empty: untagged."""
    flagged: bool
    """A ``wrong section`` or ``structure`` flag (drawn as an outline)."""
    notes: str
    """Every tag the scorers gave it, e.g. ``model name: GPT-4; wrong section``."""

    @property
    def css(self) -> str:
        """CSS classes: ``l-<label>`` and ``flag``."""
        classes = [f"l-{self.label}"] if self.label else []
        return " ".join([*classes, "flag"] if self.flagged else classes)


def line_label(tags: list[str]) -> str:
    """The label the tags name (the first, in :data:`LABEL_STYLES` order), or empty."""
    found = {label for tag in tags for prefix, label in _TAGS if tag.startswith(prefix)}
    return next((style.label for style in LABEL_STYLES if style.label in found), "")


def highlighted_lines(result: RunResult) -> list[MemoryLine]:
    """Lines of the final MEMORY.md, each with its label and why: from the result's line
    labels, with the evidence and the writer (:mod:`evals.scorers.provenance`), or, in
    results saved before those, from the scorers' tags."""
    marks: dict[int, list[str]] = {}
    for score in result.scores:
        for start, end, tag in score.lines:
            for number in range(start, end + 1):
                marks.setdefault(number, []).append(tag)
    # Results scored with provenance carry each entry's one label, evidence and writer.
    labelled = {line.line: line for line in result.lines}
    styled = {style.label for style in LABEL_STYLES}
    lines = []
    for number, text in enumerate(result.memory_md.splitlines(), start=1):
        tags = marks.get(number, [])
        flagged = any(tag.startswith(_FLAGS) for tag in tags)
        entry = labelled.get(number)
        if entry is None:
            lines.append(MemoryLine(number, text, line_label(tags), flagged, "; ".join(tags)))
            continue
        flags = [tag for tag in tags if tag.startswith(_FLAGS)]
        note = f"{entry.label}: {entry.evidence} · written by {entry.writer}"
        label = entry.label if entry.label in styled else ""
        lines.append(MemoryLine(number, text, label, flagged, "; ".join([note, *flags])))
    return lines


_MISSED_AT_END = "[end] missed: "


def missing_facts(result: RunResult) -> list[str]:
    """The expected facts the final MEMORY.md does not hold (the ``facts_recall`` score's
    end-state misses): what a reader of the file would look for and not find."""
    return [
        item.removeprefix(_MISSED_AT_END)
        for score in result.scores
        if score.name == "facts_recall"
        for item in score.items
        if item.startswith(_MISSED_AT_END)
    ]
