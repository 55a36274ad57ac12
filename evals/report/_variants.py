"""Each variant's text in the report: every description and prompt it changes against its
parent (its ``extends``, else the report's baseline variant), in full and as a line diff.

The texts come from the results alone (their ``about.variants`` block, written from the
shipped file of each name or the file ``memeval run --variant FILE`` passed in); a variant
the block does not hold says so instead of showing nothing.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass

from evals.results import ResultsAbout, VariantText

__all__ = ["ChangedText", "VariantView", "variant_views"]


@dataclass(frozen=True)
class ChangedText:
    """One description or prompt a variant changes."""

    where: str
    """``save_memory``, ``save_memory.content``, ``prompts.compaction``..."""
    text: str
    """The variant's full text there."""
    diff: tuple[str, ...]
    """Unified-diff lines against the parent (``-`` removed, ``+`` added); empty without one."""


@dataclass(frozen=True)
class VariantView:
    """One variant of the report."""

    name: str
    """Its name (the page's anchor is ``variant-<name>``)."""
    summary: str
    """Its one-line summary, or why its text is not shown."""
    parent: str | None
    """What it is diffed against (None: a root variant shown whole)."""
    source: str
    """The file it was read from."""
    changes: tuple[ChangedText, ...]
    """What it changes (every text, without a parent)."""


def _view(name: str, variant: VariantText, parent: VariantText | None) -> VariantView:
    mine = variant.texts
    theirs = parent.texts if parent else {}
    changes = []
    for where, text in mine.items():
        if parent and theirs.get(where) == text:
            continue
        lines = difflib.unified_diff(
            theirs.get(where, "").splitlines(), text.splitlines(), lineterm="", n=1
        )
        changes.append(ChangedText(where, text, tuple(list(lines)[2:]) if parent else ()))
    return VariantView(
        name, variant.summary, parent.name if parent else None, variant.source, tuple(changes)
    )


def variant_views(
    names: Sequence[str], about: ResultsAbout, baseline: str | None
) -> list[VariantView]:
    """A view per variant name (sorted), its text from the results' ``about.variants``;
    a root variant is diffed against ``baseline`` when the block holds it."""
    views = []
    for name in sorted(set(names)):
        variant = about.variants.get(name)
        if variant is None:
            note = (
                "its text is not shown: not a shipped variant, and this report was not given "
                "its file (the report `memeval run --variant FILE` writes shows it)"
            )
            views.append(VariantView(name, note, None, "", ()))
            continue
        if variant.extends is not None:
            parent = about.variants.get(variant.extends)
        else:
            parent = about.variants.get(baseline) if baseline and baseline != name else None
        views.append(_view(name, variant, parent))
    return views
