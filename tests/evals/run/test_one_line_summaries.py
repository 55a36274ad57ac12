"""Issue 40: a daily-summary prompt that asks for the one-line form (``SUMMARY: text``),
recorded with the real Qwen2.5-Coder-1.5B. Before, the parser rejected every such reply at
its header ("no 'SUMMARY:' block"), and the daily log and MEMORY.md got nothing from them
while ``variant check`` said ok. Then the header was read but the model's facts, written
``- preferences: text`` instead of ``- [preferences] text``, failed the whole reply. Now both
are read (the cell was brought back from where the first such reply changed what followed):
the one-line summary becomes the day's log and the named facts reach MEMORY.md; a reply
that still fails says where, past the header, in the run's notes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

from evals.cli.main import main

MODEL = "openai-compatible/qwen2.5-coder-1.5b-instruct"
VARIANT = Path("tests/data/variants/summary-one-line.toml")
CASSETTE = Path(
    "cassettes/model-talk/openai-compatible__qwen2.5-coder-1.5b-instruct/guardrails/"
    "summary-one-line.yaml"
)
OLD_FORM = re.compile(r"SUMMARY:\s*\n")
"""What the parser required before: the header alone on its line."""
NAMED_FACT = re.compile(
    r"^\s*-\s*(?:profile|preferences|interests|workflow|projects|notes):\s*(.+)$", re.M
)
"""A LONG_TERM fact named by its category before a colon (read since; refused before)."""


def _summary_replies() -> list[str]:
    replies = []
    for interaction in yaml.safe_load(CASSETTE.read_text())["interactions"]:
        request = json.loads(interaction["request"]["body"])
        if "daily memory log" not in json.dumps(request["messages"]):
            continue
        reply = json.loads(interaction["response"]["body"]["string"])
        replies.append(str(reply["choices"][0]["message"]["content"] or ""))
    return replies


def test_the_recording_holds_one_line_summaries_the_old_parser_rejected() -> None:
    replies = _summary_replies()
    one_line = [r for r in replies if re.match(r"\s*SUMMARY:[ \t]*\S", r)]
    assert one_line, replies
    assert all(OLD_FORM.search(r) is None for r in one_line)


def test_replayed_the_one_line_header_is_read_and_a_failure_names_the_fact_line(
    tmp_path: Path,
) -> None:
    argv = ["run", "--scenario", "scenarios/model-talk.yaml", "--model", MODEL]
    argv += ["--policy", "guardrails", "--variant", str(VARIANT), "--out", str(tmp_path / "run")]
    assert main([*argv, "--report", str(tmp_path / "r.html")]) == 0
    [result] = json.loads((tmp_path / "run" / "results.json").read_text())["results"]
    [summaries] = [r for r in result["replies"] if r["slot"] == "daily_summary"]
    assert summaries["asked"] > summaries["unparsed"], summaries  # at least one was read
    if summaries["unparsed"]:  # and what failed, failed past the header, saying where
        assert "fact without [category]" in summaries["first_problem"], summaries
        assert "SUMMARY" not in summaries["first_problem"].split(":")[0]
    (trace,) = (tmp_path / "run").rglob("trace.jsonl")
    flushes = [
        json.loads(line)
        for line in trace.read_text().splitlines()
        if json.loads(line)["kind"] == "flush"
    ]
    assert [f for f in flushes if f["outcome"] == "written"], flushes
    logs = list((tmp_path / "run").rglob("memory/daily/*.md"))
    # The day's log holds the model's one-line summary (before: nothing at all).
    assert any("discussed" in log.read_text() for log in logs)
    # A fact the model named by its category before a colon reached MEMORY.md.
    named = [m.group(1).strip() for r in _summary_replies() for m in NAMED_FACT.finditer(r)]
    assert named, "the recording holds no '- category: text' fact"
    (memory,) = (tmp_path / "run").rglob("memory/MEMORY.md")
    assert any(f"- {fact}" in memory.read_text() for fact in named), memory.read_text()
