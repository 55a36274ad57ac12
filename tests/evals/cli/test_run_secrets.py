"""``memeval run --record`` against a server that echoes the key: no file the run writes
(cassette, trace, results, report, MEMORY.md, daily logs, search index) and no message
holds it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from evals.cli.main import main
from memsys.redact import refresh_environment_secrets
from tests.helpers.echo_server import echo_server

SCENARIO = Path("scenarios/week-of-noise.yaml").resolve()
KEY = "sk-echo-0123456789-SECRETKEY"
QUERY_KEY = "qkey-0123456789-SECRET"


def _files_holding(root: Path, secrets: tuple[str, ...]) -> list[str]:
    leaks = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        data = path.read_bytes()
        leaks += [f"{path.relative_to(root)}: {s[:6]}..." for s in secrets if s.encode() in data]
    return leaks


def _record(base_url: str) -> int:
    return main(
        [
            "run",
            "--scenario",
            "week.yaml",
            "--model",
            "openai-compatible/echo",
            "--policy",
            "guardrails",
            "-M",
            f"base_url={base_url}?key={QUERY_KEY}",
            "--record",
            "--out",
            "runs",
            "--report",
            "reports/report.html",
        ]
    )


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copy(SCENARIO, tmp_path / "week.yaml")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MEMEVAL_API_KEY", KEY)
    refresh_environment_secrets()
    return tmp_path


def test_an_echoed_key_reaches_no_file_of_a_recorded_run(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with echo_server() as server:
        assert _record(server.base_url) == 0
    assert server.seen[0]["authorization"] == f"Bearer {KEY}"  # the key really was sent
    memory = workdir / "runs/week-of-noise/openai-compatible__echo/guardrails/v049-guardrails"
    memory_md = (memory / "repeat-1/memory/MEMORY.md").read_text()
    assert "Credentials: auth=Bearer <MEMEVAL_API_KEY>" in memory_md  # echoed, then redacted
    written = {p.name for p in workdir.rglob("*") if p.is_file()}
    for name in ("trace.jsonl", "results.json", "results.csv", "report.html", "MEMORY.md"):
        assert name in written
    assert any(name.endswith(".sqlite") for name in written)  # the search index
    assert _files_holding(workdir, (KEY, QUERY_KEY)) == []
    out = capsys.readouterr()
    assert KEY not in out.out + out.err and QUERY_KEY not in out.out + out.err


def test_an_echoed_key_in_error_replies_reaches_no_file_or_message(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Every fifth call is rejected (400) with an error that quotes the credentials it got.
    with echo_server(lambda number: 400 if number % 5 == 0 else None) as server:
        assert _record(server.base_url) == 0
    trace = next(workdir.rglob("trace.jsonl")).read_text()
    assert "rejected auth=Bearer <MEMEVAL_API_KEY>" in trace
    cassette = next((workdir / "cassettes").rglob("*.yaml")).read_text()
    assert "rejected auth=Bearer <MEMEVAL_API_KEY>" in cassette  # kept, redacted
    # The recorded rejections replay (no server now) as the same errors, still redacted.
    replay = ["run", "--scenario", "week.yaml", "--model", "openai-compatible/echo"]
    assert main([*replay, "--policy", "guardrails", "--out", "replayed", "--no-real"]) == 0
    replayed = next((workdir / "replayed").rglob("trace.jsonl")).read_text()
    rejection = "rejected auth=Bearer <MEMEVAL_API_KEY>"
    assert replayed.count(rejection) == trace.count(rejection) > 0
    assert main(["cassettes", "check"]) == 0
    assert _files_holding(workdir, (KEY, QUERY_KEY)) == []
    out = capsys.readouterr()
    assert KEY not in out.out + out.err and QUERY_KEY not in out.out + out.err


def _escaped(secret: str) -> bytes:
    return "".join(f"\\u{ord(c):04x}" for c in secret).encode()


def test_a_key_echoed_with_json_escapes_reaches_no_file(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 28: a key spelled with \\uXXXX escapes in a server's JSON reached the cassette's
    raw body (one json.loads away), and `memeval cassettes check` said OK."""
    with echo_server(escape=True) as server:
        assert _record(server.base_url) == 0
    cassette = next((workdir / "cassettes").rglob("*.yaml"))
    assert "<MEMEVAL_API_KEY>" in cassette.read_text()  # the echo was there, redacted
    for path in (p for p in workdir.rglob("*") if p.is_file()):
        data = path.read_bytes()
        assert KEY.encode() not in data and _escaped(KEY) not in data, path
    assert main(["cassettes", "check"]) == 0
    out = capsys.readouterr()
    assert KEY not in out.out + out.err
