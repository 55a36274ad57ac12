"""A fresh batch for the reader-labelled set: chosen by a fixed rule, then labelled blind twice.

``--choose-fresh RUN_DIR --cells GLOB`` takes the final MEMORY.md of every repeat of every cell
of a run whose folder matches GLOB (run-relative, comma-separated), in the order of the
SHA-256 of their run paths (an order nobody picks), skips a file with no line to label or a
copy of one already in the set, and copies the rest into the set's ``files/`` from the next
free number. It writes one folder per blind labeller (``A/``, ``B/`` under ``--fresh-dir``)
with the pages of these files alone, and ``fresh.json``, what was chosen, and freezes the
committed scorer's grades of them (:func:`freeze_files`) while nobody has read a line of them.

``--ingest-fresh`` reads both labellers' ``labels-2.json`` back, checked line by line: the
first labeller's answers become the next ``batchN.yaml`` under ``--header``'s comment, the
second's join the blind folder's ``labels-2.json``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

from evals.bench._reader_agreement import ReaderFile, parse_set_name, read_versioned_json
from evals.bench._reader_blind import (
    SECOND_LABELS,
    TEMPLATE,
    load_second_labels,
    write_blind_inputs,
)
from evals.bench._reader_unseen import Grader, committed_scorer, freeze_files
from evals.errors import UsageError
from evals.scorers.labels import labelled_lines
from memsys.safe_io import write_output

__all__ = [
    "FRESH_LIST",
    "FreshFile",
    "add_fresh_arguments",
    "choose_fresh",
    "ingest_fresh",
    "pick_fresh",
    "run_fresh",
]

FRESH_LIST = "fresh.json"
LABELLERS = ("A", "B")
"""The two blind labellers' folders: A's answers become the batch, B's the second labels."""
_FINAL = "repeat-*/memory/MEMORY.md"
"""Every repeat's final: a sampled cell's repeats are several files of one writer, which a
verdict over writers needs (copies among them are skipped like any copy)."""
_BATCH = re.compile(r"^batch(\d+)\.yaml$")


@dataclass(frozen=True)
class FreshFile:
    """One chosen final file."""

    id: int
    run_path: str
    """Its path inside the run ("SCENARIO/MODEL/POLICY/VARIANT/repeat-1/memory/MEMORY.md")."""

    @property
    def scenario(self) -> str:
        return self.run_path.split("/", 1)[0]

    @property
    def name(self) -> str:
        """Its name in the set's ``files/``."""
        return f"{self.id:02d}-{self.scenario}.md"


def pick_fresh(
    run_dir: Path, patterns: str, known: set[str], first: int
) -> tuple[list[FreshFile], list[tuple[str, str]]]:
    """The files to add, numbered from ``first``, and the skipped ones with why.

    ``known`` holds the texts of the set's files (a copy of one is skipped, as is a second
    copy within the run). Every repeat of a cell is looked at, not only the first."""
    paths = {
        final.relative_to(run_dir).as_posix()
        for pattern in patterns.split(",")
        for final in run_dir.glob(f"{pattern.strip().rstrip('/')}/{_FINAL}")
    }
    seen = set(known)
    chosen: list[FreshFile] = []
    skipped: list[tuple[str, str]] = []
    for path in sorted(paths, key=lambda p: hashlib.sha256(p.encode()).hexdigest()):
        text = (run_dir / path).read_text(encoding="utf-8")
        if not labelled_lines(text):
            skipped.append((path, "no line to label"))
        elif text in seen:
            skipped.append((path, "a copy of a file already chosen or in the set"))
        else:
            seen.add(text)
            chosen.append(FreshFile(first + len(chosen), path))
    return chosen, skipped


def _next_number(files: Path) -> int:
    numbers = [parts[0] for p in files.glob("*.md") if (parts := parse_set_name(p.name))]
    return max(numbers, default=0) + 1


def choose_fresh(
    run_dir: Path, patterns: str, labels: Path, out: Path, protocol: Path
) -> list[FreshFile]:
    """Copy the chosen files into the set and write the two labellers' folders.

    Raises:
        UsageError: the run has no matching final file, or nothing new to label.
    """
    files = labels / "files"
    known = {p.read_text(encoding="utf-8") for p in files.glob("*.md")}
    chosen, skipped = pick_fresh(run_dir, patterns, known, _next_number(files))
    for path, why in skipped:
        print(f"skipped {path}: {why}")
    if not chosen:
        raise UsageError(f"{run_dir}: no final MEMORY.md matching {patterns!r} is new to label")
    items = []
    for fresh in chosen:
        shutil.copyfile(run_dir / fresh.run_path, files / fresh.name)
        items.append(ReaderFile(files / fresh.name, fresh.scenario, 0.0, {}))
    for labeller in LABELLERS:
        write_blind_inputs(items, Path("scenarios"), out / labeller, protocol)
    listing = {"schema_version": 1, "run": str(run_dir), "files": [asdict(f) for f in chosen]}
    write_output(out / FRESH_LIST, json.dumps(listing, indent=1) + "\n")
    return chosen


def _json(path: Path, kind: str) -> dict[str, Any]:
    """A versioned JSON file of ours, its fields read as they were written."""
    return cast(dict[str, Any], read_versioned_json(path, kind, 1))


def _answers(folder: Path, names: list[str]) -> dict[str, Any]:
    """One labeller's answers for exactly ``names``, every line of the template labelled."""
    path = folder / SECOND_LABELS
    gradings = load_second_labels(path)  # checks each grade and label
    template = _json(folder / TEMPLATE, "labels template")["files"]
    files = _json(path, "labels file")
    for name in names:
        got = gradings[name].classes if name in gradings else {}
        missing = [n for n in template[name]["lines"] if int(n) not in got]
        if name not in gradings or missing:
            raise UsageError(f"{path}: {name} is not labelled (lines {missing or 'all'})")
    return files


def ingest_fresh(out: Path, labels: Path, blind: Path, header: str, today: str) -> Path:
    """Write the first labeller's answers as the next batch file and add the second's to the
    blind folder's labels; returns the batch file.

    Raises:
        UsageError: a labeller left a file or line unlabelled, or a label is not the protocol's.
    """
    listing = _json(out / FRESH_LIST, "fresh-batch list")
    chosen = [FreshFile(int(f["id"]), str(f["run_path"])) for f in listing["files"]]
    names = [f.name for f in chosen]
    first, second = (_answers(out / who, names) for who in LABELLERS)
    lines = [
        (line if line.startswith("#") else f"# {line}").rstrip()
        for line in header.strip().splitlines()
    ]
    for fresh in chosen:
        answer = first["files"][fresh.name]
        lines += [f"- id: {fresh.id}", f"  file: {fresh.run_path}"]
        lines += [f"  grade: {float(answer['grade'])}", "  lines:"]
        lines += [
            f"    {n}: {json.dumps(v.strip(), ensure_ascii=False)}"
            for n, v in answer["lines"].items()
        ]
    numbers = [int(m[1]) for p in labels.glob("batch*.yaml") if (m := _BATCH.match(p.name))]
    batch = labels / f"batch{max(numbers, default=0) + 1}.yaml"
    write_output(batch, "\n".join(lines) + "\n")
    path = blind / SECOND_LABELS
    merged = _json(path, "labels file") if path.is_file() else None
    merged = merged or {"schema_version": 1, "labeller": "reader-blind-2", "files": {}}
    merged["files"].update({n: second["files"][n] for n in names})
    who = str(second.get("labeller") or "blind labeller B")
    merged["labeller"] += f"; files {chosen[0].id}-{chosen[-1].id}: {who}, {today}"
    write_output(path, json.dumps(merged, indent=1, ensure_ascii=False) + "\n")
    return batch


def add_fresh_arguments(parser: argparse.ArgumentParser) -> None:
    """The fresh-batch options of ``memeval bench reader``."""
    parser.add_argument(
        "--choose-fresh",
        metavar="RUN_DIR",
        help=(
            "add a fresh batch from RUN_DIR's final files (--cells, every repeat), in SHA-256 "
            "order of their run paths, skipping copies and files with nothing to label; freezes "
            "the committed scorer's grades of them and writes pages for two blind labellers "
            "into --fresh-dir/A and /B"
        ),
    )
    parser.add_argument(
        "--cells",
        default="*/*/*/*",
        help="run-relative cell folders to choose from, comma-separated globs "
        "(SCENARIO/MODEL/POLICY/VARIANT; default: %(default)s)",
    )
    parser.add_argument(
        "--fresh-dir", default="runs/reader-fresh", help="the fresh batch's folder (%(default)s)"
    )
    parser.add_argument(
        "--ingest-fresh",
        action="store_true",
        help="read --fresh-dir/A and /B's labels-2.json into the next batchN.yaml and "
        "--blind-dir's labels-2.json (--header: the batch file's comment)",
    )
    parser.add_argument("--header", help="a text file: how the batch was chosen and labelled")


def run_fresh(
    args: argparse.Namespace, labels: Path, blind: Path, protocol: Path, grade: Grader
) -> int | None:
    """Run the fresh-batch option given, if any (None: none was)."""
    out = Path(args.fresh_dir)
    if args.choose_fresh:
        run_dir = Path(args.choose_fresh)
        if not run_dir.is_dir():
            raise UsageError(f"--choose-fresh {run_dir}: not a run folder")
        commit = committed_scorer("--choose-fresh")  # before a file is copied
        chosen = choose_fresh(run_dir, args.cells, labels, out, protocol)
        first, last = chosen[0].id, chosen[-1].id
        freeze_files(labels, first, last, commit, grade, "--choose-fresh")
        print(
            f"chose {len(chosen)} files ({first}-{last}) and froze their grades at "
            f"{commit[:12]}, before any line was read; pages for two blind labellers in "
            f"{out}/A and {out}/B; when both have answered, --ingest-fresh"
        )
        return 0
    if args.ingest_fresh:
        if not args.header or not Path(args.header).is_file():
            raise UsageError("--ingest-fresh needs --header FILE: how the batch was chosen")
        header = Path(args.header).read_text(encoding="utf-8")
        today = datetime.now(UTC).date().isoformat()
        batch = ingest_fresh(out, labels, blind, header, today)
        print(f"wrote {batch} and added the second labeller's answers to {blind / SECOND_LABELS}")
        return 0
    return None
