"""Expected compaction warnings are summarised after a run instead of logged one by one."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pytest

from evals.cli.main import main


def test_scripted_rejections_are_one_summary_line_not_warnings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(Path("scenarios/bad-compaction-restore.yaml"), tmp_path / "bad.yaml")
    monkeypatch.chdir(tmp_path)
    argv = ["run", "--scenario", "bad.yaml", "--model", "sim/careful", "--out", "runs"]
    assert main([*argv, "--policy", "guardrails"]) == 0
    captured = capsys.readouterr()
    assert "WARNING memsys.compaction" not in captured.err
    assert "expected compaction rejections (bad compactions the scenarios feed on purpose: " \
        "bad-compaction-restore)" in captured.out  # fmt: skip


@pytest.mark.parametrize(("verbose", "shown"), [(False, ["ERROR"]), (True, ["WARNING", "ERROR"])])
def test_only_verbose_runs_log_each_compaction_warning(
    verbose: bool, shown: list[str], caplog: pytest.LogCaptureFixture
) -> None:
    from evals.cli._run_notes import quiet_compaction_warnings

    logger = logging.getLogger("memsys.compaction")
    with caplog.at_level(logging.WARNING), quiet_compaction_warnings(verbose):
        logger.warning("compaction: result of 10 chars rejected, original kept")
        logger.error("compaction: disk full")
    assert [r.levelname for r in caplog.records] == shown
    logger.warning("after the run")  # the filter is gone again
    assert caplog.records[-1].getMessage() == "after the run"


def test_verdict_lines_put_real_models_first_with_their_sentence(tmp_path: Path) -> None:
    from evals.cli._run_notes import verdict_lines
    from evals.report import verdicts
    from evals.results.scoring import score_run_dir
    from memsys.search.embedder import HashEmbedder
    from tests.helpers.traces import GOOD_MEMORY, NOISY_MEMORY, write_trace

    for scenario in [f"week-{i:02d}" for i in range(11)]:
        for variant, memory in (("v049-guardrails", GOOD_MEMORY), ("v-loose", NOISY_MEMORY)):
            for model, kind in (
                ("sim/careful", "simulated"),
                ("openai-compatible/q-instruct", "real"),
            ):
                where = tmp_path / scenario / model.replace("/", "__") / variant
                write_trace(
                    where, memory, model=model, model_kind=kind, variant=variant, scenario=scenario
                )
    results = score_run_dir(tmp_path, HashEmbedder())
    lines = verdict_lines(verdicts(results), results)
    assert len(lines) == 3  # the heading and one line per compared cell
    assert lines[0].startswith("verdicts against the baseline (variant v049-guardrails)")
    assert lines[1].startswith("  q · guardrails · v-loose [real]: Worse on quality")
    assert lines[2].startswith("  sim/careful · guardrails · v-loose [simulated]: Worse on")
    assert all(line.endswith("(11 scenarios).") for line in lines[1:])
    # One variant only: no verdict, and the line says what would give one.
    alone = [r for r in results if r.variant == "v049-guardrails"]
    assert verdict_lines(verdicts(alone), alone) == [
        "no verdicts: every run uses the baseline variant v049-guardrails; add another "
        "--variant (beside --variant v049-guardrails) to compare it against the baseline"
    ]
    loose = [r for r in results if r.variant == "v-loose"]
    assert verdict_lines(verdicts(loose), loose) == [
        "no verdicts: no cell pairs with the baseline (variant v049-guardrails); these runs "
        "use v-loose (add --variant v049-guardrails to compare them against it)"
    ]


def test_verdict_lines_say_which_replies_went_unparsed_beside_the_cell(tmp_path: Path) -> None:
    # Issue 40: every daily summary of the new variant unparsed, MEMORY.md empty, and the
    # terminal said nothing. Now the cell's verdict line is followed by the count.
    from evals.cli._run_notes import verdict_lines
    from evals.report import verdicts
    from evals.results.scoring import score_run_dir
    from memsys.events import Flushed, Trigger
    from memsys.outcomes import FlushOutcome
    from tests.helpers.traces import GOOD_MEMORY, write_trace

    error = "malformed daily summary reply: no 'SUMMARY:' block; reply was 'We discussed'"
    for scenario in ("week-a", "week-b", "week-c"):
        for variant in ("v049-guardrails", "v-prose"):
            outcome = FlushOutcome.MALFORMED if variant == "v-prose" else FlushOutcome.WRITTEN
            flushes = [
                Flushed(Trigger.SESSION_SWITCH, outcome, session=f"s{i}", messages=4,
                        error=error if variant == "v-prose" else None)
                for i in range(3)
            ]  # fmt: skip
            memory = "# Long-term Memory\n" if variant == "v-prose" else GOOD_MEMORY
            records = [("flush", f.fields()) for f in flushes]
            write_trace(
                tmp_path / scenario / variant,
                memory,
                model="openai-compatible/q-instruct",
                model_kind="real",
                variant=variant,
                scenario=scenario,
                records=records,
            )
    results = score_run_dir(tmp_path, None)
    lines = verdict_lines(verdicts(results), results)
    assert lines[1].startswith("  q · guardrails · v-prose [real]: Too few scenarios")
    assert lines[2] == (
        "    9 of 9 daily summaries unparsed: MEMORY.md got nothing from them (nor the daily log)"
    )
    assert len(lines) == 3  # the baseline's summaries all parsed: nothing to say
