"""The unified pipeline's decision (seed 004 Tier 1): prompt, reply parser, and the repairs
that make a decision lose nothing.

One call shows the model a candidate fact and the existing memories most like it, each with
its id and the date it was last changed, and asks it to classify the fact (seed 004's
conflict classification) by answering with a letter; the letter is the decision:

======  ========================  ============================================  ===========
answer  relation                  meaning (new fact vs memory [id])             decision
======  ========================  ============================================  ===========
F       transient                 model switch, screenshot, weather, today      NOOP, no id
A       compatible                no memory is about the same thing             ADD
B       same (or subsumed)        the memory already says it                    NOOP id
C       subsumes                  the fact says the memory and adds detail      UPDATE id
D       contradictory, replaced   the memory changed; the fact says how         UPDATE id
E       contradictory, ended      the memory stopped being true, nothing new    DELETE id
======  ========================  ============================================  ===========

The reply also says ``"transient": true/false`` first (a small model judges that better as
a question of its own; true means F whatever the letter). The prompt went through rounds
against the real local model (Qwen2.5-Coder 1.5B): a free ``op`` field drew UPDATE for
nearly everything, an id asked first drew null for nearly everything; letters with one
worked example each, after the options, are what it follows (``memeval bench decisions``
measures it). Replies in the plain form ``{"op": ..., "id": ..., "content": ...,
"relation": ...}`` are read too (the simulated models answer that way).

:func:`parse_decision` is strict about form (anything it cannot read raises
:class:`MalformedOutput`, which the policy turns into a counted no-op that changes nothing)
and forgiving about meaning, so that a decision never drops information and means what it
says. The repairs (an UPDATE or DELETE of a memory not shown or about something else keeps
the fact as an ADD; a DELETE needs an ending, and one whose fact also says what replaced
its target updates it; a passing remark changes no memory; a C that leaves out most of its
target, or a D that shares no word with it, adds the fact beside it; repeats are NOOPs)
are listed, each with the recorded answers it was written after and its price, in
``docs/decision-repairs.md``.

Each repair is named in :attr:`Decision.repair` (words) and :attr:`Decision.repair_kind`
(a :class:`RepairKind` the policy counts and the trace carries), so the trace, the scorers
and the benchmark show it.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from memsys._decision_prompt import (
    CHOICES,
    EXAMPLES,
    SYSTEM_PROMPT,
    Choice,
    DecisionPrompt,
    Operation,
    Relation,
    ShownMemory,
    SimilarMemory,
    read_decision_prompt,
    update_decision_prompt,
)
from memsys.errors import MalformedOutput
from memsys.llm.base import ChatRequest, Message, Purpose, Role
from memsys.subject import SubjectJudge, is_ending, is_passing, key_terms, only_ends

__all__ = [
    "CHOICES",
    "DECISION_MAX_TOKENS",
    "Choice",
    "Decision",
    "DecisionPrompt",
    "Operation",
    "Relation",
    "RepairKind",
    "ShownMemory",
    "SimilarMemory",
    "decision_request",
    "parse_decision",
    "read_decision_prompt",
    "update_decision_prompt",
]

_BY_LETTER = {c.letter: c for c in CHOICES}


class RepairKind(StrEnum):
    """Why a decision was read differently from what it said (module docstring)."""

    UNKNOWN_TARGET = "unknown_target"
    """It named a memory that was not shown (or none)."""
    UNRELATED_TARGET = "unrelated_target"
    """Its UPDATE or DELETE target is about something else than the fact."""
    NOT_AN_ENDING = "not_an_ending"
    """A DELETE whose fact says nothing ended."""
    REPEAT = "repeat"
    """It would store what a memory already says."""
    COPIED_TEXT = "copied_text"
    """Its text copied a memory instead of stating the fact."""
    NOT_SUBSUMED = "not_subsumed"
    """Answer C ("says what memory [id] says and adds details") whose text leaves out most
    of what that memory says."""
    NOT_A_CHANGE = "not_a_change"
    """Answer D ("what memory [id] says has changed") whose text shares no key term with
    that memory: it names no value of the same thing."""
    ENDED_WITH_NEWS = "ended_with_news"
    """A DELETE whose fact also says what replaced its target ("moved to Warmwell; HeatRight
    no longer services it"): an UPDATE, so that nothing new is lost."""
    PASSING_REMARK = "passing_remark"
    """An UPDATE whose fact is a remark about the moment: it changes no lasting memory, and
    is not stored."""
    REFUSED_BY_GUARD = "refused_by_guard"
    """The deletion guard kept a memory the user asked to keep (the policy's repair)."""


@dataclass(frozen=True)
class Decision:
    """A parsed, repaired decision."""

    op: Operation
    """What to do."""
    id: int | None
    """Target memory (UPDATE, DELETE, and a NOOP that reinforces); None otherwise."""
    content: str
    """Text to store for ADD / UPDATE ("" otherwise)."""
    relation: Relation | None = None
    """The classification the model gave, if any."""
    category: str | None = None
    """Category the model gave, if any (the policy falls back to the candidate's)."""
    importance: int | None = None
    """Importance 1-10 the model gave, if any (the policy falls back to a rule)."""
    repair: str | None = None
    """Why the reply was read differently from what it said (see the module docstring)."""
    repair_kind: RepairKind | None = None
    """The kind of that repair."""

    @property
    def guarded_target(self) -> bool:
        """A DELETE or UPDATE aimed at a memory about something else, turned into one that
        leaves that memory alone."""
        return self.repair_kind is RepairKind.UNRELATED_TARGET


DECISION_MAX_TOKENS = 200


def decision_request(
    candidate: str, similar: Sequence[SimilarMemory], system_prompt: str | None = None
) -> ChatRequest:
    """The model call of one decision (the policy and ``memeval bench decisions`` send it):
    the system prompt (a variant's, else the built-in one), each worked example as a user
    turn and the answer, then the case."""
    examples = [
        Message(role, text)
        for example in EXAMPLES
        for role, text in zip((Role.USER, Role.ASSISTANT), example.turns(), strict=True)
    ]
    return ChatRequest(
        (
            Message(Role.SYSTEM, system_prompt or SYSTEM_PROMPT),
            *examples,
            Message(Role.USER, update_decision_prompt(candidate, similar)),
        ),
        purpose=Purpose.UPDATE_DECISION,
        max_tokens=DECISION_MAX_TOKENS,
    )


# -- parsing ---------------------------------------------------------------------------------

_ROLE = "update decision"


def _json_object(reply: str) -> dict[str, object]:
    start = reply.find("{")
    if start < 0:
        raise MalformedOutput(_ROLE, "no JSON object", reply)
    try:
        value, _ = json.JSONDecoder().raw_decode(reply[start:])
    except json.JSONDecodeError as exc:
        raise MalformedOutput(_ROLE, f"not JSON ({exc.msg})", reply) from None
    if not isinstance(value, dict):
        raise MalformedOutput(_ROLE, "not a JSON object", reply)
    return value


def _target(raw: object, reply: str) -> int | None:
    if raw is None or raw == "":
        return None
    if isinstance(raw, str) and raw.strip().isdigit():
        return int(raw)
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw
    raise MalformedOutput(_ROLE, f"id {raw!r} is not an integer", reply)


def parse_decision(
    reply: str,
    candidate: str,
    similar: Sequence[SimilarMemory],
    subject: SubjectJudge | None = None,
) -> Decision:
    """Read a decision reply, then repair it so that it loses nothing (module docstring).

    ``subject`` decides whether the fact and a target are about the same thing (default:
    by shared key terms alone; the policy passes one with its embedder).

    Raises:
        MalformedOutput: no JSON object; neither a known answer letter nor a known op; an
            id that is not an integer; content that is not a string; an UPDATE without text.
    """
    data = _json_object(reply)
    relation, op = _classification(data, reply)
    target = _target(data.get("id"), reply)
    content = data.get("content")
    if content is None:
        content = ""
    if not isinstance(content, str):
        raise MalformedOutput(_ROLE, "content is not a string", reply)
    raw_category = data.get("category")
    category = raw_category if isinstance(raw_category, str) else None
    importance = data.get("importance")
    level = max(1, min(10, importance)) if type(importance) is int else None
    base = Decision(op, target, content.strip(), relation, category, level)
    if relation is Relation.TRANSIENT:
        base = dataclasses.replace(base, id=None, content="")
    judge = subject or SubjectJudge()
    return _repair(base, candidate, {m.id: m.content for m in similar}, reply, judge)


def _classification(data: dict[str, object], reply: str) -> tuple[Relation | None, Operation]:
    """(relation, op) from ``transient`` + ``answer``, else from ``op`` (+ ``relation``)."""
    if data.get("transient") is True:
        return Relation.TRANSIENT, Operation.NOOP
    answer = data.get("answer")
    if answer is not None:
        choice = _BY_LETTER.get(str(answer).strip().upper()[:1])
        if choice is None:
            raise MalformedOutput(_ROLE, f"unknown answer {answer!r}", reply)
        return choice.relation, choice.op
    if data.get("op") is None:
        raise MalformedOutput(_ROLE, "no answer and no op", reply)
    try:
        op = Operation(str(data["op"]).strip().upper())
    except ValueError:
        raise MalformedOutput(_ROLE, f"unknown op {data['op']!r}", reply) from None
    return _enum(Relation, data.get("relation")), op


def _enum(kind: type[Relation], raw: object) -> Relation | None:
    try:
        return kind(str(raw).strip().lower()) if raw is not None else None
    except ValueError:
        return None


_FILLER = frozenset(("a", "an", "the", "as", "of", "user", "user's", "requested"))


def _words(text: str) -> frozenset[str]:
    """What a text says, for the repeat repairs: lower-case words, a few fillers dropped."""
    return frozenset(re.findall(r"[a-z0-9']+", text.lower())) - _FILLER


def _repeated(text: str, shown: dict[int, str]) -> int | None:
    words = _words(text)
    return next((i for i, memory in shown.items() if words and _words(memory) == words), None)


def _repair(
    d: Decision, candidate: str, shown: dict[int, str], reply: str, subject: SubjectJudge
) -> Decision:
    def with_(kind: RepairKind | None = None, **changes: object) -> Decision:
        if kind is not None:
            changes["repair_kind"] = kind
        return dataclasses.replace(d, **changes)  # type: ignore[arg-type]

    fact = candidate.strip()
    if d.op is Operation.ADD:
        known = _repeated(candidate, shown)
        if known is not None:  # the fact is already there: adding it would duplicate it
            repair = "ADD repeats a memory: NOOP"
            return with_(RepairKind.REPEAT, op=Operation.NOOP, id=known, content="", repair=repair)
        copied = _repeated(d.content, shown) if d.content else None
        if copied is not None:  # the model copied a memory's text: keep the new fact
            repair = f"ADD text copies memory {copied}: the fact is added"
            return with_(RepairKind.COPIED_TEXT, id=None, content=fact, repair=repair)
        return with_(id=None, content=d.content or fact)
    if d.op is Operation.NOOP:
        if d.id is not None and d.id not in shown:
            repair = f"NOOP named id {d.id}, which was not shown"
            return with_(RepairKind.UNKNOWN_TARGET, id=None, repair=repair)
        return with_(content="")
    if d.op is Operation.DELETE:
        return _repair_delete(d, candidate, shown, subject)
    if is_passing(candidate):  # "Not drinking coffee today" changes no morning habit
        why = f"UPDATE of memory {d.id}, but the fact is a passing remark: refused, nothing stored"
        return with_(RepairKind.PASSING_REMARK, op=Operation.NOOP, id=None, content="", repair=why)
    if d.id not in shown:
        # The model chose to change a memory it was not shown: keep the new fact instead.
        repair = f"UPDATE named id {d.id}, which was not shown: the fact is added"
        return with_(
            RepairKind.UNKNOWN_TARGET, op=Operation.ADD, id=None, content=fact, repair=repair
        )
    if not d.content:
        raise MalformedOutput(_ROLE, "UPDATE without content", reply)
    if not subject.same_subject(candidate, shown[d.id]):
        repair = f"UPDATE of memory {d.id}, which is about something else: the fact is added"
        return with_(
            RepairKind.UNRELATED_TARGET, op=Operation.ADD, id=None, content=fact, repair=repair
        )
    if _words(d.content) == _words(shown[d.id]):
        repair = "UPDATE repeats its target: NOOP"
        return with_(RepairKind.REPEAT, op=Operation.NOOP, content="", repair=repair)
    said, kept = key_terms(shown[d.id]), key_terms(d.content)
    if d.relation is Relation.SUBSUMES and len(said & kept) * 2 < len(said):
        repair = f"C (subsumes) leaves out most of what memory {d.id} says: the fact is added"
        return with_(
            RepairKind.NOT_SUBSUMED, op=Operation.ADD, id=None, content=fact, repair=repair
        )
    if d.relation is Relation.CONTRADICTORY and said and not said & kept:
        repair = f"D (changed) shares no word with memory {d.id}: the fact is added"
        return with_(
            RepairKind.NOT_A_CHANGE, op=Operation.ADD, id=None, content=fact, repair=repair
        )
    return d


def _repair_delete(
    d: Decision, candidate: str, shown: dict[int, str], subject: SubjectJudge
) -> Decision:
    """A DELETE removes its target only when the fact ends something about it; one that
    cannot keeps the fact as an ADD unless the fact only negates, and one whose fact also
    says what replaced its target updates it instead (module docstring)."""
    ending, passing, only = is_ending(candidate), is_passing(candidate), only_ends(candidate)
    if d.id not in shown or not subject.same_subject(candidate, shown[d.id]):
        kind = RepairKind.UNKNOWN_TARGET if d.id not in shown else RepairKind.UNRELATED_TARGET
        where = "which was not shown" if d.id not in shown else "which is about something else"
        if only or passing:  # it only negates, or only remarks on the moment
            what = "" if only else ", and the fact is a passing remark"
            why = f"DELETE named id {d.id}, {where}{what}: refused, nothing stored"
            return dataclasses.replace(
                d, op=Operation.NOOP, id=None, content="", repair=why, repair_kind=kind
            )
        why = f"DELETE named id {d.id}, {where}: the fact is added"
        return dataclasses.replace(
            d, op=Operation.ADD, id=None, content=candidate.strip(), repair=why, repair_kind=kind
        )
    if not ending or passing:  # a remark about tonight ends no habit
        what = "is a passing remark" if passing else "ends nothing"
        why = f"DELETE of memory {d.id}, but the fact {what}: refused, nothing stored"
        return dataclasses.replace(
            d,
            op=Operation.NOOP,
            id=None,
            content="",
            repair=why,
            repair_kind=RepairKind.NOT_AN_ENDING,
        )
    if not only:  # "Moved to Warmwell; HeatRight no longer services it": keep Warmwell
        why = f"DELETE of memory {d.id}, but the fact also says what replaced it: updated"
        return dataclasses.replace(
            d,
            op=Operation.UPDATE,
            content=candidate.strip(),
            repair=why,
            repair_kind=RepairKind.ENDED_WITH_NEWS,
        )
    return dataclasses.replace(d, content="")
