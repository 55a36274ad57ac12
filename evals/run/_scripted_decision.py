"""The ``script_decision`` event: the unified pipeline's next decision is answered by the
scenario's text instead of the model under test.

:class:`ScriptedDecisions` sits between the run and its model. Armed by the event, it answers
the next update-decision call itself (no model is asked, nothing reaches a cassette) with
what :meth:`ScriptedDecisions.arm`'s ``answer`` returns; every other call goes to the model.
The engine writes a ``scripted_decision`` record when the reply is used, so the decision
that follows in the trace is never taken for the model's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from evals.run._wrapped_client import WrappedClient
from evals.scenario import ID_SLOT, ScriptedDecisionSpec
from evals.trace.records import ErrorRecord, RecordBody, ScriptedDecision
from memsys.llm import ChatRequest, ChatResponse, LLMClient, Purpose
from memsys.policies import WritePolicy
from memsys.policies.unified import UnifiedPolicy

__all__ = ["EVENT_TYPE", "SCRIPTED_MODEL", "ScriptedDecisions", "arm_decision", "scripted_reply"]

EVENT_TYPE = "script_decision"

SCRIPTED_MODEL = "scripted/decision"
"""The name a scripted reply carries instead of a model's."""
Answer = Callable[[], ChatResponse | None]


class ScriptedDecisions(WrappedClient):
    """The model under test, except for the decisions a scenario scripts."""

    def __init__(self, inner: LLMClient) -> None:
        super().__init__(inner)
        self._armed: list[Answer] = []

    @property
    def pending(self) -> int:
        """Scripted decisions not yet asked for."""
        return len(self._armed)

    def arm(self, answer: Answer) -> None:
        """Answer the next update-decision call with ``answer()`` (None: ask the model)."""
        self._armed.append(answer)

    def complete(self, request: ChatRequest) -> ChatResponse:
        """A scripted decision if one is armed for this call, else the model's reply."""
        if request.purpose is Purpose.UPDATE_DECISION and self._armed:
            scripted = self._armed.pop(0)()
            if scripted is not None:
                return scripted
        return self._inner.complete(request)


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
    """Arm ``scripted`` with ``spec`` for ``policy``'s next decision. When it is used,
    ``write`` gets a ``scripted_decision`` record with the reply (no model); when
    its target is gone, ``fail`` gets the problem and the model decides. A policy that makes
    no decisions gets a record saying the script was not used."""
    if not isinstance(policy, UnifiedPolicy):
        why = f"the {policy.name} policy makes no decisions"
        write(ScriptedDecision(used=False, why=why))
        return

    def answer() -> ChatResponse | None:
        reply = scripted_reply(spec, [(m.id, m.content) for m in policy.store.active()])
        if reply is None:  # the scenario's premise failed: say so, let the model decide
            problem = f"no active memory holds {spec.target!r}; the model decided"
            fail(f"{EVENT_TYPE} from {armed_at}: {problem}")
            write(ErrorRecord(where=EVENT_TYPE, message=problem))
            return None
        write(ScriptedDecision(used=True, reply=reply, armed_at=armed_at))
        return ChatResponse(reply, model=SCRIPTED_MODEL)

    scripted.arm(answer)
