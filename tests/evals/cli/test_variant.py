"""``memeval variant check|diff``: a variant file checked and compared before it is recorded."""

from __future__ import annotations

from pathlib import Path

import pytest

from evals.cli.main import main


def _write(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "mine.toml"
    path.write_text('schema_version = 1\nextends = "v049-guardrails"\n' + body, encoding="utf-8")
    return path


def test_check_says_what_a_one_line_variant_changes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, '[save_memory]\nappend = "Never save model names."\n')
    assert main(["variant", "check", str(path)]) == 0
    out = capsys.readouterr().out
    assert "ok (variant 'mine', extends v049-guardrails)" in out
    assert "changes: save_memory\n" in out


def test_diff_shows_only_the_changed_lines_of_each_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, '[save_memory]\nappend = "Never save model names."\n')
    assert main(["variant", "diff", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("== save_memory\n")
    assert "+Never save model names." in out and "\n-" not in out
    assert main(["variant", "diff", "summary-worked-example"]) == 0
    out = capsys.readouterr().out
    assert "== prompts.daily_summary" in out and "-(built-in)" in out
    assert "== save_memory" not in out


def test_a_broken_variant_is_a_usage_error_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, '[prompts]\ncompaction = "no placeholder"\n')
    assert main(["variant", "check", str(path)]) == 2
    assert f"{path}: [prompts] compaction must contain {{content}}" in capsys.readouterr().err
