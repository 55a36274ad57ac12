"""``memeval tables RUN_DIR``: markdown tables of a run on standard output."""

from __future__ import annotations

import dataclasses
import json
import statistics
from pathlib import Path

import pytest

from evals.cli.main import main
from evals.report.markdown import TABLES
from evals.results import finish_run
from evals.results.store import read_results
from memsys.llm.base import ModelKind

ROOT = Path(__file__).resolve().parents[3]


def _run(out: Path) -> Path:
    """The default run of chitchat-transient: 3 simulated cells, 8 real runs replayed."""
    argv = ["run", "--scenario", "scenarios/chitchat-transient.yaml", "--out", str(out)]
    assert main([*argv, "--report", str(out.parent / "r.html")]) == 0
    return out


def test_tables_prints_each_kind_and_reads_recording_times_from_the_labels(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(ROOT)  # cassettes/ is found from the repository root
    run = _run(tmp_path / "run")
    capsys.readouterr()
    assert main(["tables", str(run), "--kind", "real"]) == 0
    real = capsys.readouterr().out
    assert real.startswith("| scenario | policy | variant | samples |")
    assert "sim/" not in real and "| append |" not in real
    row = next(line for line in real.splitlines() if "| guardrails | v023-vague |" in line)
    labels = sorted(
        Path("cassettes/chitchat-transient/openai-compatible__qwen2.5-coder-1.5b-instruct")
        .joinpath("guardrails/v023-vague")
        .glob("repeat-*.yaml.meta.json")
    )
    meta = [json.loads(p.read_text(encoding="utf-8")) for p in labels]
    # Minutes a whole recording takes: every call at the label's seconds per call, though a
    # cell brought back from where it diverged sent only part of them.
    minutes = statistics.fmean(m["calls"] * m["seconds_per_call"] / 60 for m in meta)
    assert len(meta) == 3 and row.split(" | ")[3] == "3"  # samples
    assert row.endswith(f" | {minutes:.1f} |")  # the mean of the three labels' minutes

    assert main(["tables", str(run / "results.json")]) == 0
    everything = capsys.readouterr().out
    tables = everything.strip().split("\n\n")
    assert [t.splitlines()[0].split(" | ")[0] for t in tables[:2]] == ["| scenario", "| scenario"]
    # The comparison: verdict sentences, the table, the method sentence under it.
    compare = "\n\n".join(tables[2:-1])
    assert tables[-1].startswith("| kind | policy | variant | writer | runs |")  # writers
    # chitchat-transient's positive-control cells are sampled as its baseline is (since
    # 2026-12-07): they pair; the copy control pairs with its parent too.
    assert compare.startswith("- **save-everything**: No test: 1 scenario paired")
    assert "\n- **summary-copy-everything**: No test: 1 scenario paired" in compare
    assert "\n- **summary-keep-everything**: No test: 1 scenario paired" in compare
    assert "\n- **summary-copy-everything (against its parent summary-worked-example)**: " in (
        compare
    )
    assert "\n- **v023-vague**: " in compare
    assert "| compared with v049-guardrails | scenarios | metric | difference [95% CI] |" in compare
    assert "Left out" not in compare
    assert compare.endswith("from the SD of the scenario differences.")
    assert tables[1] + "\n" == real

    # A second real model: the tables show one, the main one unless --model says otherwise.
    results = read_results(run / "results.json")
    main_model = "openai-compatible/qwen2.5-coder-1.5b-instruct"
    real_run = next(r for r in results if r.model == main_model)
    finish_run(tmp_path / "two", [*results, dataclasses.replace(real_run, model="openai/x")])
    assert main(["tables", str(tmp_path / "two"), "--kind", "real"]) == 0
    captured = capsys.readouterr()
    assert captured.out == real and "openai/x; --model M" in captured.err
    assert main(["tables", str(tmp_path / "two"), "--kind", "real", "--model", real_run.model]) == 0
    assert capsys.readouterr().out == real
    # Two real models, neither the main one: the user chooses.
    others = [dataclasses.replace(real_run, model=m) for m in ("openai/x", "openai/y")]
    sims = [r for r in results if r.model_kind is ModelKind.SIMULATED]
    assert real_run.model_kind is ModelKind.REAL
    finish_run(tmp_path / "three", [*sims, *others])
    assert main(["tables", str(tmp_path / "three"), "--kind", "real"]) == 2
    assert "choose it with --model" in capsys.readouterr().err


def test_a_run_dir_without_results_is_a_usage_error_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "cells").mkdir()
    assert main(["tables", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert str(tmp_path) in err and "no results.json" in err


def test_help_explains_every_kind(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["tables", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for kind, table in TABLES.items():
        assert f"{kind} {' '.join(table.help.split())}" in text  # each kind, then what it shows
    assert "all each of them" in text


@pytest.fixture(scope="module")
def chitchat_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(ROOT)
        return _run(tmp_path_factory.mktemp("tables") / "run").resolve()


def _markdown_of(run: Path, kind: str, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main(["tables", str(run), "--kind", kind]) == 0
    return capsys.readouterr().out.strip()


def test_write_readme_fills_each_marked_block_and_leaves_the_rest_byte_for_byte(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    chitchat_run: Path,
) -> None:
    monkeypatch.chdir(ROOT)
    run = chitchat_run
    readme = tmp_path / "README.md"
    before = "# Title\r\n\nProse, kept as it is: ünïcode.\n\n"
    between = "\nMore prose.\n\n"
    readme.write_text(
        f"{before}<!-- tables:writers -->\nan old table\n<!-- /tables:writers -->{between}"
        "<!-- tables:simulated -->\n<!-- /tables:simulated -->\n",
        encoding="utf-8",
    )
    assert main(["tables", str(run), "--write-readme", str(readme)]) == 0
    assert "wrote writers, simulated" in capsys.readouterr().err
    writers, simulated = (_markdown_of(run, k, capsys) for k in ("writers", "simulated"))
    assert readme.read_bytes().decode() == (
        f"{before}<!-- tables:writers -->\n\n{writers}\n\n<!-- /tables:writers -->{between}"
        f"<!-- tables:simulated -->\n\n{simulated}\n\n<!-- /tables:simulated -->\n"
    )
    # Written again from the same run: nothing moves.
    once = readme.read_bytes()
    assert main(["tables", str(run), "--write-readme", str(readme)]) == 0
    assert readme.read_bytes() == once


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("no markers here\n", "no '<!-- tables:KIND -->' ... '<!-- /tables:KIND -->' markers"),
        ("a\n<!-- tables:real -->\nx\n", "line 2: 'tables:real' is not closed"),
        ("<!-- /tables:real -->\n", "line 1: '/tables:real' closes nothing"),
        ("<!-- tables:real -->\n<!-- /tables:writers -->\n", "line 2: '/tables:writers' closes"),
        (
            "<!-- tables:charts -->\n<!-- /tables:charts -->\n",
            "unknown kind 'charts' in '<!-- tables:charts -->'",
        ),
    ],
    ids=["none", "unclosed", "lone close", "crossed", "unknown kind"],
)
def test_write_readme_refuses_bad_markers_naming_the_file_and_changes_nothing(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    chitchat_run: Path,
    text: str,
    problem: str,
) -> None:
    monkeypatch.chdir(ROOT)
    run = chitchat_run
    readme = tmp_path / "README.md"
    readme.write_text(text, encoding="utf-8")
    capsys.readouterr()
    assert main(["tables", str(run), "--write-readme", str(readme)]) == 2
    err = capsys.readouterr().err
    assert f"{readme}: " in err and problem in err, err
    assert readme.read_text(encoding="utf-8") == text


def test_write_readme_refuses_a_file_that_is_not_utf8_naming_it_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], chitchat_run: Path
) -> None:
    readme = tmp_path / "README.md"
    readme.write_bytes(b"<!-- tables:real -->\n\xe9\n<!-- /tables:real -->\n")
    assert main(["tables", str(chitchat_run), "--write-readme", str(readme)]) == 2
    err = capsys.readouterr().err
    assert err.count(str(readme)) == 1 and "not UTF-8" in err, err


def test_the_readmes_table_markers_pair_up() -> None:
    """The project's README is written by ``memeval tables RUN --write-readme README.md``:
    every block it regenerates is marked, and the markers pair."""
    from evals.report.readme_blocks import fill_markers

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    _, kinds = fill_markers(readme, lambda kind: kind, "tables", TABLES)
    assert sorted(kinds) == sorted(TABLES)
