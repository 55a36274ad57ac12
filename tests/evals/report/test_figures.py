"""The PNG figures a Markdown summary links to (issue 39, item 6): drawn with matplotlib from
the one report model, written non-empty, and linked by ``memeval tables --figures``."""

from __future__ import annotations

from pathlib import Path

import pytest

from evals.cli.main import main
from evals.report.figures import FOREST_FILE, PER_DAY_FILE, write_figures
from evals.report.markdown import figure_links
from evals.results import RunResult, finish_run, score_run_dir
from tests.helpers.reports import table_of
from tests.helpers.traces import GOOD_MEMORY, NOISY_MEMORY, standard_records, write_trace

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[RunResult]]:
    root = tmp_path_factory.mktemp("runs")
    for scenario in ("week-a", "week-b", "week-c"):
        for variant, memory in (("v049-guardrails", GOOD_MEMORY), ("v-noisy", NOISY_MEMORY)):
            write_trace(
                root / scenario / variant,
                memory,
                scenario=scenario,
                variant=variant,
                records=standard_records(memory),
            )
    results = score_run_dir(root, embedder=None)
    finish_run(root, results)
    return root, results


def _image(path: Path) -> tuple[int, ...]:
    from matplotlib import image

    data = path.read_bytes()
    assert data.startswith(PNG) and len(data) > 5_000, f"{path} is not a drawn PNG"
    shape: tuple[int, ...] = image.imread(path).shape
    return shape


def test_the_forest_plot_and_the_per_day_curves_are_written_and_linked(
    runs: tuple[Path, list[RunResult]], tmp_path: Path
) -> None:
    _, results = runs
    model = table_of(results)
    assert model.verdicts.comparisons, "no comparison: the forest plot would prove nothing"
    figures = write_figures(model, tmp_path / "figures")
    assert figures.forest == tmp_path / "figures" / FOREST_FILE
    assert figures.per_day == tmp_path / "figures" / PER_DAY_FILE
    forest, per_day = _image(figures.forest), _image(figures.per_day)
    # One panel per compared metric: a taller figure than a single row would be.
    assert forest[0] > 400 and forest[1] == 900
    assert per_day[1] == 3 * 320  # three scenarios side by side
    links = figure_links(figures)
    assert f"]({figures.forest.as_posix()})" in links
    assert f"]({figures.per_day.as_posix()})" in links
    assert links.count("![") == 2


def test_runs_of_one_variant_get_the_curves_and_no_forest_plot(
    runs: tuple[Path, list[RunResult]], tmp_path: Path
) -> None:
    _, results = runs
    model = table_of([r for r in results if r.variant == "v049-guardrails"])
    figures = write_figures(model, tmp_path)
    assert figures.forest is None and not (tmp_path / FOREST_FILE).exists()
    assert figures.per_day is not None and _image(figures.per_day)
    assert figure_links(figures).count("![") == 1


def test_memeval_tables_draws_the_figures_and_ends_the_markdown_with_their_links(
    runs: tuple[Path, list[RunResult]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, _ = runs
    figures = tmp_path / "summary" / "figures"
    assert main(["tables", str(root), "--kind", "writers", "--figures", str(figures)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("| kind | policy | variant | writer |")
    tail = out.rstrip().splitlines()[-3:]
    assert tail[0].endswith(f"({(figures / FOREST_FILE).as_posix()})")
    assert tail[2].endswith(f"({(figures / PER_DAY_FILE).as_posix()})")
    assert _image(figures / FOREST_FILE) and _image(figures / PER_DAY_FILE)
