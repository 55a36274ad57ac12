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
    assert "== prompts.daily_summary" in out and "-(built-in)" not in out
    # The built-in prompt's own lines, as removed: its format line among them.
    assert "-Reply in exactly this format:" in out and "-- <bullet>" in out
    assert "== save_memory" not in out


def test_a_broken_variant_is_a_usage_error_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, '[prompts]\ncompaction = "no placeholder"\n')
    assert main(["variant", "check", str(path)]) == 2
    assert f"{path}: [prompts] compaction must contain {{content}}" in capsys.readouterr().err


def test_a_summary_prompt_without_the_parsers_format_fails_the_check_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 40: two prompts like this passed "ok", and every reply was then unparsed.
    path = _write(
        tmp_path,
        '[prompts]\ndaily_summary = "Summarise what we discussed today:\\n{transcript}"\n',
    )
    assert main(["variant", "check", str(path)]) == 1
    out = capsys.readouterr().out
    assert "ok (" not in out
    assert "warning: [prompts] daily_summary never names 'SUMMARY:', 'LONG_TERM:'" in out
    assert "the parser reads the line 'SUMMARY:', then the day's points" in out
    assert "Unparsed daily summaries: MEMORY.md got nothing from them" in out


def test_a_decision_prompt_that_never_asks_for_json_is_warned_about(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, '[prompts]\ndecision_system = "Decide what to do with the fact."\n')
    assert main(["variant", "check", str(path)]) == 1
    assert "decision_system never names 'JSON'" in capsys.readouterr().out
    ok = _write(tmp_path, '[prompts]\ndecision_system = "Answer with one JSON object."\n')
    assert main(["variant", "check", str(ok)]) == 0
    assert "contract of prompts.decision_system: the reply: one JSON object" in (
        capsys.readouterr().out
    )
