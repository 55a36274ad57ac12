"""The report's search-latency table: per cell p50 / p95 against FEAT-013's 500 ms."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from evals.report import write_report
from evals.report._render import MIN_PROBES, latency_rows
from tests.evals.report.test_report import results_of
from tests.helpers.reports import report_of


def test_rows_pool_every_scenario_of_a_cell_and_judge_the_target(tmp_path: Path) -> None:
    careful, naive = results_of()[:2]
    timed = [
        dataclasses.replace(careful, search_latencies_ms=tuple(float(i) for i in range(1, 13))),
        dataclasses.replace(careful, search_latencies_ms=tuple(float(i) for i in range(13, 25))),
        dataclasses.replace(naive, search_latencies_ms=(3.0, 900.0)),
    ]
    rows = {row.label: row for row in latency_rows(timed)}
    pooled = rows[careful.label]
    assert pooled.probes == 24 >= MIN_PROBES
    assert pooled.p50_ms == pytest.approx(12.5) and pooled.verdict == "met"
    assert rows[naive.label].verdict.startswith("too few probes")
    slow = dataclasses.replace(careful, search_latencies_ms=(600.0,) * MIN_PROBES)
    assert latency_rows([slow])[0].verdict == "missed"
    html = write_report(report_of(timed), tmp_path / "r.html").read_text(encoding="utf-8")
    assert 'id="search-latency"' in html and "&lt; 500 ms" in html and "<td>met</td>" in html
