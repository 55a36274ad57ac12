"""``memeval score RUN_DIR``: re-scores a saved run directory without a model."""

from __future__ import annotations

from pathlib import Path

import pytest

from evals.cli.main import main
from evals.results.store import read_results
from memsys.search import default_embedder
from tests.helpers.traces import GOOD_MEMORY, NOISY_MEMORY, standard_records, write_trace


def test_score_writes_results_next_to_each_trace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_trace(
        tmp_path / "careful" / "repeat-1", GOOD_MEMORY, records=standard_records(GOOD_MEMORY)
    )
    write_trace(tmp_path / "naive" / "repeat-1", NOISY_MEMORY, model="sim/naive", policy="append")
    assert main(["score", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "week-of-noise / sim/careful / guardrails / v049-guardrails  simulated" in out
    for cell in ("careful", "naive"):
        directory = tmp_path / cell / "repeat-1"
        assert (directory / "results.csv").is_file()
        [result] = read_results(directory / "results.json")
        assert result.embedder == default_embedder().model_id
    assert main(["score", str(tmp_path), "--keywords-only"]) == 0
    [result] = read_results(tmp_path / "naive" / "repeat-1" / "results.json")
    assert result.embedder == "none (keywords only)"


def test_score_without_traces_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", str(tmp_path)]) == 2
    assert "no trace.jsonl found" in capsys.readouterr().err


def test_scorer_settings_are_applied_and_saved(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import pandas as pd

    from evals.scorers import ScorerSettings

    reworded = "# Long-term Memory\n\n## Workflow\n- Reviews pull requests every week\n" + (
        "- Reviews pull requests weekly\n"
    )
    write_trace(tmp_path / "naive", reworded, model="sim/naive", policy="append")
    assert main(["score", str(tmp_path)]) == 0
    [default] = read_results(tmp_path / "naive" / "results.json")
    assert main(["score", str(tmp_path), "-S", "duplicate_threshold=1"]) == 0
    assert "scorer settings: duplicate_threshold=1" in capsys.readouterr().out
    [strict] = read_results(tmp_path / "naive" / "results.json")
    assert strict.scorer_settings == ScorerSettings(duplicate_threshold=1.0)
    assert default.scorer_settings == ScorerSettings()
    dup = strict.score("duplicates")
    default_dup = default.score("duplicates")
    assert default_dup is not None and default_dup.value == 1.0
    assert "cosine 0.9" in default_dup.items[0]  # ~0.94
    # At threshold 1 the cosine no longer makes them one, their claim words still do.
    assert dup is not None and dup.value == 1.0 and "same claim words" in dup.items[0]
    csv = pd.read_csv(tmp_path / "naive" / "results.csv")
    assert csv["duplicate_threshold"].tolist() == [1.0] and csv["fact_threshold"].tolist() == [0.7]


def test_unknown_scorer_setting_exits_2_before_scoring(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_trace(tmp_path / "naive", NOISY_MEMORY, model="sim/naive", policy="append")
    assert main(["score", str(tmp_path), "-S", "threshold=0.5"]) == 2
    assert "unknown scorer setting 'threshold'" in capsys.readouterr().err
    assert not (tmp_path / "naive" / "results.json").exists()


def test_rescoring_a_run_keeps_the_results_that_report_compare_and_gate_read_current(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from evals.results import finish_run
    from evals.results.history import run_results

    write_trace(tmp_path / "run" / "cell" / "repeat-1", GOOD_MEMORY)
    assert main(["score", str(tmp_path / "run"), "--keywords-only"]) == 0
    finish_run(tmp_path / "run", read_results(tmp_path / "run/cell/repeat-1/results.json"))
    [before] = run_results(tmp_path / "run").results
    assert before.scorer_settings.label() == "defaults"
    argv = ["score", str(tmp_path / "run"), "--keywords-only", "-S", "fact_threshold=0.8"]
    assert main(argv) == 0
    assert f"rewrote {tmp_path / 'run' / 'results.json'}" in capsys.readouterr().out
    [after] = run_results(tmp_path / "run").results
    assert after.scorer_settings.label() == "fact_threshold=0.8"


def test_score_a_memory_file_against_a_scenario_as_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    memory = tmp_path / "MEMORY.md"
    memory.write_text(
        "# Long-term Memory\n\n## User Profile\n- Secondary school chemistry teacher\n"
        "\n## Notes\n- Students' exam board is AQA\n- None\n"
    )
    args = ["score", "--memory-file", str(memory), "--scenario", "chitchat-transient"]
    assert main([*args, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    scores = out["scores"]
    assert scores["facts_recall"] == 1.0 and scores["junk_entries"] == 1.0
    assert scores["quality"] == pytest.approx(2 / 3)  # both facts, 2 of 3 lines kept
    assert scores["tool_errors"] is None and scores["search"] is None
    assert "needs a run's trace" in out["explanations"]["tool_errors"]
    assert main(args) == 0
    assert "unscored" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("memory", "scenario", "message"),
    [
        ("missing.md", "chitchat-transient", "no such file"),
        ("MEMORY.md", "no-such-scenario", "scenario 'no-such-scenario': no such file"),
    ],
)
def test_score_a_memory_file_exits_2_for_a_missing_file_or_scenario(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], memory: str, scenario: str, message: str
) -> None:
    (tmp_path / "MEMORY.md").write_text("# Long-term Memory\n")
    args = ["score", "--memory-file", str(tmp_path / memory), "--scenario", scenario]
    assert main(args) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\xff\xfe- Lives in Leeds\n", "not UTF-8 text (invalid start byte at byte 0)"),
        (b"- x\n" * (5 * 1024 * 1024 // 4 + 1), "is over the 5,242,880-byte limit"),
        (None, "is a directory, not a regular file"),
    ],
)
def test_an_unreadable_or_huge_memory_file_is_named_and_nothing_is_scored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes | None, message: str
) -> None:
    memory = tmp_path / "MEMORY.md"
    if content is None:
        memory.mkdir()
    else:
        memory.write_bytes(content)
    args = ["score", "--memory-file", str(memory), "--scenario", "chitchat-transient"]
    assert main(args) == 2
    captured = capsys.readouterr()
    assert f"memeval score: {memory}: {message}" in captured.err and not captured.out


def test_a_memory_file_with_a_byte_order_mark_is_read_without_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    memory = tmp_path / "MEMORY.md"
    memory.write_text("\ufeff- Secondary school chemistry teacher\n", encoding="utf-8")
    args = ["score", "--memory-file", str(memory), "--scenario", "chitchat-transient", "--json"]
    assert main(args) == 0
    [line] = json.loads(capsys.readouterr().out)["lines"]
    assert line["text"] == "Secondary school chemistry teacher" and line["label"] == "fact"


def test_score_a_memory_file_prints_each_line_with_its_label_and_evidence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    memory = tmp_path / "MEMORY.md"
    memory.write_text(
        "# Long-term Memory\n\n## User Profile\n- Secondary school chemistry teacher\n"
        "\n## Notes\n- Students' exam board is AQA\n- None\n- Students' exam board is AQA\n"
    )
    args = ["score", "--memory-file", str(memory), "--scenario", "chitchat-transient"]
    assert main([*args, "--json"]) == 0
    lines = json.loads(capsys.readouterr().out)["lines"]
    assert [(line["line"], line["label"]) for line in lines] == [
        (4, "fact"),
        (7, "fact"),
        (8, "junk"),
        (9, "repeat"),
    ]
    assert lines[0]["text"] == "Secondary school chemistry teacher"
    assert lines[2]["evidence"] == "placeholder"
    assert "again" in lines[3]["evidence"] and lines[3]["fact"] == lines[1]["fact"]
    assert {line["writer"] for line in lines} == {"unknown"}  # a file alone has no writers
    assert set(lines[0]) >= {"text", "label", "evidence", "writer"}
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "l.8    junk" in out and "None" in out and "placeholder" in out
    assert "unknown" not in out  # no writer column for a file scored on its own


def test_score_run_dir_prints_each_final_file_with_labels_and_writers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_trace(tmp_path / "naive" / "repeat-1", NOISY_MEMORY, model="sim/naive", policy="append")
    assert main(["score", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert f"final MEMORY.md of {tmp_path / 'naive' / 'repeat-1'}" in out
    assert "model_name" in out and "Switched the default model" in out
    assert "Screenshot shows a desk" in out and "noise" in out
    [result] = read_results(tmp_path / "naive" / "repeat-1" / "results.json")
    for line in result.lines:  # every labelled line is printed, with its writer
        assert f"l.{line.line:<4} {line.label}" in out
        assert line.writer in out
    assert main(["score", str(tmp_path), "--no-lines"]) == 0
    assert "final MEMORY.md of" not in capsys.readouterr().out


@pytest.mark.parametrize("given", ["section-placment", "scenarios/section-placment.yaml"])
def test_a_misspelt_scenario_names_the_paths_tried_once_and_the_close_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], given: str
) -> None:
    # Issue 40: it said "nor scenarios/scenarios/section-placment.yaml.yaml".
    (tmp_path / "MEMORY.md").write_text("# Long-term Memory\n")
    args = ["score", "--memory-file", str(tmp_path / "MEMORY.md"), "--scenario", given]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "scenarios/scenarios" not in err and ".yaml.yaml" not in err
    assert "scenarios/section-placment.yaml" in err
    assert "did you mean section-placement?" in err
