"""``memeval bench reader``: does ``quality`` follow a reader's grades of real MEMORY.md files?

The reader-labelled set (``tests/data/reader_labels``): real-model final MEMORY.md files
(``files/NN-SCENARIO.md``) and, in ``batch*.yaml``, for each file a reader's 0-1 grade and,
per entry line, keep or strike with the reason, written before any scorer output was seen.
Each file is scored with ``memeval score --memory-file`` against its scenario; the figures
are Spearman's rank correlation of ``quality`` with the grade, the mean absolute gap between
them, and how often the labeller keeps the lines the reader keeps (and strikes the others).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

import yaml

from evals.errors import UsageError
from evals.scenario import load_scenario

__all__ = [
    "LABELS_DIR",
    "ReaderFigures",
    "ReaderFile",
    "add_arguments",
    "load_labels",
    "measure",
    "run",
    "spearman",
]

LABELS_DIR = Path("tests/data/reader_labels")


@dataclass(frozen=True)
class ReaderFile:
    """One labelled file."""

    path: Path
    """The MEMORY.md copy."""
    scenario: str
    """Its scenario's name."""
    grade: float
    """The reader's 0-1 grade."""
    keep: dict[int, bool]
    """Line number -> the reader keeps it."""


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


def load_labels(directory: Path = LABELS_DIR) -> list[ReaderFile]:
    """Every labelled file of ``directory``.

    Raises:
        UsageError: a labels file is unreadable or names a missing file.
    """
    found: list[ReaderFile] = []
    for batch in sorted(directory.glob("batch*.yaml")):
        try:
            items = yaml.safe_load(batch.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError) as exc:
            raise UsageError(f"{batch}: cannot be read as YAML ({exc})") from None
        for item in items:
            scenario = str(item["file"]).split("/")[0]
            path = directory / "files" / f"{int(item['id']):02d}-{scenario}.md"
            if not path.is_file():
                raise UsageError(f"{batch}: item {item['id']} names {path}, which is missing")
            keep = {int(n): str(v).startswith("keep") for n, v in item["lines"].items()}
            found.append(ReaderFile(path, scenario, float(item["grade"]), keep))
    return found


def _ranks(values: list[float]) -> list[float]:
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def spearman(a: list[float], b: list[float]) -> float:
    """Spearman's rank correlation (ties take their mean rank)."""
    ra, rb = _ranks(a), _ranks(b)
    n = len(a)
    ma, mb = sum(ra) / n, sum(rb) / n
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb, strict=True))
    va = sum((x - ma) ** 2 for x in ra) ** 0.5
    vb = sum((y - mb) ** 2 for y in rb) ** 0.5
    return cov / (va * vb) if va and vb else 0.0


def measure(directory: Path = LABELS_DIR, scenarios: Path = Path("scenarios")) -> ReaderFigures:
    """Score every labelled file against its scenario and compare with the reader."""
    from evals.scorers import embed_run
    from evals.scorers.file_run import run_from_file
    from evals.scorers.labels import KEPT, label_target
    from evals.scorers.quality import quality_from_labels
    from memsys.search.embedder import default_embedder

    embedder = default_embedder()
    rows: list[tuple[str, float, float]] = []
    agree = judged = 0
    for item in load_labels(directory):
        scenario = load_scenario(scenarios / f"{item.scenario}.yaml")
        run = run_from_file(scenario, item.path.read_text(encoding="utf-8"))
        run = embed_run(run, embedder)
        labels = label_target(run.final, run)
        value = quality_from_labels(labels).value or 0.0
        rows.append((item.path.name, item.grade, value))
        kept = {line.entry.line_start for line in labels.lines if line.label in KEPT}
        for number, keep in item.keep.items():
            judged += 1
            agree += (number in kept) == keep
    grades, values = [r[1] for r in rows], [r[2] for r in rows]
    gap = sum(abs(g - v) for g, v in zip(grades, values, strict=True)) / len(rows)
    return ReaderFigures(
        len(rows), spearman(values, grades), gap, agree / max(1, judged), tuple(rows)
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``memeval bench reader``."""
    parser.add_argument(
        "--labels", default=str(LABELS_DIR), help="reader-labelled set (default: %(default)s)"
    )
    parser.add_argument("--rows", action="store_true", help="print each file's grade and quality")


def run(args: argparse.Namespace) -> int:
    """Print the figures."""
    figures = measure(Path(args.labels))
    if args.rows:
        for name, grade, value in figures.rows:
            print(f"{name:50} grade {grade:.2f}  quality {value:.2f}")
    print(
        f"{figures.files} reader-labelled files: Spearman {figures.spearman:.3f} (target >= "
        f"0.85), mean |quality - grade| {figures.mean_gap:.3f} (target <= 0.15), lines "
        f"kept/struck as the reader did {figures.line_agreement:.1%}"
    )
    return 0
