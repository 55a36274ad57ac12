"""The ``script_decision`` event: the unified pipeline's decision about the scenario's target
is answered by the scenario's text instead of the model under test.

:class:`ScriptedDecisions` sits between the run and its model. Armed by the event, it answers
an update-decision call itself (no model is asked, nothing reaches a cassette) with what
:meth:`ScriptedDecisions.arm`'s ``answer`` returns; every other call goes to the model. With a
``target``, the call it answers is the first one about the target: its new fact names it, or
says something ended while a memory holding it is shown. A decision about something else goes
to the model and the script waits (before 2026-12-02 it took the next decision whatever it
was about: when the 1.5B stopped saving "Milo died", the scripted DELETE of Milo answered
"profession: software engineer" and was repaired to an ADD). The engine writes a
``scripted_decision`` record when the reply is used, and one with ``used: false`` and why
when the run ends with it still waiting, so the decision that follows in the trace is never
taken for the model's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from evals.run._wrapped_client import WrappedClient
from evals.scenario import ID_SLOT, ScriptedDecisionSpec
from evals.trace.records import ErrorRecord, RecordBody, ScriptedDecision
from memsys.decisions import read_decision_prompt
from memsys.llm import ChatRequest, ChatResponse, LLMClient, Purpose
from memsys.policies import WritePolicy
from memsys.policies.unified import UnifiedPolicy
from memsys.subject import is_ending

__all__ = ["EVENT_TYPE", "SCRIPTED_MODEL", "ScriptedDecisions", "arm_decision", "scripted_reply"]

EVENT_TYPE = "script_decision"

SCRIPTED_MODEL = "scripted/decision"
"""The name a scripted reply carries instead of a model's."""
WAIT = object()
"""What an answer returns for a decision about something else: the model decides, it waits."""
Answer = Callable[[ChatRequest], object]


class ScriptedDecisions(WrappedClient):
    """The model under test, except for the decisions a scenario scripts."""

    def __init__(self, inner: LLMClient) -> None:
        super().__init__(inner)
        self._armed: list[tuple[Answer, Callable[[], None] | None]] = []

    @property
    def pending(self) -> int:
        """Scripted decisions not yet asked for."""
        return len(self._armed)

    def arm(self, answer: Answer, unused: Callable[[], None] | None = None) -> None:
        """Answer an update-decision call with ``answer(request)``: a reply, None (ask the
        model, the script is spent) or :data:`WAIT` (ask the model, the script waits).
        ``unused`` records a script still waiting when the run ends; without one, a script
        never asked for is the run's error (:meth:`finish`)."""
        self._armed.append((answer, unused))

    def complete(self, request: ChatRequest) -> ChatResponse:
        """A scripted decision if one is armed for this call, else the model's reply."""
        if request.purpose is Purpose.UPDATE_DECISION and self._armed:
            scripted = self._armed[0][0](request)
            if scripted is not WAIT:
                self._armed.pop(0)
                if isinstance(scripted, ChatResponse):
                    return scripted
        return self._inner.complete(request)

    def finish(self) -> int:
        """Tell each script still waiting that it was not used; how many had no target to
        wait for (a run error: the scenario asked for a decision that never came)."""
        untargeted = 0
        for _, unused in self._armed:
            if unused is None:
                untargeted += 1
            else:
                unused()
        self._armed.clear()
        return untargeted


def scripted_reply(spec: ScriptedDecisionSpec, active: Sequence[tuple[int, str]]) -> str | None:
    """The reply text, its ``{id}`` the newest of ``active`` (id, text) holding the target
    (case-insensitive); None when no active memory holds it."""
    if spec.target is None:
        return spec.reply
    wanted = spec.target.casefold()
    ids = [i for i, text in active if wanted in text.casefold()]
    return spec.reply.replace(ID_SLOT, str(max(ids))) if ids else None


def arm_decision(
    scripted: ScriptedDecisions,
    spec: ScriptedDecisionSpec,
    policy: WritePolicy,
    armed_at: str,
    write: Callable[[RecordBody], None],
    fail: Callable[[str], None],
) -> None:
    """Arm ``scripted`` with ``spec`` for ``policy``'s decision about its target (the next
    decision when it has none; module docstring). When it is used,
    ``write`` gets a ``scripted_decision`` record with the reply (no model); when
    its target is gone, ``fail`` gets the problem and the model decides. A policy that makes
    no decisions gets a record saying the script was not used."""
    if not isinstance(policy, UnifiedPolicy):
        why = f"the {policy.name} policy makes no decisions"
        write(ScriptedDecision(used=False, why=why))
        return

    def answer(request: ChatRequest) -> object:
        if spec.target is not None and not _about(spec.target, request):
            return WAIT
        reply = scripted_reply(spec, [(m.id, m.content) for m in policy.store.active()])
        if reply is None:  # the scenario's premise failed: say so, let the model decide
            problem = f"no active memory holds {spec.target!r}; the model decided"
            fail(f"{EVENT_TYPE} from {armed_at}: {problem}")
            write(ErrorRecord(where=EVENT_TYPE, message=problem))
            return None
        write(ScriptedDecision(used=True, reply=reply, armed_at=armed_at))
        return ChatResponse(reply, model=SCRIPTED_MODEL)

    def unused() -> None:
        why = f"no decision about {spec.target!r} came after it; every decision was the model's"
        write(ScriptedDecision(used=False, armed_at=armed_at, why=why))

    scripted.arm(answer, unused if spec.target is not None else None)


def _about(target: str, request: ChatRequest) -> bool:
    """Whether the decision ``request`` asks for is about ``target``: its new fact names it,
    or says that something ended while a memory holding it is shown."""
    wanted = target.casefold()
    prompt = read_decision_prompt(request.messages[-1].content)
    if wanted in prompt.candidate.casefold():
        return True
    shown = any(wanted in m.content.casefold() for m in prompt.memories)
    return shown and is_ending(prompt.candidate)
