"""``memeval memory search`` and ``memeval memory index`` through the real entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals.cli.main import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def memory_dir(tmp_path: Path) -> Path:
    (tmp_path / "daily").mkdir()
    (tmp_path / "MEMORY.md").write_text("## Preferences\n- Allergic to shellfish\n")
    (tmp_path / "daily" / "2026-03-01.md").write_text("- Chose PostgreSQL for the backend\n")
    (tmp_path / "daily" / "2026-02-01.md").write_text("- Went hiking in the Alps\n")
    return tmp_path


def test_search_prints_ranked_hits_with_score_parts(
    memory_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(
        capsys, "memory", "search", str(memory_dir), "can't eat prawns", "--today", "2026-03-02"
    )
    assert code == 0
    assert " 1. " in out and "MEMORY.md:2" in out and "Allergic to shellfish" in out
    assert "cosine" in out and "decay 1.000" in out and "(hybrid)" in out


def test_search_json_and_k(memory_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "memory",
        "search",
        str(memory_dir),
        "postgresql",
        "--json",
        "-k",
        "1",
        "--bm25-only",
        "--today",
        "2026-03-02",
    )
    record = json.loads(out)
    assert code == 0 and record["mode"] == "bm25" and len(record["hits"]) == 1
    hit = record["hits"][0]
    assert (hit["source"], hit["date"], hit["line_start"]) == (
        "daily/2026-03-01.md",
        "2026-03-01",
        1,
    )
    assert hit["parts"]["cosine"] is None and hit["parts"]["decay"] == pytest.approx(2 ** (-1 / 60))
    assert hit["parts"]["weighted"] == pytest.approx(
        hit["parts"]["fused"] * (0.9 + 0.1 * hit["parts"]["decay"])
    )
    assert hit["score"] == hit["parts"]["final"] and hit["parts"]["superseded"] is False


@pytest.mark.parametrize(
    ("options", "decay"),
    [
        (["--decay-form", "hyperbolic", "--half-life", "10"], 1 / (1 + 1 / 10)),
        (["--half-life", "30", "--decay-floor", "0"], 2 ** (-1 / 30)),
        (["--no-decay"], 1.0),
    ],
)
def test_decay_options(
    memory_dir: Path, capsys: pytest.CaptureFixture[str], options: list[str], decay: float
) -> None:
    args = [str(memory_dir), "postgresql", "--json", "--bm25-only", "--today", "2026-03-02"]
    code, out, _ = run(capsys, "memory", "search", *args, *options)
    hit = json.loads(out)["hits"][0]
    assert code == 0 and hit["parts"]["decay"] == pytest.approx(decay)


def test_bad_decay_floor_is_a_usage_error(
    memory_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "memory", "search", str(memory_dir), "x", "--decay-floor", "1.5")
    assert code == 2 and "decay_floor" in err


def test_index_takes_no_ranking_options(
    memory_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for option in (["-k", "3"], ["--half-life", "30"]):
        with pytest.raises(SystemExit) as exc:
            run(capsys, "memory", "index", str(memory_dir), *option)
        assert exc.value.code == 2


def test_queries_file_prints_one_line_per_query(
    memory_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    queries = tmp_path / "q.jsonl"
    queries.write_text(
        '{"query": "hiking", "id": 1}\n\n{"query": "database", "k": 1, "today": "2026-03-05"}\n'
    )
    code, out, _ = run(capsys, "memory", "search", str(memory_dir), "--queries", str(queries))
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [r["query"] for r in lines] == ["hiking", "database"]
    assert lines[0]["id"] == 1 and "id" not in lines[1]
    assert lines[0]["hits"][0]["text"] == "Went hiking in the Alps"


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("{not json", "invalid JSON"),
        ('["query"]', "expected an object"),
        ('{"q": "x"}', "'query' must be a non-empty string"),
        ('{"query": "x", "k": 0}', "'k' must be a positive integer"),
        ('{"query": "x", "today": "March"}', "'today' must be YYYY-MM-DD"),
    ],
)
def test_malformed_queries_line_names_file_and_line(
    memory_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str, problem: str
) -> None:
    queries = tmp_path / "q.jsonl"
    queries.write_text('{"query": "fine"}\n' + line + "\n")
    code, out, err = run(capsys, "memory", "search", str(memory_dir), "--queries", str(queries))
    assert code == 2 and out == ""
    assert f"{queries}:2: {problem}" in err


def test_index_rebuild_and_refresh(memory_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "memory", "index", str(memory_dir), "--rebuild")
    assert code == 0 and "index rebuilt: 3 chunks, with embeddings" in out
    assert (memory_dir / ".index" / "memory_index.sqlite").is_file()
    code, out, _ = run(capsys, "memory", "index", str(memory_dir), "--bm25-only")
    assert code == 0 and "index up to date: 3 chunks, BM25 only" in out


def test_missing_directory_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "memory", "search", str(tmp_path / "nope"), "x")
    assert code == 2 and "is not a directory" in err
