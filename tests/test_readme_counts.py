"""Issue 40: the README's counts of what is in the clone are checked, not typed by hand.

A figure the README states about the repository as it is (real runs the default run replays,
cells ``memeval record`` plans and finds committed) carries a marker right after it,
``167<!-- count:real-runs -->`` (invisible on GitHub); each marker's figure must be what the
code that does the work counts now. Dated measurements ("on 2026-11-26 ... 142 runs") are
history and carry no marker.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from evals.cassettes.cassette_audit import recorded_cells
from evals.cli.main import main
from evals.grid.cell import DEFAULT_CASSETTE_ROOT
from evals.grid.local_model import QWEN_0_5B, QWEN_1_5B
from memsys.tools import available_variants

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
MARKER = re.compile(r"([\d,]+)<!-- count:([a-z0-9.-]+) -->")


def _replayed() -> Counter[str]:
    """Real runs the default run replays, by model (recorded cells of shipped variants)."""
    shipped = set(available_variants())
    cells = recorded_cells(ROOT / DEFAULT_CASSETTE_ROOT)
    return Counter(c.model for c in cells if c.variant in shipped)


def _record_plan() -> tuple[int, int]:
    """(cells planned, already recorded) as ``memeval record --include-heavy --list`` says."""
    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        assert main(["record", "--include-heavy", "--list"]) == 0
    found = re.search(r"(\d+) cells planned, (\d+) already recorded", err.getvalue())
    assert found is not None, err.getvalue()[-500:]
    return int(found.group(1)), int(found.group(2))


COUNTS: dict[str, Callable[[], int]] = {
    "real-runs": lambda: sum(_replayed().values()),
    "real-runs-1.5b": lambda: _replayed()[QWEN_1_5B.name],
    "real-runs-0.5b": lambda: _replayed()[QWEN_0_5B.name],
    "record-planned": lambda: _record_plan()[0],
    "record-committed": lambda: _record_plan()[1],
}
"""Marker name -> how the figure is counted now."""

MARKED = [(m.group(2), int(m.group(1).replace(",", ""))) for m in MARKER.finditer(README)]


def test_every_counted_figure_is_marked_and_every_marker_is_counted() -> None:
    assert sorted({name for name, _ in MARKED}) == sorted(COUNTS)


@pytest.mark.parametrize(("name", "figure"), MARKED)
def test_each_marked_figure_is_the_count_now(
    name: str, figure: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)  # the commands read scenarios/ and cassettes/ from the clone
    now = COUNTS[name]()
    assert figure == now, (
        f"README.md says {figure:,}<!-- count:{name} -->, the clone holds {now:,}: "
        "change the figure (and the sentence around it)"
    )
