"""The memories and the fact the decision tests show the model (tests of memsys.decisions)."""

from __future__ import annotations

from datetime import datetime

from memsys.decisions import Decision, SimilarMemory, parse_decision

__all__ = ["DARK", "LIGHT", "NOW", "SHOWN", "parse"]

NOW = datetime(2026, 3, 16, 9, 0)
DARK = SimilarMemory(
    3, "Prefers dark mode in all apps", "preferences", datetime(2026, 3, 2), datetime(2026, 3, 4)
)
TEA = SimilarMemory(8, "Drinks tea", "notes", datetime(2026, 1, 2), datetime(2026, 1, 2))
SHOWN = [DARK, TEA]
LIGHT = "Prefers light mode in all apps"


def parse(reply: str, candidate: str = LIGHT) -> Decision:
    return parse_decision(reply, candidate, SHOWN)
