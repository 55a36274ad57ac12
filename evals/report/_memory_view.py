"""The final MEMORY.md with evidence highlighted (the page's script diffs two runs)."""

from __future__ import annotations

from dataclasses import dataclass

from evals.results.results import RunResult

__all__ = ["MemoryLine", "highlighted_lines"]

_CLASSES = (("noise", "noise"), ("duplicate", "dup"), ("stale", "stale"), ("structure", "struct"))


@dataclass(frozen=True)
class MemoryLine:
    """One line of MEMORY.md and why it is highlighted."""

    number: int
    """1-based line number."""
    text: str
    """The line."""
    css: str
    """CSS classes (``noise``, ``dup``, ``stale``, ``struct``, ``fact``), or empty."""
    notes: str
    """Why, e.g. ``noise: screenshot; duplicate of line 9``."""


def _css(label: str) -> str:
    return next((css for prefix, css in _CLASSES if label.startswith(prefix)), "fact")


def highlighted_lines(result: RunResult) -> list[MemoryLine]:
    """Lines of the final MEMORY.md, with the highlights every score asked for."""
    marks: dict[int, list[str]] = {}
    for score in result.scores:
        for start, end, label in score.lines:
            for number in range(start, end + 1):
                marks.setdefault(number, []).append(label)
    lines = []
    for number, text in enumerate(result.memory_md.splitlines(), start=1):
        labels = marks.get(number, [])
        css = " ".join(sorted({_css(label) for label in labels}))
        lines.append(MemoryLine(number, text, css, "; ".join(labels)))
    return lines
