"""The composite ``quality`` score in [0, 1], and the normalisers scorers register with.

Which scorers take part, and with which weight, is declared on each scorer
(``@scorer(..., quality=QualityPart(weight, normaliser))``); :func:`quality_weights` reads
them back from the registry.

The weights (issue 11) are chosen from what a reader of MEMORY.md sees: every line that is
noise (junk, model names, screenshot details, transient chit-chat) costs as much attention
as a missing fact costs usefulness, so ``noise`` (0.20, as the share of clean entries) weighs
as much as ``facts_recall`` (0.20); a stale contradiction misleads, so
``contradictions_resolved`` comes next (0.15); then entries the user never said
(``invented_entries``, 0.10 as the share of grounded entries: a line to strike out that no
``forbid`` list names, and a false fact; its 0.10 came half from noise and half from facts
recall), ``duplicates`` and lost explicit requests (``user_requested_preserved``), 0.10
each; where a fact is filed (``wrong_section``), the file's ``structure`` and the
``backups`` matter least to a reader (0.05 each). Five ``None`` bullets in a seven-fact file
cost 0.20 x 5/12 = 0.08 of quality; the former weights (noise 0.20 x the share of listed
forbidden facts present) did not see them at all.

Measured on the default run (reports/real-cell-scorer-audit.md), the same scores weighted
both ways: with ``invented_entries`` in, quality follows a reader's judgement of the 41 real
cells (half the share of lines the reader strikes or corrects, half facts recall; built from
the audit's labels, so not independent of the invented class) with correlation 0.71 instead
of 0.64, while the mean gap between ``sim/careful`` under ``guardrails`` and ``sim/naive``
(0.135) stays as it was (0.134); taking the weight from ``duplicates`` instead would have
narrowed that gap to 0.09.

Repeats are lines a reader strikes too: the noise part is the share of entries a reader
keeps (neither noise nor a repeat of an earlier entry), and the duplicates part counts
repeated lines, not pairs (pairs grow with the square of a group, so one line saved ten
times zeroed the part and nothing more could be lost). Before, a real file of 192 entries,
181 of them repeats (compaction-pressure, v023-vague), scored 0.84 because every component
but ``duplicates`` (weight 0.10) was near 1; now 0.63. On the same 41 cells correlation with
the reader stays 0.71 (0.70 -> 0.76 when the reader also strikes exact repeats), and the
``sim/careful``/``sim/naive`` gap widens from 0.135 to 0.231 (``sim/naive`` appends every
repeat): ``memeval bench calibration RUN`` prints these figures for a run.

Invented entries are struck too (the kept share leaves them out, beside their own 0.10
part): thousand-message-day's real file, 47 entries of which 13 are noise, 11 repeats and
30 made up (a profile, hobbies, projects the user never mentioned), scored 0.77 and now
0.61. Correlation with the reader on the 41 cells 0.71 -> 0.77 (0.76 -> 0.81 with exact
repeats struck; the reader's labels include the invented class, so this is not an
independent check); the simulated gap does not move (``sim/...`` never invents).
"""

from __future__ import annotations

from collections.abc import Sequence

from evals.scorers._registry import get_scorer, quality_weights
from evals.scorers._types import Score

__all__ = ["composite_quality", "duplicates_part", "grounded_part", "noise_part", "value_part"]


def value_part(score: Score) -> float | None:
    """The score's value as it is (already a share in [0, 1], higher better)."""
    return score.value


def noise_part(score: Score) -> float | None:
    """The share of final MEMORY.md entries a reader keeps: not noise, not a repeat of an
    earlier entry, not invented (per line, not per forbidden fact: five ``None`` bullets
    among seven facts make it 7/12, and a fact saved ten times keeps 1 line of 10)."""
    share = score.metrics.get("kept_share", score.metrics.get("clean_share"))
    return None if share is None else float(share)


def grounded_part(score: Score) -> float | None:
    """The share of judged entries that are not invented (1 - invented / checked)."""
    if score.value is None:
        return None
    return 1.0 - score.value / max(1.0, score.metrics.get("checked", 1.0), score.value)


def duplicates_part(score: Score) -> float | None:
    """1 - repeated entries / entries: the share of entries that say something no earlier
    entry says (pairs would grow with the square of a group: one line saved ten times is 45
    pairs but 9 lines to strike)."""
    if score.value is None:
        return None
    entries = max(1.0, score.metrics.get("entries", 1.0))
    repeated = score.metrics.get("repeats", score.value)
    return max(0.0, 1.0 - repeated / entries)


def composite_quality(scores: Sequence[Score]) -> Score:
    """Weighted mean of the normalised quality components.

    Components without a value are left out and the remaining weights rescaled.
    """
    weights = quality_weights()
    by_name = {s.name: s for s in scores}
    parts: dict[str, float] = {}
    skipped: list[str] = []
    for name in weights:
        part = get_scorer(name).quality
        score = by_name.get(name)
        value = part.normalise(score) if part is not None and score is not None else None
        if value is None:
            skipped.append(name)
        else:
            parts[name] = value
    total_weight = sum(weights[n] for n in parts)
    if total_weight == 0:
        return Score("quality", None, "No quality component could be scored.")
    quality = sum(weights[n] * v for n, v in parts.items()) / total_weight
    shown = ", ".join(f"{n} {v:.2f}x{weights[n]:.2f}" for n, v in parts.items())
    explanation = f"Weighted mean of {shown}."
    if skipped:
        explanation += f" Not scored, weights rescaled: {', '.join(skipped)}."
    return Score("quality", quality, explanation, metrics=dict(parts))
