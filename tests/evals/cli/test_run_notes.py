"""Expected compaction warnings are summarised after a run instead of logged one by one."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pytest

from evals.cli.main import main


def test_scripted_rejections_are_one_summary_line_not_warnings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(Path("scenarios/bad-compaction-restore.yaml"), tmp_path / "bad.yaml")
    monkeypatch.chdir(tmp_path)
    argv = ["run", "--scenario", "bad.yaml", "--model", "sim/careful", "--out", "runs"]
    assert main([*argv, "--policy", "guardrails"]) == 0
    captured = capsys.readouterr()
    assert "WARNING memsys.compaction" not in captured.err
    assert "expected compaction rejections (bad compactions the scenarios feed on purpose: " \
        "bad-compaction-restore)" in captured.out  # fmt: skip


@pytest.mark.parametrize(("verbose", "shown"), [(False, ["ERROR"]), (True, ["WARNING", "ERROR"])])
def test_only_verbose_runs_log_each_compaction_warning(
    verbose: bool, shown: list[str], caplog: pytest.LogCaptureFixture
) -> None:
    from evals.cli._run_notes import quiet_compaction_warnings

    logger = logging.getLogger("memsys.compaction")
    with caplog.at_level(logging.WARNING), quiet_compaction_warnings(verbose):
        logger.warning("compaction: result of 10 chars rejected, original kept")
        logger.error("compaction: disk full")
    assert [r.levelname for r in caplog.records] == shown
    logger.warning("after the run")  # the filter is gone again
    assert caplog.records[-1].getMessage() == "after the run"
