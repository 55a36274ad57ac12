"""``memeval memory ...`` through the real entry point: output, --json, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from evals.cli.main import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out + out.err


def test_save_show_update_delete_round_trip(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    d = str(tmp_path)
    assert (
        run(capsys, "memory", "save", d, "Prefers dark mode", "--category", "preferences")[0] == 0
    )
    code, out = run(capsys, "memory", "show", d)
    assert code == 0 and "## Preferences\n- Prefers dark mode" in out
    code, out = run(capsys, "memory", "update", d, "--old", "dark", "--new", "light")
    assert (code, out.strip()) == (0, "Memory entry updated successfully.")
    code, out = run(capsys, "memory", "update", d, "--old", "Prefers light mode", "--new", "")
    assert (code, out.strip()) == (0, "Memory entry deleted successfully.")
    assert "light mode" not in (tmp_path / "MEMORY.md").read_text()


def test_tool_error_exits_1_and_prints_the_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = run(capsys, "memory", "update", str(tmp_path), "--old", "nope", "--new", "x")
    assert code == 1
    assert out.startswith("error [not_found]: The specified text was not found")


def test_json_output_is_machine_readable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = run(capsys, "memory", "save", str(tmp_path), "", "--json")
    assert code == 1
    assert json.loads(out) == {
        "ok": False,
        "code": "validation_error",
        "message": "Parameter 'content' is required and must be non-empty.",
    }
    code, out = run(capsys, "memory", "save", str(tmp_path), "Uses vim", "--json")
    assert code == 0 and json.loads(out)["ok"] is True and json.loads(out)["code"] is None


def test_backup_list_and_restore(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    d = str(tmp_path)
    assert run(capsys, "memory", "backup", d)[0] == 1  # nothing to back up yet
    run(capsys, "memory", "save", d, "Original fact", "--append")
    monkeypatch.setenv("MEMEVAL_NOW", "2026-03-02T14:30:00")
    code, name = run(capsys, "memory", "backup", d)
    assert (code, name.strip()) == (0, "MEMORY_backup_2026-03-02_14-30-00.md")
    (tmp_path / "MEMORY.md").write_text("clobbered\n")
    monkeypatch.setenv("MEMEVAL_NOW", "2026-03-02T15:00:00")
    code, out = run(capsys, "memory", "restore", d, name.strip())
    assert code == 0
    assert (tmp_path / "MEMORY.md").read_text() == "Original fact\n"
    code, out = run(capsys, "memory", "backups", d)
    assert out.split() == [
        "MEMORY_backup_2026-03-02_15-00-00.md",
        "MEMORY_backup_2026-03-02_14-30-00.md",
    ]


def test_restore_rejects_path_traversal_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "MEMORY.md").write_text("keep\n")
    code, out = run(capsys, "memory", "restore", str(tmp_path), "../MEMORY.md")
    assert code == 2
    assert "'../MEMORY.md' is not a backup of" in out
    assert (tmp_path / "MEMORY.md").read_text() == "keep\n"


def test_restore_missing_backup_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(
        capsys, "memory", "restore", str(tmp_path), "MEMORY_backup_2020-01-01_00-00-00.md"
    )
    assert code == 1 and "backup_not_found" in out


def test_usage_error_exits_2() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "evals.cli.main", "memory", "update", "DIR"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert "--old" in proc.stderr


def test_help_lists_the_commands() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "evals.cli.main", "--help"],
        capture_output=True,
        text=True,
        check=True,
    )
    for command in ("demo", "memory", "bench"):
        assert command in proc.stdout


def test_demo_runs_offline(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "demo")
    assert code == 0
    assert "duplicate_detected" in out and "- Prefers light mode in all apps" in out
