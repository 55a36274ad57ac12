"""``memeval memory`` under faults (issue 12): clear errors, never tracebacks, and two shell
loops saving into one directory lose nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.helpers.filesystem import REPO, read_only_dir, with_file_size_limit

ENV = {**os.environ, "PYTHONPATH": str(REPO), "MEMEVAL_NOW": "2026-03-02T14:30:00"}


def memeval(*argv: str | bytes, **kwargs: object) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(  # type: ignore[call-overload, no-any-return]
        [sys.executable, "-m", "evals.cli.main", "memory", *argv],
        capture_output=True,
        env=ENV,
        cwd=REPO,
        timeout=120,
        check=False,
        **kwargs,
    )


def test_non_utf8_cli_text_is_a_usage_error(tmp_path: Path) -> None:
    done = memeval("save", str(tmp_path), b"caf\xe9 au lait")
    assert done.returncode == 2
    assert b"TEXT is not valid UTF-8 text: byte 0xe9 at character 3" in done.stderr
    assert b"Traceback" not in done.stderr + done.stdout
    done = memeval("update", str(tmp_path), "--old", "x", "--new", b"\xff")
    assert done.returncode == 2 and b"--new is not valid UTF-8" in done.stderr
    assert not (tmp_path / "MEMORY.md").exists()


def test_non_utf8_directory_name_prints_escaped(tmp_path: Path) -> None:
    odd = os.fsencode(tmp_path) + b"/d\xff"
    os.mkdir(odd)
    done = memeval("save", odd, "Prefers tea")
    assert done.returncode == 0, done.stderr
    done = memeval("restore", odd, "MEMORY_backup_2026-03-02_14-30-00.md")
    assert done.returncode == 1 and b"d\\udcff" in done.stdout
    assert b"Traceback" not in done.stderr


def test_backup_in_a_read_only_directory_exits_1_with_the_reason(tmp_path: Path) -> None:
    assert memeval("save", str(tmp_path), "Prefers tea").returncode == 0
    with read_only_dir(tmp_path):
        done = memeval("backup", str(tmp_path))
    assert done.returncode == 1, done.stderr
    out = done.stdout.decode()
    assert out.startswith("error [backup_failed]: No backup made: ")
    assert "MEMORY_backup_2026-03-02_14-30-00.md: cannot be written" in out
    assert b"Traceback" not in done.stderr
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("MEMORY_backup")] == []


def test_restore_on_a_full_disk_exits_1_and_keeps_memory(tmp_path: Path) -> None:
    assert memeval("save", str(tmp_path), "Prefers tea").returncode == 0
    backup = tmp_path / "MEMORY_backup_2026-03-01_09-00-00.md"
    backup.write_text("- big " + "x" * 200_000 + "\n")
    before = (tmp_path / "MEMORY.md").read_text()
    done = memeval("restore", str(tmp_path), backup.name, **with_file_size_limit(100_000))
    assert done.returncode == 1, done.stderr
    assert done.stdout.decode().startswith("error [restore_failed]: Nothing restored: ")
    assert b"File too large" in done.stdout and b"Traceback" not in done.stderr
    assert (tmp_path / "MEMORY.md").read_text() == before


def test_show_of_a_symlinked_memory_file_names_it_and_shows_nothing(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("root:x:0:0\n")
    memory_dir = tmp_path / "memory"
    memory_dir.mkdir()
    (memory_dir / "MEMORY.md").symlink_to(secret)
    done = memeval("show", str(memory_dir))
    assert done.returncode == 1
    assert f"MEMORY.md: is a symbolic link to {secret}".encode() in done.stdout
    assert b"root:x" not in done.stdout + done.stderr


LOOP = """
for i in $(seq 1 {n}); do
  "{python}" -m evals.cli.main memory save "{dir}" "fact {w}-$i" >/dev/null || exit 1
done
"""


def test_two_shell_loops_of_cli_saves_lose_nothing(tmp_path: Path) -> None:
    """Issue 12: two loops of 200 saves left 396 of 400 entries, and all exited 0."""
    n = 8
    loops = [
        subprocess.Popen(
            ["bash", "-c", LOOP.format(n=n, python=sys.executable, dir=tmp_path, w=w)],
            env={**ENV, "MEMEVAL_NOW": ""},
            cwd=REPO,
        )
        for w in range(2)
    ]
    assert [loop.wait(timeout=600) for loop in loops] == [0, 0]
    content = (tmp_path / "MEMORY.md").read_text()
    assert [
        f"{w}-{i}" for w in range(2) for i in range(1, n + 1) if f"- fact {w}-{i}\n" not in content
    ] == []
