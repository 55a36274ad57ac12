"""Scorers of what real models put in MEMORY.md that a reader would strike out: junk entries,
model and product names saved as user facts, facts filed under the wrong section, and entries
the user never said. Each counts the lines :mod:`evals.scorers.labels` gave its label, and
``struck_lines`` counts them all."""

from __future__ import annotations

from collections import Counter

from evals.scorers._registry import scorer
from evals.scorers._sections import cues_of, standard_section
from evals.scorers._support import INVENTED_SHARE
from evals.scorers._types import RunData, Score
from evals.scorers.labels import KEPT, label_target

__all__ = [
    "INVENTED_SHARE",
    "invented_entries",
    "junk_entries",
    "model_names",
    "struck_lines",
    "wrong_section",
]


def _snippet(text: str, limit: int = 70) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _count(run: RunData, label: str, name: str, what: str, none: str) -> Score:
    """A count of the final file's lines labelled ``label``, with their evidence."""
    found = label_target(run.final, run).of(label)
    kinds: dict[str, int] = {}
    items, lines = [], []
    for line in found:
        kind = line.evidence.split(":")[0] if label == "junk" else label
        kinds[kind] = kinds.get(kind, 0) + 1
        shown = repr(_snippet(line.entry.text))
        if label == "model_name":
            items.append(f"line {line.entry.line_start} {line.evidence}: {shown}")
            tag = f"model name: {line.evidence.removeprefix('names ').strip(chr(39))}"
        else:
            items.append(f"line {line.entry.line_start}: {line.evidence}: {shown}")
            tag = f"{label}: {kind}"
        lines.append((line.entry.line_start, line.entry.line_end, tag))
    breakdown = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
    metrics: dict[str, float] = {"lines": len(found)}
    if label == "junk":
        metrics = {"junk": len(found), **{k.replace(" ", "_"): n for k, n in kinds.items()}}
    return Score(
        name,
        float(len(found)),
        (f"{len(found)} {what} ({breakdown})." if label == "junk" else f"{len(found)} {what}.")
        if found
        else none,
        higher_is_better=False,
        metrics=metrics,
        items=tuple(items),
        lines=tuple(lines),
    )


@scorer("junk_entries", higher_is_better=False)
def junk_entries(run: RunData) -> Score:
    """Lines of the final MEMORY.md labelled junk: ``None``/empty/placeholder bullets, pasted
    prompt or tool text, the assistant's own words, questions."""
    return _count(run, "junk", "junk_entries", "junk entries", "No junk entries.")


@scorer("model_names", higher_is_better=False)
def model_names(run: RunData) -> Score:
    """Lines of the final MEMORY.md labelled model name (a model or AI product, RFC-049)."""
    score = _count(
        run, "model_name", "model_names", "entries name a model or AI product", "No model names."
    )
    return Score(
        score.name,
        score.value,
        score.explanation,
        higher_is_better=False,
        metrics={"entries": score.value or 0.0},
        items=score.items,
        lines=score.lines,
    )


@scorer("wrong_section", uses_embeddings=True, share=True)
def wrong_section(run: RunData) -> Score:
    """Share of placed kept lines in their section: lines credited with a fact whose spec
    names sections, and lines whose own words place them (:mod:`._sections`)."""
    placed = checked = cue_checked = 0
    misfiled = []
    specs = {spec.fact: spec for spec in run.final.expect.remember}
    for line in label_target(run.final, run).kept:
        if standard_section(line.entry.section) is None:
            continue  # no standard section: structure's to judge
        spec = specs.get(line.fact or "")
        if spec is not None and spec.section:
            checked += 1
            placed += line.misfiled is None
        elif cues_of(line.entry.text):
            cue_checked += 1
        else:
            continue
        if line.misfiled:
            misfiled.append(line)
    total = checked + cue_checked
    if total == 0:
        return Score(
            "wrong_section",
            None,
            "No remembered fact names its section and no entry's words place it.",
        )
    items = [
        f"line {m.entry.line_start} in {m.entry.section}, expected {m.misfiled}: "
        f"{_snippet(m.entry.text)!r}"
        for m in misfiled
    ]
    lines = [(m.entry.line_start, m.entry.line_end, "wrong section") for m in misfiled]
    in_place = total - len(misfiled)
    return Score(
        "wrong_section",
        in_place / total,
        f"{in_place} of {total} placed entries are in their section ({placed} of {checked} "
        f"remembered facts; {len(misfiled) - (checked - placed)} misfiled by their own words).",
        metrics={
            "placed": placed,
            "checked": checked,
            "cue_checked": cue_checked,
            "misfiled": len(misfiled),
        },
        items=tuple(items),
        lines=tuple(lines),
    )


@scorer("invented_entries", higher_is_better=False)
def invented_entries(run: RunData) -> Score:
    """Lines of the final MEMORY.md labelled invented: stating what the user never said.

    Rule (:mod:`._support`): fewer than half of its claim words (content words without the
    framing any entry adds: "User requested:", "Prefers ...", "[profession: ...]") were said
    by the user (in a message, a screenshot they sent, a hand edit of MEMORY.md or a
    model-switch notice; a plain question tells nothing), compared by stemmed keys, or it
    names a capitalised name or states a number the user never used. Threshold from the
    audit of the 41 real-model cells (reports/real-cell-scorer-audit.md): "fewer than half"
    with the name rule flagged 48 of the 74 invented lines and 5 of 288 others. Junk, model
    names, stale and expected facts, repeats and noise take their own label first.
    """
    if not run.user_texts:
        return Score("invented_entries", None, "No user message to check entries against.")
    labels = label_target(run.final, run)
    checked = sum(1 for line in labels.lines if line.label not in ("junk", "model_name"))
    score = _count(run, "invented", "invented_entries", "lines the user never said", "")
    return Score(
        "invented_entries",
        score.value,
        score.explanation or f"Every one of {checked} lines is grounded in what the user said.",
        higher_is_better=False,
        metrics={"invented": score.value or 0.0, "checked": checked},
        items=score.items,
        lines=score.lines,
    )


@scorer("struck_lines", higher_is_better=False)
def struck_lines(run: RunData) -> Score:
    """Lines of the final MEMORY.md a reader would strike, whatever the reason: every label
    but ``fact`` and ``extra``. Each struck line is also counted by its own label's metric;
    this is the file's clutter in one number, which two labellers agree on more than on the
    reason (``invented`` or ``junk``, ``noise`` or ``junk``: reports/reader-agreement.md), and
    which a change that adds lines of several kinds at once moves as a whole."""
    labels = label_target(run.final, run)
    struck = [line for line in labels.lines if line.label not in KEPT]
    by_label = Counter(line.label for line in struck)
    breakdown = ", ".join(f"{n} {label}" for label, n in sorted(by_label.items()))
    total = len(labels.lines)
    return Score(
        "struck_lines",
        float(len(struck)),
        f"{len(struck)} of {total} lines a reader would strike ({breakdown})."
        if struck
        else f"A reader would strike none of the {total} lines.",
        higher_is_better=False,
        metrics={"struck": len(struck), "lines": total, **by_label},
        items=tuple(
            f"line {line.entry.line_start} ({line.label}): {_snippet(line.entry.text)!r}"
            for line in struck
        ),
    )
