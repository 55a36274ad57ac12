"""Anchor files per scenario: quality means something at both ends.

For every committed scenario with something to remember, the header template and an empty
file score <= 0.10, an ideal file (built here from the scenario's own expectations: each
expected current fact once, in its section) scores >= 0.90, and polluting the ideal file or
keeping a stale fact in it costs quality.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from evals.scenario import Scenario, load_scenario
from evals.scorers import embed_run
from evals.scorers._sections import cues_of
from evals.scorers.file_run import run_from_file, score_file
from evals.scorers.labels import expected_facts, label_target
from memsys.search.embedder import Embedder
from memsys.sections import HEADER, STANDARD_SECTIONS, Section

SCENARIOS = sorted(Path("scenarios").glob("*.yaml"))
TEMPLATE = HEADER + "\n\n" + "".join(f"## {name}\n\n" for name in STANDARD_SECTIONS)


def _expects(scenario: Scenario) -> bool:
    expect = scenario.expect
    requests = any(getattr(e, "turn", None) == "request" for d in scenario.days for e in d.events)
    return bool(expect.remember or expect.contradictions or requests)


REMEMBERING = [p for p in SCENARIOS if _expects(load_scenario(p))]


def ideal_file(scenario: Scenario) -> str:
    """Each expected current fact once, in its (first) section, else Notes; and each request
    the facts do not already hold, in the user's words without "Remember that"."""
    sections: dict[str, list[str]] = {name: [] for name in STANDARD_SECTIONS}
    final = run_from_file(scenario, "").final
    for spec, _ in expected_facts(final):
        sections[_home(spec.section, spec.fact)].append(spec.fact)
    facts_only = _render(sections)
    run = run_from_file(scenario, facts_only)
    for text, line in label_target(run.final, run).requests:
        if line is None and text not in sections["Notes"]:
            sections["Notes"].append(text.removeprefix("Remember that ").rstrip("."))
    return _render(sections)


def _home(named: list[str] | None, fact: str) -> str:
    """The fact's section: the first it names, else the first its own words place it in."""
    if named:
        return named[0]
    cues = cues_of(fact)
    if cues:
        return next(name for name in STANDARD_SECTIONS if Section(name) in cues[0].belongs)
    return "Notes"


def _render(sections: dict[str, list[str]]) -> str:
    body = "".join(
        f"## {name}\n" + "".join(f"- {fact}\n" for fact in facts) + "\n"
        for name, facts in sections.items()
    )
    return f"{HEADER}\n\n{body}"


def _quality(path: Path, memory_md: str, minilm: Embedder) -> float:
    run = embed_run(run_from_file(load_scenario(path), memory_md), minilm)
    value = score_file(run)["quality"].value
    assert value is not None
    return value


@pytest.mark.parametrize("path", REMEMBERING, ids=lambda p: p.stem)
def test_the_template_and_an_empty_file_score_at_most_0_10(path: Path, minilm: Embedder) -> None:
    assert _quality(path, TEMPLATE, minilm) <= 0.10
    assert _quality(path, "", minilm) <= 0.10


@pytest.mark.parametrize("path", REMEMBERING, ids=lambda p: p.stem)
def test_an_ideal_file_scores_at_least_0_90(path: Path, minilm: Embedder) -> None:
    ideal = ideal_file(load_scenario(path))
    assert _quality(path, ideal, minilm) >= 0.90, ideal


def _in_writer_styles(scenario: Scenario, ideal: str) -> str:
    """``ideal`` with its lines written as other writers write them: in turn without "The
    user", in the first person, in bold, with a full stop; and in another turn dated at the
    start, at the end (a day of the conversation), or not."""
    first, last = scenario.day_dates()[0], scenario.day_dates()[-1]
    wordings = (
        lambda s: re.sub(r"^The user (\w)", lambda m: m[1].upper(), s).replace(
            "The user's ", "Their "
        ),
        lambda s: re.sub(r"^The user (\w+?)s\b", r"I \1", s.replace("The user's ", "My ")),
        lambda s: f"**{s}**",
        lambda s: f"{s}.",
    )
    stamps = (
        lambda s: f"[{first}] {s}",
        lambda s: f"{s} (added {last:%d %B %Y})",
        lambda s: s,
    )
    lines = ideal.splitlines()
    bullets = [n for n, line in enumerate(lines) if line.startswith("- ")]
    for turn, n in enumerate(bullets):
        worded = wordings[turn % len(wordings)](lines[n][2:])
        lines[n] = "- " + stamps[turn % len(stamps)](worded)
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("path", REMEMBERING, ids=lambda p: p.stem)
def test_an_ideal_file_in_other_writers_styles_scores_at_least_0_90(
    path: Path, minilm: Embedder
) -> None:
    """Dated lines ("[2026-07-13] ...", "... (added 13 July 2026)"), no "The user", the first
    person, bold: a reader keeps every line, so the score stays where the plain file's is."""
    scenario = load_scenario(path)
    styled = _in_writer_styles(scenario, ideal_file(scenario))
    assert _quality(path, styled, minilm) >= 0.90, styled


def _in_writer_layouts(ideal: str) -> str:
    """``ideal`` laid out as other writers lay a file out, a section at a time in turn: a
    numbered list; a bold heading for "## " with bookkeeping tags after the lines; a bullet
    heading over nested bullets, a dash clause after each."""
    out: list[str] = []
    turn = -1
    for line in ideal.splitlines():
        if line.startswith("## "):
            turn, number = turn + 1, 0
            if turn % 3 == 1:
                out.append(f"**{line[3:]}**")
                continue
        elif line.startswith("- "):
            fact, number = line[2:], number + 1
            line = (
                f"{number}. {fact}",
                f"- {fact} (confidence: high) [category: {turn}]",
                f"  - {fact} — from the user",
            )[turn % 3]
            if turn % 3 == 2 and number == 1:
                out.append("- Details:")
        out.append(line)
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("path", REMEMBERING, ids=lambda p: p.stem)
def test_an_ideal_file_in_other_writers_layouts_scores_at_least_0_90(
    path: Path, minilm: Embedder
) -> None:
    """A numbered list, a bold line for a heading, "- Details:" over nested bullets,
    "(confidence: high)" or "— from the user" after a line: a reader keeps every line."""
    laid_out = _in_writer_layouts(ideal_file(load_scenario(path)))
    assert _quality(path, laid_out, minilm) >= 0.90, laid_out


@pytest.mark.parametrize("path", REMEMBERING, ids=lambda p: p.stem)
def test_pollution_and_kept_stale_facts_cost_quality(path: Path, minilm: Embedder) -> None:
    scenario = load_scenario(path)
    ideal = ideal_file(scenario)
    best = _quality(path, ideal, minilm)
    junk = "- None\n- <bullet>\n- Uses the Qwen model for chat\n- What should I do today?\n"
    polluted = ideal.replace("## Notes\n", "## Notes\n" + junk)
    assert _quality(path, polluted, minilm) <= best - 0.2
    if scenario.expect.contradictions:
        stale = "".join(f"- {pair.stale.fact}\n" for pair in scenario.expect.contradictions)
        kept = ideal.replace("## Notes\n", "## Notes\n" + stale)
        assert _quality(path, kept, minilm) < best - 0.05


def test_a_scenario_expecting_nothing_scores_an_empty_file_1(
    tmp_path: Path, minilm: Embedder
) -> None:
    # Every shipped scenario expects something now, so the branch is checked on a copy of one
    # whose expectations are cut off (quality is then precision alone: nothing to strike, 1).
    text = Path("scenarios/search-old-facts.yaml").read_text(encoding="utf-8")
    quiet = tmp_path / "quiet.yaml"
    quiet.write_text(text[: text.index("\nexpect:")] + "\nexpect:\n  remember: []\n")
    assert _quality(quiet, TEMPLATE, minilm) == 1.0
    assert _quality(quiet, TEMPLATE + "- None\n", minilm) < 1.0
