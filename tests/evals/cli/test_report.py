"""``memeval report RUN_DIR``."""

from __future__ import annotations

from pathlib import Path

import pytest

from evals.cli.main import main
from tests.helpers.traces import GOOD_MEMORY, standard_records, write_trace


def test_report_scores_if_needed_and_writes_html(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_trace(tmp_path / "run", GOOD_MEMORY, records=standard_records(GOOD_MEMORY))
    assert main(["report", str(tmp_path), "--keywords-only"]) == 0
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "simulated" in html and "<svg class='chart panels'" in html
    assert (tmp_path / "run" / "results.json").is_file()
    assert "wrote" in capsys.readouterr().out


def test_report_of_an_empty_dir_exits_2(tmp_path: Path) -> None:
    assert main(["report", str(tmp_path)]) == 2
