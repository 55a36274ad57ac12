"""The repairs on scripted wrong decisions, without a model: for every case's memories about
something else (``unrelated``), a DELETE and an UPDATE of each; for every throwaway case, a
DELETE of each memory shown. Each goes through :func:`memsys.decisions.parse_decision` with
the policy's subject judge, and the result says whether the memory was left alone and
whether the candidate was stored.

``memeval bench decisions`` reports these beside the model's figures, so a DELETE or UPDATE
of an unrelated memory the repairs let through is listed even when no model made it yet.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from evals.bench._decision_cases import DecisionCase, Pattern
from memsys.decisions import Operation, parse_decision
from memsys.subject import SubjectJudge

__all__ = ["ScriptedTrap", "render_traps", "scripted_traps"]


@dataclass(frozen=True)
class ScriptedTrap:
    """One scripted wrong decision and what the repairs made of it."""

    case: DecisionCase
    op: Operation
    """The scripted operation (DELETE or UPDATE)."""
    memory: int
    """The memory it names."""
    decided: Operation
    """The operation after the repairs."""
    repair_kind: str | None
    """The repair that applied, if any."""
    stored: bool
    """The candidate is stored (ADD) after the repairs."""

    @property
    def caught(self) -> bool:
        """The named memory is left alone."""
        return self.decided not in (Operation.UPDATE, Operation.DELETE)


def _scripted(case: DecisionCase, op: Operation, memory: int) -> str:
    content = case.candidate if op is Operation.UPDATE else ""
    return json.dumps({"op": op.value, "id": memory, "content": content})


def scripted_traps(cases: list[DecisionCase], subject: SubjectJudge) -> list[ScriptedTrap]:
    """Every scripted wrong decision of the cases (module docstring), repaired."""
    scripts = []
    for case in cases:
        wrong = (Operation.UPDATE, Operation.DELETE)
        scripts += [(case, op, m) for m in case.unrelated for op in wrong]
        if case.pattern is Pattern.THROWAWAY:
            scripts += [(case, Operation.DELETE, m.id) for m in case.memories]
    results = []
    for case, op, memory in scripts:
        d = parse_decision(_scripted(case, op, memory), case.candidate, case.shown(), subject)
        kind = d.repair_kind.value if d.repair_kind else None
        results.append(ScriptedTrap(case, op, memory, d.op, kind, d.op is Operation.ADD))
    return results


def render_traps(traps: list[ScriptedTrap]) -> str:
    """The report's section on the scripted wrong decisions."""
    caught = [t for t in traps if t.caught]
    left = [t for t in traps if not t.caught]
    stored = [t for t in traps if t.caught and t.stored and t.case.pattern is Pattern.THROWAWAY]
    lines = [
        "## Repairs on scripted wrong decisions (no model)",
        "",
        "Each memory a case labels `unrelated` gets a scripted UPDATE and DELETE; each "
        "memory shown with a throwaway remark gets a scripted DELETE "
        f"(`evals/bench/decision_traps.py`). Left alone: {len(caught)} of {len(traps)}.",
        "",
        f"DELETEs and UPDATEs of a memory the label does not name, left unrepaired ({len(left)}):",
        "",
    ]
    lines += [
        f"- `{t.case.name}` ({t.case.group}): {t.op.value} of memory {t.memory} stands"
        for t in left
    ]
    lines += [
        "",
        f"Throwaway remarks stored as ADD by a repaired DELETE ({len(stored)}):",
        "",
    ]
    lines += [
        f"- `{t.case.name}`: {t.op.value} of memory {t.memory} -> ADD ({t.repair_kind})"
        for t in stored
    ]
    return "\n".join(lines) + "\n"
