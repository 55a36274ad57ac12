"""The native runtime: built once per CPU instruction set, never run on another."""

from __future__ import annotations

from pathlib import Path

import pytest

from evals.record import runtimes


def test_a_native_build_is_kept_per_cpu_instruction_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runtimes, "cpu_flags", lambda: frozenset({"avx2", "avx512f"}))
    here = runtimes._native_venv(tmp_path)
    monkeypatch.setattr(runtimes, "cpu_flags", lambda: frozenset({"avx2"}))
    other = runtimes._native_venv(tmp_path)
    assert here != other  # a CPU without AVX-512 never finds the AVX-512 build
    assert here.parent == other.parent == tmp_path


def test_a_prebuilt_native_server_is_used_without_building(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = runtimes._native_venv(tmp_path) / "bin" / "llama-cpp-server"
    server.parent.mkdir(parents=True)
    server.write_text("#!/bin/sh\n")
    built: list[str] = []
    command = runtimes.RUNTIMES["native"].command(tmp_path, log=built.append)
    assert command == [str(server)] and built == []  # no build message: nothing built


def test_this_machines_flags_are_read() -> None:
    assert "fpu" in runtimes.cpu_flags() or "sse2" in runtimes.cpu_flags()
