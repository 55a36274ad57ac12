"""``memeval bench reader``: does ``quality`` follow a reader's grades of real MEMORY.md files?

The reader-labelled set (``tests/data/reader_labels``): real-model final MEMORY.md files
(``files/NN-SCENARIO.md``) and, in ``batch*.yaml``, for each file a reader's 0-1 grade and,
per entry line, keep or strike with the reason, written before any scorer output was seen.
Each file is scored with ``memeval score --memory-file`` against its scenario; the figures
are Spearman's rank correlation of ``quality`` with the grade, the mean absolute gap between
them, how often the labeller keeps the lines the reader keeps (and strikes the others), and
how often it gives a line the reader's class (:mod:`._reader_agreement`).

The set is split by a fixed rule on the file name (:func:`part_of`): the ``tuning`` part is
where rules are checked while they are written, the ``held`` part (about a third) is only
reported. ``--prepare-blind`` writes the held part's pages for a blind second labeller
(:mod:`._reader_blind`); once their ``labels-2.json`` is in place, ``--agreement`` prints the
two labellers' agreement beside the scorer's agreement with each, and the scorer's grades of
each fresh batch frozen before any rule was read from it (``--freeze-unseen``,
:mod:`._reader_unseen`) pooled into its agreement on files it had not seen. ``--choose-fresh`` and
``--ingest-fresh`` add such a batch from a run (:mod:`._reader_fresh`).
"""

from __future__ import annotations

import argparse
import functools
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from evals.bench._reader_agreement import (
    Agreement,
    Grading,
    Part,
    ReaderFile,
    agreement,
    part_of,
    reader_class,
    spearman,
    spearman_gap,
)
from evals.bench._reader_blind import (
    BLIND_DIR,
    SECOND_LABELS,
    load_second_labels,
    write_blind_inputs,
)
from evals.bench._reader_cache import ScoredFile, cached_scores
from evals.bench._reader_fresh import add_fresh_arguments, run_fresh
from evals.bench._reader_lines import ScoredLine, disagreements, format_disagreements
from evals.bench._reader_summary import BLOCKS, agreement_table, summary_table
from evals.bench._reader_unseen import (
    UNSEEN,
    Grader,
    committed_scorer,
    freeze_files,
    load_unseen,
)
from evals.bench._reader_unseen_table import unseen_table, writer_of
from evals.errors import UsageError
from evals.grid.local_model import cache_dir
from evals.report.readme_blocks import write_blocks
from evals.scenario import DATA_FILE_LIMITS, load_scenario
from memsys.errors import InputFileError
from memsys.safe_io import load_input

__all__ = [
    "BLIND_DIR",
    "LABELS_DIR",
    "PROTOCOL",
    "Agreement",
    "Grading",
    "ReaderFigures",
    "ReaderFile",
    "add_arguments",
    "agreement",
    "agreement_table",
    "load_labels",
    "measure",
    "part_of",
    "reader_class",
    "run",
    "scored_files",
    "scorer_gradings",
    "scorer_lines",
    "spearman",
    "spearman_gap",
]

LABELS_DIR = Path("tests/data/reader_labels")
PROTOCOL = Path("docs/reader-protocol.md")


@dataclass(frozen=True)
class ReaderFigures:
    """How quality follows the reader."""

    files: int
    spearman: float
    mean_gap: float
    line_agreement: float
    """Share of the reader's labelled lines the labeller also keeps (or also strikes)."""
    rows: tuple[tuple[str, float, float], ...]
    """``(file, grade, quality)``."""
    class_agreement: float = 0.0
    """Share of the reader's labelled lines given the reader's class."""


def load_labels(directory: Path = LABELS_DIR) -> list[ReaderFile]:
    """Every labelled file of ``directory``.

    Raises:
        UsageError: a labels file is unreadable, names a missing file, or holds a judgement
            that is neither keep nor strike.
    """
    found: list[ReaderFile] = []
    for batch in sorted(directory.glob("batch*.yaml")):
        try:
            items = load_input(batch, "yaml", DATA_FILE_LIMITS)
        except InputFileError as exc:
            raise UsageError(str(exc)) from None
        for item in items:
            scenario = str(item["file"]).split("/")[0]
            path = directory / "files" / f"{int(item['id']):02d}-{scenario}.md"
            if not path.is_file():
                raise UsageError(f"{batch}: item {item['id']} names {path}, which is missing")
            judgements = {int(n): str(v) for n, v in item["lines"].items()}
            for number, judgement in judgements.items():
                try:
                    reader_class(judgement)
                except ValueError as exc:
                    raise UsageError(f"{batch}: item {item['id']} line {number}: {exc}") from None
            keep = {n: reader_class(v) == "keep" for n, v in judgements.items()}
            grade = float(item["grade"])
            found.append(ReaderFile(path, scenario, grade, keep, judgements, str(item["file"])))
    return found


def _score_files(items: Sequence[ReaderFile], scenarios: Path) -> dict[str, ScoredFile]:
    """Grade each file afresh: its ``quality`` and each line's class with the evidence."""
    from evals.scorers import embed_run
    from evals.scorers.file_run import run_from_file
    from evals.scorers.labels import KEPT, label_target
    from evals.scorers.quality import quality_from_labels
    from memsys.search.embedder import default_embedder

    embedder = default_embedder()
    found: dict[str, ScoredFile] = {}
    for item in items:
        scenario = load_scenario(scenarios / f"{item.scenario}.yaml")
        run = embed_run(run_from_file(scenario, item.path.read_text(encoding="utf-8")), embedder)
        labels = label_target(run.final, run)
        lines = {
            line.entry.line_start: ScoredLine(
                "keep" if line.label in KEPT else line.label, line.evidence
            )
            for line in labels.lines
        }
        found[item.name] = ScoredFile(quality_from_labels(labels).value or 0.0, lines)
    return found


def scored_files(
    items: Sequence[ReaderFile], scenarios: Path = Path("scenarios"), cache: Path | None = None
) -> dict[str, ScoredFile]:
    """The scorer's reading of each file by name, through the grading cache in ``cache``
    (:mod:`._reader_cache`; ``None``: grade every file afresh)."""
    return cached_scores(items, scenarios, lambda chosen: _score_files(chosen, scenarios), cache)


def scorer_gradings(
    items: Sequence[ReaderFile], scenarios: Path = Path("scenarios"), cache: Path | None = None
) -> dict[str, Grading]:
    """The scorer as a grader: each file's ``quality`` and each line's label as a class."""
    return {name: s.grading() for name, s in scored_files(items, scenarios, cache).items()}


def scorer_lines(
    items: Sequence[ReaderFile], scenarios: Path = Path("scenarios"), cache: Path | None = None
) -> dict[str, dict[int, ScoredLine]]:
    """Each line's scorer class with its evidence, by file name and line number."""
    return {name: s.lines for name, s in scored_files(items, scenarios, cache).items()}


def measure(
    directory: Path = LABELS_DIR, scenarios: Path = Path("scenarios"), part: Part | None = None
) -> ReaderFigures:
    """Score every labelled file (of ``part``, or all) and compare with the reader."""
    items = [i for i in load_labels(directory) if part is None or i.part == part]
    scorer = scorer_gradings(items, scenarios)
    reader = {item.name: item.grading() for item in items}
    found = agreement(scorer, reader)
    rows = tuple((i.name, i.grade, scorer[i.name].grade) for i in items)
    return ReaderFigures(
        found.files,
        found.spearman,
        found.mean_gap,
        found.line_agreement,
        rows,
        found.class_agreement,
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``memeval bench reader``."""
    parser.add_argument(
        "--labels", default=str(LABELS_DIR), help="reader-labelled set (default: %(default)s)"
    )
    parser.add_argument("--rows", action="store_true", help="print each file's grade and quality")
    parser.add_argument(
        "--prepare-blind",
        action="store_true",
        help="write the held-aside files' pages for a blind second labeller into --blind-dir",
    )
    parser.add_argument(
        "--agreement",
        action="store_true",
        help=f"compare with the second labeller's --blind-dir/{SECOND_LABELS}",
    )
    parser.add_argument(
        "--write-readme",
        metavar="FILE",
        action="append",
        help=(
            "with --agreement (repeatable): also write FILE's '<!-- reader:agreement -->' "
            "block (the summary: held files, fresh batches pooled, files today's scorer had "
            "not seen, by writer) and '<!-- reader:batches -->' block (this output), leaving "
            "every other byte; the README's issue-38 table is written so"
        ),
    )
    parser.add_argument(
        "--blind-dir", default=str(BLIND_DIR), help="blind labeller's folder (%(default)s)"
    )
    parser.add_argument(
        "--freeze-unseen",
        metavar="FIRST-LAST",
        help=(
            f"grade the set's files numbered FIRST to LAST (labelled or not) with the "
            f"committed scorer and record those grades in --labels/{UNSEEN}, before any rule "
            f"is read from them (--choose-fresh does this for its batch); --agreement pools "
            f"every frozen batch (refused when evals/, memsys/ or scenarios/ has uncommitted "
            f"changes, or the range was frozen before)"
        ),
    )
    parser.add_argument(
        "--disagreements",
        choices=("held", "tuning", "all"),
        help=(
            "list the lines of that part the scorer keeps while every labeller who judged "
            "them strikes them, or the other way round, with the scorer's evidence and the "
            f"labellers' words (the second labeller's from --blind-dir/{SECOND_LABELS} "
            "where present)"
        ),
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="with --disagreements: one JSON object per line instead of text",
    )
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help=(
            "grade every file afresh instead of reusing the gradings kept in "
            "$MEMEVAL_CACHE/reader-gradings (kept per scorer source, file and scenario, so a "
            "reused grading is always the one the code gives)"
        ),
    )
    add_fresh_arguments(parser)


def _print_figures(items: Sequence[ReaderFile], scorer: Mapping[str, Grading]) -> None:
    for label, part in (("all", None), ("tuning", "tuning"), ("held aside", "held")):
        chosen = [i for i in items if part is None or i.part == part]
        if not chosen:
            print(f"{label:10}   0 files")
            continue
        got = agreement(
            {i.name: scorer[i.name] for i in chosen}, {i.name: i.grading() for i in chosen}
        )
        rho = f"{got.spearman:.3f}" if got.files > 1 else "n/a (one file)"
        print(
            f"{label:10} {got.files:3} files: Spearman {rho}, mean |quality - "
            f"grade| {got.mean_gap:.3f}, lines kept/struck as the reader did "
            f"{got.line_agreement:.1%}, same label {got.class_agreement:.1%}"
        )


_RANGE = re.compile(r"^(\d+)-(\d+)$")


def _freeze(span: str, labels: Path, grader: Grader) -> int:
    """Grade one batch of the set's files with the committed scorer and record it
    (``--freeze-unseen``; ``--choose-fresh`` freezes its batch itself)."""
    found = _RANGE.match(span)
    if not found:
        raise UsageError(f"--freeze-unseen {span!r}: expected FIRST-LAST, such as 528-557")
    first, last = int(found[1]), int(found[2])
    commit = committed_scorer("--freeze-unseen")
    batch = freeze_files(labels, first, last, commit, grader, "--freeze-unseen")
    print(
        f"froze {len(batch.gradings)} files ({batch.span}) as graded at {commit[:12]} "
        f"in {labels / UNSEEN}"
    )
    return 0


def run(args: argparse.Namespace) -> int:
    """Print the figures (or prepare the blind pages, freeze a batch, or the agreement)."""
    if args.json and not args.disagreements:
        raise UsageError("--json goes with --disagreements (the other outputs are text)")
    if args.write_readme and not args.agreement:
        raise UsageError("--write-readme goes with --agreement (it writes the agreement's tables)")
    labels = Path(args.labels)
    blind = Path(args.blind_dir)
    cache = None if args.no_cache else cache_dir() / "reader-gradings"
    grader = functools.partial(scorer_gradings, cache=cache)
    fresh = run_fresh(args, labels, blind, PROTOCOL, grader)
    if fresh is not None:
        return fresh
    if args.freeze_unseen:
        return _freeze(args.freeze_unseen, labels, grader)
    items = load_labels(labels)
    if args.prepare_blind:
        held = [i for i in items if i.part == "held"]
        pages = write_blind_inputs(held, Path("scenarios"), blind, PROTOCOL)
        print(f"wrote {len(pages)} held-aside pages for a blind labeller into {blind}/")
        return 0
    if args.disagreements:
        chosen = [i for i in items if args.disagreements == "all" or i.part == args.disagreements]
        path = blind / SECOND_LABELS
        second = load_second_labels(path) if path.is_file() else {}
        found = disagreements(chosen, scorer_lines(chosen, cache=cache), second)
        lines = sum(len(i.judgements) for i in chosen)
        print(format_disagreements(found, lines, args.json))
        return 0
    if args.agreement:
        second = load_second_labels(blind / SECOND_LABELS)
        unknown = sorted(set(second) - {i.name for i in items})
        if unknown:
            raise UsageError(f"{blind / SECOND_LABELS}: files not in the set: {unknown}")
        graded = [i for i in items if i.name in second]
        first = {i.name: i.grading() for i in graded}
        now = grader(graded)
        batches = load_unseen(labels / UNSEEN)
        writers = {i.name: writer_of(i.source) for i in graded}
        text = agreement_table(first, second, now)
        if batches:
            text += "\n\nEach fresh batch as the scorer graded it before any rule was read from it:"
            text += "\n\n"
            text += unseen_table(batches, first, second, now, writers)
        print(text)
        if args.write_readme:
            # Built once, and only where a file has its block (its bootstraps take seconds).
            summary = functools.cache(lambda: summary_table(first, second, now, batches, writers))
            for path in map(Path, args.write_readme):
                written = write_blocks(
                    path, lambda k: summary() if k == "agreement" else text, "reader", BLOCKS
                )
                print(f"{path}: wrote {', '.join(written)}", file=sys.stderr)
        return 0
    scorer = grader(items)
    if args.rows:
        for item in items:
            print(
                f"{item.name:42} {item.part:6} grade {item.grade:.2f}  "
                f"quality {scorer[item.name].grade:.2f}"
            )
    _print_figures(items, scorer)
    return 0
