"""Inputs for a blind second labeller, and reading back what they wrote.

:func:`write_blind_inputs` writes, for each held-aside file, one page with only what a reader
needs: the scenario's description, what the user said (in order, with the scenario's own
turn marks), the facts the scenario lists, and the MEMORY.md with line numbers and the lines
to label. It never writes the first labeller's judgements or grade, nor any scorer output.
Beside the pages: the protocol (a copy of ``docs/reader-protocol.md``), instructions, and
``labels-2.template.json`` to fill in as ``labels-2.json``.

:func:`load_second_labels` reads ``labels-2.json`` back, checking every value.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from pathlib import Path

from evals.bench._reader_agreement import (
    Grading,
    ReaderFile,
    read_versioned_json,
    reader_class,
)
from evals.errors import UsageError
from evals.scenario import (
    BurstEvent,
    ManualEditEvent,
    ModelSwitchEvent,
    Scenario,
    UserEvent,
    load_scenario,
)
from evals.scorers.labels import LABELS, labelled_lines

__all__ = [
    "BLIND_DIR",
    "SECOND_LABELS",
    "TEMPLATE",
    "blind_page",
    "load_second_labels",
    "write_blind_inputs",
]

BLIND_DIR = Path("reports/reader-blind")
SECOND_LABELS = "labels-2.json"
TEMPLATE = "labels-2.template.json"
SCHEMA_VERSION = 1

_INSTRUCTIONS = """# Blind labelling of held-aside MEMORY.md files

You are the second labeller. Read `protocol.md` first, then, for each page in `files/`:

1. read the scenario's description, what the user said, and the facts the scenario lists;
2. give every line listed under "Lines to label" exactly one label of the protocol
   (`fact`, `extra`, `stale`, `noise`, `junk`, `model_name`, `invented`, `repeat`), with an
   optional note after a colon (`"invented: the user never gave an age"`);
3. grade the file from 0 to 1: how much of what should be remembered a reader finds in it,
   and how much they would have to strike (the protocol's "Grading a file").

Write your answers into a copy of `labels-2.template.json` named `labels-2.json`, next to it
(every `null` replaced). Work from these pages and the protocol alone: do not run memeval on
the files, and do not look at `tests/data/reader_labels/` (the first labeller's answers) or
any report of scores.

When `labels-2.json` is in place, `memeval bench reader --agreement` prints how far the two
labellers agree, and how far the scorer agrees with each.
"""


def _said(scenario: Scenario) -> list[str]:
    rows: list[str] = []
    for date, day in zip(scenario.day_dates(), scenario.days, strict=True):
        rows.append(f"\n**{date.isoformat()}**" + (f" ({day.note})" if day.note else "") + "\n")
        for event in day.events:
            if isinstance(event, UserEvent):
                mark = f"[{event.turn or 'durable'}] "
                shot = f' (with a screenshot: "{event.screenshot}")' if event.screenshot else ""
                rows.append(f'- {mark}the user: "{event.user}"{shot}')
            elif isinstance(event, BurstEvent):
                burst = event.burst
                mark = f"[{event.turn or 'durable'}] "
                rows.append(f'- {mark}{burst.turns} messages like: "{burst.user}"')
            elif isinstance(event, ManualEditEvent):
                edit = event.manual_edit
                if edit.append:
                    rows.append(f'- the user edits MEMORY.md by hand, adding: "{edit.append}"')
                elif edit.replace:
                    old, new = edit.replace.get("old", ""), edit.replace.get("new", "")
                    rows.append(f'- the user edits MEMORY.md by hand: "{old}" -> "{new}"')
                elif edit.text:
                    body = "\n".join(
                        f"    {line}" if line.strip() else "" for line in edit.text.splitlines()
                    )
                    rows.append(f"- the user rewrites MEMORY.md by hand as:\n\n{body}\n")
            elif isinstance(event, ModelSwitchEvent):
                switch = event.model_switch
                rows.append(
                    f"- the app switches its model from {switch.from_model} to {switch.to_model}"
                )
    return rows


def _listed(scenario: Scenario) -> list[str]:
    expect = scenario.expect
    rows = ["Facts to remember:"]
    for spec in expect.remember:
        where = f" (section: {' or '.join(spec.section)})" if spec.section else ""
        rows.append(f"- {spec.fact}{where}")
    if expect.contradictions:
        rows.append("\nFacts that changed (the old side is stale, the new one current):")
        rows += [f'- "{p.stale.fact}" -> "{p.current.fact}"' for p in expect.contradictions]
    if expect.forbid:
        rows.append("\nNot to be kept:")
        rows += [f"- {spec.fact} ({spec.kind})" for spec in expect.forbid]
    return rows


def blind_page(item: ReaderFile, scenario: Scenario) -> str:
    """The page a blind labeller reads for ``item``: no judgement, grade or score on it."""
    memory = item.path.read_text(encoding="utf-8")
    numbered = "\n".join(
        f"{number:4}  {line}".rstrip() for number, line in enumerate(memory.splitlines(), start=1)
    )
    to_label = ", ".join(str(n) for n in labelled_lines(memory)) or "(none)"
    parts = [
        f"# {item.name} (scenario: {scenario.name})",
        "",
        "## The scenario",
        "",
        " ".join(scenario.description.split()),
        "",
        "## What the user said, in order",
        "",
        "Each message carries the scenario's mark: `durable` (worth keeping), `request` (the",
        "user asks for it to be remembered), `transient` (of the moment).",
        *_said(scenario),
        "",
        "## What the scenario lists",
        "",
        *_listed(scenario),
        "",
        "## The MEMORY.md",
        "",
        "```",
        numbered,
        "```",
        "",
        f"Lines to label: {to_label}",
        "",
    ]
    return "\n".join(parts)


def write_blind_inputs(
    items: Sequence[ReaderFile], scenarios: Path, out_dir: Path, protocol: Path
) -> list[Path]:
    """Write the blind labeller's folder for ``items``; returns the pages written.

    Raises:
        UsageError: the protocol page or a scenario is missing.
    """
    if not protocol.is_file():
        raise UsageError(f"{protocol}: the protocol page is missing (docs/reader-protocol.md)")
    pages = out_dir / "files"
    if pages.is_dir():
        shutil.rmtree(pages)  # a page left from an earlier split would not be labelled
    pages.mkdir(parents=True)
    written, template = [], {}
    for item in items:
        path = scenarios / f"{item.scenario}.yaml"
        if not path.is_file():
            raise UsageError(f"{item.path}: its scenario {path} is missing")
        page = pages / item.name
        page.write_text(blind_page(item, load_scenario(path)), encoding="utf-8")
        written.append(page)
        lines = labelled_lines(item.path.read_text(encoding="utf-8"))
        template[item.name] = {"grade": None, "lines": {str(n): None for n in lines}}
    shutil.copyfile(protocol, out_dir / "protocol.md")
    (out_dir / "README.md").write_text(_INSTRUCTIONS, encoding="utf-8")
    body = {"schema_version": SCHEMA_VERSION, "labeller": "", "files": template}
    (out_dir / TEMPLATE).write_text(json.dumps(body, indent=1) + "\n", encoding="utf-8")
    return written


def _label(path: Path, name: str, number: str, value: object) -> str:
    where = f"{path}: {name} line {number}"
    if not isinstance(value, str) or not value.strip():
        raise UsageError(f"{where}: not labelled (give one of: {', '.join(LABELS)})")
    head = value.split(":", 1)[0].strip()
    if head not in LABELS:
        raise UsageError(f"{where}: {value!r} is not a label (one of: {', '.join(LABELS)})")
    return reader_class(head)


def load_second_labels(path: Path) -> dict[str, Grading]:
    """The second labeller's gradings, by file name.

    Raises:
        UsageError: the file is missing or unreadable, or a grade or label is missing or not
            one of the protocol's.
    """
    data = read_versioned_json(path, "labels file", SCHEMA_VERSION)
    files = data.get("files")
    if not isinstance(files, dict) or not files:
        raise UsageError(f"{path}: no files labelled")
    found: dict[str, Grading] = {}
    for name, item in files.items():
        grade = item.get("grade") if isinstance(item, dict) else None
        if not isinstance(grade, int | float) or isinstance(grade, bool) or not 0 <= grade <= 1:
            raise UsageError(f"{path}: {name}: grade {grade!r} is not a number from 0 to 1")
        lines = item.get("lines")
        if not isinstance(lines, dict):
            raise UsageError(f"{path}: {name}: no lines")
        classes = {int(n): _label(path, name, n, v) for n, v in lines.items()}
        found[name] = Grading(float(grade), classes)
    return found
