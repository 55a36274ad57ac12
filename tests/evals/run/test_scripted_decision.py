"""The ``script_decision`` event: the unified pipeline's decision about the scenario's target
(the next one, without a target) answered by the scenario, marked scripted in the trace; a
missing target or an untargeted script never asked for is a run error, a targeted one no
decision was about is recorded as unused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from evals.grid.cell import Cell
from evals.run import shared_embedder
from evals.run._scripted_decision import SCRIPTED_MODEL, WAIT, ScriptedDecisions, scripted_reply
from evals.run.engine import RunSpec, run_scenario
from evals.scenario import ScriptedDecisionSpec, parse_event
from evals.scenario.load import load_scenario
from memsys.llm import ChatRequest, ChatResponse, Message, ModelKind, Purpose, Role

E_ON = '{"answer": "E", "id": {id}, "content": ""}'


def test_the_id_slot_and_the_target_go_together() -> None:
    assert ScriptedDecisionSpec(reply=E_ON, target="Milo").target == "Milo"
    assert ScriptedDecisionSpec(reply='{"answer": "F"}').target is None
    for bad in ({"reply": E_ON}, {"reply": '{"answer": "F"}', "target": "Milo"}):
        with pytest.raises(ValidationError, match="target exactly when"):
            ScriptedDecisionSpec(**bad)
    event = parse_event({"at": "19:59", "script_decision": {"reply": E_ON, "target": "cat"}})
    assert event.type == "script_decision"


def test_the_slot_is_the_newest_memory_holding_the_target() -> None:
    spec = ScriptedDecisionSpec(reply=E_ON, target="milo")
    active = [(2, "Has a cat named Milo"), (5, "User requested: MILO is a cat"), (7, "Nurse")]
    assert scripted_reply(spec, active) == '{"answer": "E", "id": 5, "content": ""}'
    assert scripted_reply(spec, [(7, "Nurse")]) is None
    plain = ScriptedDecisionSpec(reply='{"answer": "F", "id": null}')
    assert scripted_reply(plain, []) == plain.reply


class Model:
    name, kind = "sim/test", ModelKind.SIMULATED

    def __init__(self) -> None:
        self.asked: list[Purpose] = []

    def complete(self, request: ChatRequest) -> ChatResponse:
        self.asked.append(request.purpose)
        return ChatResponse("the model", model=self.name)


def _request(purpose: Purpose) -> ChatRequest:
    return ChatRequest((Message(Role.USER, "x"),), purpose=purpose)


def test_only_the_decision_a_script_is_for_is_answered_by_it() -> None:
    model = Model()
    client = ScriptedDecisions(model)
    waited = [WAIT]  # the first decision is about something else: the model's, it waits
    client.arm(lambda _: waited.pop() if waited else ChatResponse("scripted", model=SCRIPTED_MODEL))
    client.arm(lambda _: None)  # its target is gone: the model decides
    unused: list[str] = []
    client.arm(lambda _: WAIT, lambda: unused.append("never about its target"))
    assert (client.name, client.pending) == ("sim/test", 3)
    assert client.complete(_request(Purpose.CHAT)).text == "the model"
    assert client.complete(_request(Purpose.UPDATE_DECISION)).text == "the model"
    assert client.complete(_request(Purpose.UPDATE_DECISION)).text == "scripted"
    assert client.complete(_request(Purpose.UPDATE_DECISION)).text == "the model"
    assert client.complete(_request(Purpose.UPDATE_DECISION)).text == "the model"
    assert client.pending == 1
    assert client.finish() == 0 and unused == ["never about its target"]  # recorded, no error
    assert model.asked == [Purpose.CHAT, *[Purpose.UPDATE_DECISION] * 3]


def test_a_decision_is_about_the_target_when_it_names_it_or_ends_a_memory_holding_it() -> None:
    from datetime import datetime

    from evals.run._scripted_decision import _about
    from memsys.decisions import SimilarMemory, decision_request

    at = datetime(2026, 2, 12, 20, 0)
    milo = SimilarMemory(2, "I have a cat named Milo", "profile", at, at)
    job = SimilarMemory(1, "Works as a nurse", "profile", at, at)

    def about(candidate: str, *shown: SimilarMemory) -> bool:
        return _about("Milo", decision_request(candidate, shown))

    assert about("Milo died last week")  # names it, shown or not
    assert about("I no longer have a cat", milo)  # an ending, its memory shown
    assert not about("I no longer have a cat", job)  # an ending, but not of a memory about Milo
    assert not about("profession: software engineer", milo, job)  # shown, nothing ended
    assert not about("Hospital worker", job)


SCENARIO = """\
schema_version: 1
name: scripted-decision-test
description: >
  a script that waits past a decision about something else for one whose target is gone, then
  one without a target and one with a target that no decision asks for
start_date: 2026-03-09
days:
  - close_app: false
    events:
      - {script_decision: {reply: '{"answer": "E", "id": {id}, "content": ""}', target: Oslo}}
      - {user: "Remember that I have a cat named Milo.", turn: request}
      - {user: "Remember that I moved away from Oslo last year.", turn: request}
  - open_app: false
    close_app: false
    events:
      - {script_decision: {reply: '{"answer": "F", "id": null, "content": ""}'}}
      - {script_decision: {reply: '{"answer": "E", "id": {id}, "content": ""}', target: Milo}}
"""


def test_a_missing_target_and_an_untargeted_unused_script_are_run_errors(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(SCENARIO)
    scenario = load_scenario(path)
    cell = Cell(scenario.name, "sim/careful", "unified", "v049-guardrails")
    trace = run_scenario(RunSpec(cell, scenario, path, tmp_path / "run"), shared_embedder())
    records = [json.loads(line) for line in trace.read_text().splitlines()]
    errors = records[-1]["errors"]
    assert errors == [
        "day 1 #3 user: script_decision from day 1 #1 script_decision: no active memory "
        "holds 'Oslo'; the model decided",
        "1 scripted decisions never asked for",
    ]
    assert not any(r["kind"] == "scripted_decision" and r["used"] for r in records)
    [decided] = [r for r in records if r["kind"] == "decision" and r["step"] == "day 1 #2 user"]
    assert decided["op"] == "ADD"  # the model's own: the Oslo script waited past it
    [unused] = [r for r in records if r["kind"] == "scripted_decision"]
    assert (unused["step"], unused["armed_at"]) == ("end", "day 2 #2 script_decision")
    assert unused["why"].startswith("no decision about 'Milo' came after it")
