"""The engine end to end, offline: both sim models under every policy, and the trace shows
the day-change, session-switch and compaction triggers at the right moments."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals.grid.cell import Cell
from evals.run import shared_embedder
from evals.run.engine import RunSpec, run_scenario
from evals.scenario.load import load_scenario
from memsys.errors import UnknownNameError
from memsys.policies import available_policies
from memsys.search.embedder import Embedder
from memsys.tools import load_variant

WEEK = Path("scenarios/week-of-noise.yaml")


@pytest.fixture(scope="module")
def embedder() -> Embedder | None:
    return shared_embedder()


def run(
    tmp_path: Path, embedder: Embedder | None, model: str, policy: str, scenario: Path = WEEK
) -> list[dict[str, object]]:
    loaded = load_scenario(scenario)
    cell = Cell(loaded.name, model, policy, "v049-guardrails")
    spec = RunSpec(cell, loaded, scenario, tmp_path / f"{model.replace('/', '_')}-{policy}")
    trace = run_scenario(spec, embedder)
    return [json.loads(line) for line in trace.read_text().splitlines()]


@pytest.mark.parametrize("policy", sorted(available_policies()))
@pytest.mark.parametrize("model", ["sim/naive", "sim/careful"])
def test_runs_end_to_end(
    tmp_path: Path, embedder: Embedder | None, model: str, policy: str
) -> None:
    records = run(tmp_path, embedder, model, policy)
    assert records[0]["kind"] == "run_start" and records[0]["model_kind"] == "simulated"
    assert records[-1]["kind"] == "run_end" and records[-1]["errors"] == []
    assert sum(r["kind"] == "snapshot" for r in records) == 6
    assert any(r["kind"] == "tool_call" for r in records)
    memory = str(records[-1]["memory_md"])
    assert "shellfish" in memory.lower()
    if model == "sim/naive" and policy == "append":
        assert "rug" in memory  # the field report, reproduced
    if model == "sim/careful" and policy == "guardrails":
        assert "rug" not in memory and "switched the default model" not in memory
        assert "light mode" in memory and "dark mode" not in memory


def test_triggers_fire_at_the_right_moments(tmp_path: Path, embedder: Embedder | None) -> None:
    records = run(tmp_path, embedder, "sim/careful", "guardrails")
    fired = [
        (r["step"], r["trigger"])
        for r in records
        if r["kind"] == "trigger" and r.get("fired", True)
    ]
    assert fired[0] == ("day 1 open app", "first_launch")
    day_changes = [step for step, trigger in fired if trigger == "day_change"]
    assert day_changes == [f"day {d} open app" for d in range(2, 7)]
    switches = [step for step, trigger in fired if trigger == "session_switch"]
    assert switches == ["day 2 #3 session_switch", "day 2 #5 session_switch"]
    not_fired = [r["step"] for r in records if r["kind"] == "trigger" and r.get("fired") is False]
    assert not_fired == ["day 3 #4 new_session"]  # initialize(None) never fires
    compactions = [r for r in records if r["kind"] == "compaction"]
    manual = [c for c in compactions if c["trigger"] == "manual"]
    assert [c["step"] for c in manual] == ["day 4 #5 compact"] and manual[0]["backup"]
    assert {c["step"] for c in compactions if c["trigger"] == "auto"} == set(day_changes)


def test_auto_compaction_and_restore(tmp_path: Path, embedder: Embedder | None) -> None:
    records = run(
        tmp_path, embedder, "sim/careful", "guardrails", Path("scenarios/compaction-pressure.yaml")
    )
    auto = [r for r in records if r["kind"] == "compaction" and r["trigger"] == "auto"]
    assert auto[0]["step"] == "day 2 open app" and auto[0]["outcome"] == "compacted"
    assert int(auto[0]["before_chars"]) > 3000 > int(auto[0]["after_chars"])  # type: ignore[call-overload]
    [restore] = [r for r in records if r["kind"] == "restore"]
    assert restore["ok"] is True and restore["round_trip"] is True
    assert "User requested: Never schedule meetings before 10am" in str(records[-1]["memory_md"])
    assert len(records[-1]["backups"]) <= 5  # type: ignore[arg-type]


SWITCH_SCENARIO = """\
schema_version: 1
name: model-switch-test
description: the user really switches the model under test, then switches back
start_date: 2026-03-09
days:
  - events:
      - manual_edit:
          text: |
            # Long-term Memory

            ## Notes
FILLER
      - {user: "I'm a backend engineer."}
      - {model_switch: {from: Claude Opus, to: Claude Haiku, use: sim/naive}}
      - {user: "I like hiking on weekends."}
  - events:
      - {model_switch: {from: Claude Haiku, to: Claude Opus, use: run}}
      - {compact: true}
""".replace(
    "FILLER",
    "\n".join(
        f"            - Filler note number {i} about a sprint board review" for i in range(80)
    ),
)


def test_model_switch_changes_the_model_under_test_feat049_compaction_rule_3(
    tmp_path: Path, embedder: Embedder | None
) -> None:
    """A model_switch with ``use`` changes the session's model: the chat, the day-change
    flush and compaction go to sim/naive until the scenario switches back to the run's
    model (FEAT-049 compaction rule 3: compaction uses the active session's model)."""
    path = tmp_path / "switch.yaml"
    path.write_text(SWITCH_SCENARIO)
    records = run(tmp_path, embedder, "sim/careful", "guardrails", path)
    switched = [(r["previous"], r["model"]) for r in records if r["kind"] == "model_switched"]
    assert switched == [("sim/careful", "sim/naive"), ("sim/naive", "sim/careful")]
    saves = [r for r in records if r["kind"] == "tool_call" and r["step"].startswith("day 1")]
    # sim/naive saves the app's switch notice; sim/careful never would.
    assert any("switched the default model" in str(r["arguments"]) for r in saves)
    auto = [r for r in records if r["kind"] == "compaction" and r["trigger"] == "auto"]
    manual = [r for r in records if r["kind"] == "compaction" and r["trigger"] == "manual"]
    assert [(r["outcome"], r["model"]) for r in auto] == [("compacted", "sim/naive")]
    assert [(r["outcome"], r["model"]) for r in manual] == [("compacted", "sim/careful")]
    day_change = [r for r in records if r["kind"] == "flush" and r["trigger"] == "day_change"]
    assert [r["model"] for r in day_change] == ["sim/naive"]


def test_switching_to_an_unknown_model_fails_before_the_run(tmp_path: Path) -> None:
    path = tmp_path / "switch.yaml"
    path.write_text(SWITCH_SCENARIO.replace("use: sim/naive", "use: sim/nonexistent"))
    with pytest.raises(UnknownNameError, match="sim/nonexistent"):
        run(tmp_path, None, "sim/careful", "guardrails", path)
    assert not (tmp_path / "sim_careful-guardrails" / "trace.jsonl").read_text().count("event")


LIFECYCLE = Path("scenarios/unified-lifecycle.yaml")


def test_unified_archives_cold_memories_in_the_seed004_scenario(
    tmp_path: Path, embedder: Embedder | None
) -> None:
    """seed 004 Tier 3 in a run: after weeks without recall, the unified policy archives
    (never deletes) cold low-importance memories; the explicit request stays."""
    records = run(tmp_path, embedder, "sim/careful", "unified", LIFECYCLE)
    archives = [r for r in records if r["kind"] == "archive"]
    assert archives and all(r["step"].endswith("open app") for r in archives)
    end = records[-1]
    assert end["policy_stats"]["archived"] == sum(len(r["ids"]) for r in archives)
    assert "User requested" in str(end["memory_md"]) and "penicillin" in str(end["memory_md"])


SCRIPTED_STEP = "day 6 #2 user"
"""unified-lifecycle's scripted step: day 6 (2026-02-12), event #1 `script_decision` arms
it, and the decision the user's turn #2 ("I no longer have a cat") asks for is the
scenario's answer E on the newest memory about Milo, not the model's."""


def check_lifecycle(records: list[dict[str, object]]) -> dict[str, object]:
    """Seed 004's lifecycle keeps a real DELETE and archive whatever the model decides (issue
    36), and says which: the scripted reply (armed on day 6) answers the decision about Milo
    when one comes, marked in the trace (a scripted_decision record just before it), and the
    policy still applies its repairs and the deletion guard, so that decision is the DELETE of
    Milo's memory; when none comes (the model never saves that Milo died), a record says the
    script was not used and every decision, a DELETE among them, is the model's own. The day
    change after five quiet weeks archives cold memories; the stats count exactly those.
    Returns the scripted_decision record."""
    assert records[-1]["errors"] == []
    [scripted] = [r for r in records if r["kind"] == "scripted_decision"]
    assert scripted["armed_at"] == "day 6 #1 script_decision"
    decisions = [r for r in records if r["kind"] == "decision"]
    if scripted["used"]:
        reply = json.loads(str(scripted["reply"]))
        assert reply["answer"] == "E" and isinstance(reply["id"], int)
        seq = int(scripted["seq"])  # type: ignore[call-overload]
        after = [r for r in decisions if int(r["seq"]) > seq]  # type: ignore[call-overload]
        assert (after[0]["step"], after[0]["op"], after[0]["id"]) == (
            scripted["step"],
            "DELETE",
            reply["id"],
        )
        assert after[0].get("repair") is None
        assert "milo" not in str(records[-1]["memory_md"]).lower()  # the DELETE's memory is gone
    else:
        assert "no decision about 'Milo'" in str(scripted["why"])
        assert any(r["op"] == "DELETE" and r.get("repair") is None for r in decisions)
    archives = [r for r in records if r["kind"] == "archive"]
    assert archives and archives[0]["step"] == "day 8 open app"
    stats = records[-1]["policy_stats"]
    assert isinstance(stats, dict)
    assert stats["deleted"] == sum(r["op"] == "DELETE" for r in decisions)
    assert stats["archived"] == sum(len(r["ids"]) for r in archives)  # type: ignore[arg-type, misc]
    return scripted


def test_the_lifecycle_keeps_a_delete_scripted_on_day_6_and_archives(
    tmp_path: Path, embedder: Embedder | None
) -> None:
    """check_lifecycle on the offline model (sim/careful), which saves that Milo died: the
    decision at SCRIPTED_STEP is scripted, every other decision is sim/careful's."""
    scripted = check_lifecycle(run(tmp_path, embedder, "sim/careful", "unified", LIFECYCLE))
    assert (scripted["step"], scripted["used"]) == (SCRIPTED_STEP, True)


def test_the_scripted_decision_is_not_used_by_a_policy_that_makes_none(
    tmp_path: Path, embedder: Embedder | None
) -> None:
    records = run(tmp_path, embedder, "sim/careful", "guardrails", LIFECYCLE)
    assert records[-1]["errors"] == []
    [note] = [r for r in records if r["kind"] == "scripted_decision"]
    assert (note["step"], note["used"]) == ("day 6 #1 script_decision", False)
    assert note["why"] == "the guardrails policy makes no decisions"


@pytest.mark.parametrize(
    ("scenario_file", "old_rule_finds"),
    [
        ("search-decay-buried.yaml", [False, False]),
        # The month-old probes still pass; the 68-day-old one is buried by newer logs.
        ("long-horizon-decay.yaml", [True, True, True, False]),
    ],
)
def test_scenario_search_settings_reach_the_run(
    tmp_path: Path, embedder: Embedder | None, scenario_file: str, old_rule_finds: list[bool]
) -> None:
    """The long-horizon scenarios' old-fact probes pass with the default decay and some fail
    with the pre-issue-13 rule set in the scenario (issue 13's acceptance check)."""
    from evals.scenario.load import SearchSettings
    from memsys.search import DecayForm

    if embedder is None:
        pytest.fail("the embedding model must load for this test")
    path = Path("scenarios") / scenario_file
    scenario = load_scenario(path)
    old = SearchSettings(decay_form=DecayForm.EXPONENTIAL, half_life_days=30.0, decay_floor=0.0)
    found = {}
    for label, chosen in (
        ("default", scenario),
        ("old", scenario.model_copy(update={"search": old})),
    ):
        cell = Cell(chosen.name, "sim/careful", "guardrails", "v049-guardrails")
        spec = RunSpec(cell, chosen, path, tmp_path / label)
        records = [json.loads(x) for x in run_scenario(spec, embedder).read_text().splitlines()]
        probes = [r for r in records if r["kind"] == "search_probe" and r["expected"]]
        found[label] = [
            any(h["source"] in r["expected"] for h in r["hits"][: r["k"]]) for r in probes
        ]
    assert found == {"default": [True] * len(old_rule_finds), "old": old_rule_finds}


def test_unified_reaches_delete_and_archive_in_the_seed004_scenario(tmp_path: Path) -> None:
    """The committed real-model recording (Qwen2.5-Coder 1.5B, unified policy, tool calls
    recovered from text) of the seed 004 lifecycle scenario, replayed offline, passes
    check_lifecycle. Since its calls are read as the 1.5B writes them (2026-12-02), it answers
    "Sadly Milo died ... remember that I no longer have a cat" with an empty reply and saves
    nothing, so no decision about Milo comes and the scripted DELETE is not used (the trace
    says so); the real DELETE is the model's own (the climbing gym's negation on day 7), and
    five quiet weeks later cold memories are archived."""
    from evals.cli.main import main

    model = "openai-compatible/qwen2.5-coder-1.5b-instruct"
    argv = ["run", "--scenario", str(LIFECYCLE), "--model", model, "--policy", "unified"]
    assert main([*argv, "--out", str(tmp_path / "run"), "--report", str(tmp_path / "r.html")]) == 0
    (trace,) = (tmp_path / "run").rglob("trace.jsonl")
    records = [json.loads(line) for line in trace.read_text().splitlines()]
    assert records[0]["model_kind"] == "real"
    assert check_lifecycle(records)["used"] is False


def test_a_variants_prompts_reach_every_request_of_a_run(
    tmp_path: Path, embedder: Embedder | None
) -> None:
    from memsys.llm import ChatRequest, ChatResponse, Purpose, make_client

    class Recording:
        def __init__(self) -> None:
            self.inner = make_client("sim/careful")
            self.requests: list[ChatRequest] = []
            self.name, self.kind = self.inner.name, self.inner.kind

        def complete(self, request: ChatRequest) -> ChatResponse:
            self.requests.append(request)
            return self.inner.complete(request)

    variant = tmp_path / "mine.toml"
    variant.write_text(
        'extends = "summary-worked-example"\n[prompts]\nchat_system = "You are Ada."\n'
    )
    loaded = load_scenario(WEEK)
    cell = Cell(loaded.name, "sim/careful", "guardrails", "mine")
    spec = RunSpec(cell, loaded, WEEK, tmp_path / "run", variant_file=str(variant))
    client = Recording()
    run_scenario(spec, embedder, client)  # type: ignore[arg-type]
    chats = [r for r in client.requests if r.purpose is Purpose.CHAT]
    summaries = [r for r in client.requests if r.purpose is Purpose.DAILY_SUMMARY]
    assert chats and all(r.messages[0].content.startswith("You are Ada.") for r in chats)
    assert summaries and all(
        "An example, for a different conversation" in r.messages[0].content for r in summaries
    )
    start = json.loads((tmp_path / "run" / "trace.jsonl").read_text().splitlines()[0])
    # The trace names the variant and the text it was scored with (its digest).
    assert (start["variant"], start["variant_digest"]) == (
        "mine",
        load_variant(str(variant)).digest(),
    )
    assert start["variant_digest"] != load_variant("summary-worked-example").digest()


def test_run_start_carries_the_variants_texts_and_digest_as_the_run_gave_them(
    tmp_path: Path, embedder: Embedder | None
) -> None:
    custom = tmp_path / "terse.toml"
    custom.write_text(
        'extends = "v049-guardrails"\nsummary = "terse"\n'
        '[save_memory]\ndescription = "Save one fact the user will want later."\n',
        encoding="utf-8",
    )
    variant = load_variant(str(custom))
    loaded = load_scenario(WEEK)
    cell = Cell(loaded.name, "sim/careful", "guardrails", "terse")
    spec = RunSpec(cell, loaded, WEEK, tmp_path / "run", variant_file=str(custom), variant=variant)
    custom.unlink()  # the run uses the object it was given, not the file
    trace = run_scenario(spec, embedder)
    start = json.loads(trace.read_text().splitlines()[0])
    assert start["variant_digest"] == variant.digest()
    recorded = start["variant_text"]
    assert recorded["texts"] == variant.texts() and recorded["summary"] == "terse"
    assert recorded["texts"]["save_memory"] == "Save one fact the user will want later."
    assert recorded["extends"] == "v049-guardrails" and recorded["source"] == str(custom.resolve())
