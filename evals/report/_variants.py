"""Each variant's text in the report: every description and prompt it changes against its
parent (its ``extends``, else the report's baseline variant), in full and as a line diff.

Results name a variant only; its text comes from the shipped file of that name or, for a
variant file of one's own, from the path ``memeval run --variant FILE`` passes in. A variant
whose file cannot be found says so instead of showing nothing.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from memsys.errors import UnknownNameError, VariantError
from memsys.tools import Variant, load_variant
from memsys.tools.descriptions import PROMPT_SLOTS

__all__ = ["ChangedText", "VariantView", "variant_texts", "variant_views"]


def variant_texts(variant: Variant) -> dict[str, str]:
    """Every text a variant gives a model, by where it goes (``save_memory``,
    ``save_memory.content``, ``prompts.daily_summary``...); built-in prompts are ``(built-in)``."""
    out: dict[str, str] = {}
    for tool, text in variant.tools.items():
        out[tool] = text.description
        out.update({f"{tool}.{name}": desc for name, desc in text.parameters})
    for slot in PROMPT_SLOTS:
        out[f"prompts.{slot}"] = getattr(variant.prompts, slot) or "(built-in)"
    return out


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


def _load(source: str) -> Variant | None:
    try:
        return load_variant(source)
    except (UnknownNameError, VariantError):
        return None


def _parent(variant: Variant, baseline: str | None) -> Variant | None:
    if variant.extends is None:
        return _load(baseline) if baseline and baseline != variant.name else None
    found = _load(variant.extends)
    if found is None and variant.path is not None:  # a name or path next to the file
        local = variant.path.parent / variant.extends
        found = _load(str(local if local.suffix == ".toml" else local.with_suffix(".toml")))
    return found


def _view(name: str, variant: Variant, baseline: str | None) -> VariantView:
    parent = _parent(variant, baseline)
    mine = variant_texts(variant)
    theirs = variant_texts(parent) if parent else {}
    changes = []
    for where, text in mine.items():
        if parent and theirs.get(where) == text:
            continue
        lines = difflib.unified_diff(
            theirs.get(where, "").splitlines(), text.splitlines(), lineterm="", n=1
        )
        changes.append(ChangedText(where, text, tuple(list(lines)[2:]) if parent else ()))
    return VariantView(
        name,
        variant.summary,
        parent.name if parent else None,
        str(variant.path) if variant.path else name,
        tuple(changes),
    )


def variant_views(
    names: Sequence[str], sources: Mapping[str, Path | str] | None, baseline: str | None
) -> list[VariantView]:
    """A view per variant name (sorted), its text from ``sources`` (name -> ``.toml`` path)
    or the shipped file of that name."""
    views = []
    for name in sorted(set(names)):
        variant = _load(str((sources or {}).get(name, name)))
        if variant is None:
            note = (
                "its text is not shown: not a shipped variant, and this report was not given "
                "its file (the report `memeval run --variant FILE` writes shows it)"
            )
            views.append(VariantView(name, note, None, "", ()))
        else:
            views.append(_view(name, variant, baseline))
    return views
