"""Issue 40: the README's exit-code table is what the commands do. Every row's error
branches map to its code, and every example command, run as written from a copy of the
files it names, exits with it."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest

import evals.errors
import memsys.errors
from evals.cli.main import EXIT_CODES, exit_code, main

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _rows() -> list[tuple[int, list[str], list[str]]]:
    """(exit code, error branch classes, example commands) of each row of the table."""
    table = README.split("| exit | means | error branch | for example |", 1)[1]
    rows = []
    for line in table.splitlines()[2:]:
        if not line.startswith("|"):
            break
        code, _, branch, examples = (cell.strip() for cell in line.strip("|").split("|"))
        rows.append((int(code), re.findall(r"`(\w+)`", branch), re.findall(r"`([^`]+)`", examples)))
    return rows


ROWS = _rows()


def test_the_table_has_a_row_per_exit_code_each_with_an_example() -> None:
    assert [code for code, _, _ in ROWS] == [0, 1, 2, 3]
    assert all(examples for _, _, examples in ROWS)


@pytest.mark.parametrize(("code", "branches"), [(c, b) for c, b, _ in ROWS if b])
def test_each_branch_the_table_names_exits_with_its_code(code: int, branches: list[str]) -> None:
    for name in branches:
        cls = getattr(evals.errors, name, None) or getattr(memsys.errors, name)
        assert any(issubclass(cls, branch) for branch, _ in EXIT_CODES)
        assert exit_code(cls.__new__(cls)) == code, name


@pytest.mark.parametrize(
    ("code", "command"), [(c, cmd) for c, _, examples in ROWS for cmd in examples]
)
def test_each_example_command_exits_with_its_code(
    code: int, command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    argv = shlex.split(command)
    assert argv[0] == "memeval"
    # The files the command names, copied: nothing it writes lands in the clone.
    for arg in argv[1:]:
        if (ROOT / arg).exists() and "/" in arg:
            copy = tmp_path / arg
            copy.parent.mkdir(parents=True, exist_ok=True)
            (shutil.copytree if (ROOT / arg).is_dir() else shutil.copy)(ROOT / arg, copy)
    monkeypatch.chdir(tmp_path)
    assert main(argv[1:]) == code, command
