"""``sim/careful``: follows the RFC-049 guardrails as well as keyword rules can.

Saves explicit requests (prefixed "User requested:"), profile facts, and preferences only
once confirmed (seen before in this conversation or in a recalled daily log); updates an
existing entry on a correction; skips model switches, screenshot details and small talk;
compacts by dropping transient lines, merging near-duplicates and sorting into sections.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from memsys.compaction import USER_REQUESTED_PREFIX
from memsys.llm.base import ChatRequest
from memsys.llm.sim._base import (
    SIM_MODELS,
    ChatView,
    SimModel,
    chat_view,
    decision_input,
    last_user_prompt,
    sections_document,
    transcript_users,
)
from memsys.llm.sim._rules import Kind, category_of, classify, jaccard, to_fact
from memsys.sections import parse_entries, section_for_category

__all__ = ["CarefulSim"]

Calls = Sequence[tuple[str, dict[str, object]]]
SAME = 0.6
"""Word overlap at which two entries say the same thing."""
RELATED = 0.3
"""Word overlap at which a correction targets an entry."""
_TRANSIENT = re.compile(
    r"\b(switched (?:the )?(?:default )?model|screenshot shows|rug|"
    r"wallpaper|today's task|currently working)\b",
    re.I,
)


def _best(fact: str, entries: Sequence[str]) -> tuple[float, str | None]:
    scored = [(jaccard(fact, e), e) for e in entries]
    return max(scored, default=(0.0, None))


@SIM_MODELS.decorator("sim/careful")
class CarefulSim(SimModel):
    """Follows the guardrails."""

    # -- chat ---------------------------------------------------------------------------------

    def _chat(self, request: ChatRequest) -> tuple[str, Calls]:
        view = chat_view(request)
        if view.answering_tool_results or "save_memory" not in view.tool_names:
            return "Done.", []
        kind = classify(view.user_text)
        fact = to_fact(view.user_text)
        calls = self._decide(view, kind, fact)
        return ("Noted." if calls else "Understood."), calls

    def _decide(self, view: ChatView, kind: Kind, fact: str) -> Calls:
        if kind in (Kind.MODEL_SWITCH, Kind.OTHER):
            return []
        score, entry = _best(fact, view.memory_entries)
        if score >= SAME:
            return []  # already known: the guardrails say do not duplicate
        if kind is Kind.CORRECTION and entry is not None and score >= RELATED:
            if "update_memory" in view.tool_names:
                prefix = (
                    USER_REQUESTED_PREFIX + " " if entry.startswith(USER_REQUESTED_PREFIX) else ""
                )
                return [("update_memory", {"old_text": entry, "new_text": prefix + fact})]
            return [("save_memory", {"content": fact, "category": category_of(fact)})]
        if kind is Kind.PREFERENCE and not self._confirmed(view, fact):
            return []  # a single mention is not a stable preference yet
        content = f"{USER_REQUESTED_PREFIX} {fact}" if kind is Kind.EXPLICIT else fact
        return [("save_memory", {"content": content, "category": category_of(fact)})]

    @staticmethod
    def _confirmed(view: ChatView, fact: str) -> bool:
        earlier = [to_fact(u) for u in view.earlier_user_texts] + list(view.relevant)
        return _best(fact, earlier)[0] >= SAME - 0.1

    # -- background roles ---------------------------------------------------------------------

    def _summary(self, request: ChatRequest) -> tuple[str, Calls]:
        users = transcript_users(last_user_prompt(request))
        bullets, facts = [], []
        for i, text in enumerate(users):
            kind = classify(text)
            if kind is Kind.MODEL_SWITCH:
                continue
            fact = to_fact(text)
            bullets.append(f"- User: {fact[:160]}")
            repeated = any(jaccard(fact, to_fact(u)) >= SAME for u in users[:i])
            if kind is Kind.PROFILE or (kind is Kind.PREFERENCE and repeated):
                line = f"- [{category_of(fact)}] {fact}"
                if line not in facts:
                    facts.append(line)
        summary = "SUMMARY:\n" + "\n".join(bullets or ["- Small talk only"])
        return summary + "\nLONG_TERM:\n" + "\n".join(facts or ["- none"]), []

    def _compaction(self, request: ChatRequest) -> tuple[str, Calls]:
        prompt = last_user_prompt(request)
        body = prompt.split("MEMORY.md:\n\n", 1)[-1].split("\n\n## Instructions", 1)[0]
        kept: list[tuple[str, str]] = []
        for entry in parse_entries(body):
            text = entry.text
            if _TRANSIENT.search(text) and not text.startswith(USER_REQUESTED_PREFIX):
                continue
            duplicate = next((i for i, (_, k) in enumerate(kept) if jaccard(text, k) >= SAME), None)
            if duplicate is not None:
                # keep the later wording, but never lose the user's explicit request prefix
                if kept[duplicate][1].startswith(USER_REQUESTED_PREFIX):
                    continue
                kept.pop(duplicate)
            section = entry.section if entry.section and entry.section != "Notes" else None
            kept.append((section or section_for_category(category_of(text)).value, text))
        return sections_document(kept), []

    def _decision(self, request: ChatRequest) -> tuple[str, Calls]:
        data = decision_input(last_user_prompt(request))
        candidate = data.candidate
        op: dict[str, object] = {
            "op": "ADD",
            "id": None,
            "content": candidate,
            "category": category_of(candidate),
            "importance": 5,
        }
        best = max(data.memories, key=lambda m: jaccard(candidate, m.content), default=None)
        overlap = jaccard(candidate, best.content) if best else 0.0
        if _TRANSIENT.search(candidate) or classify(candidate) is Kind.MODEL_SWITCH:
            op = {"op": "NOOP", "id": None, "content": "", "importance": 1}
        elif best is not None and overlap >= SAME:
            op = {"op": "NOOP", "id": best.id, "content": "", "importance": 5}
        elif best is not None and overlap >= RELATED:
            op.update(op="UPDATE", id=best.id)
        if candidate.startswith(USER_REQUESTED_PREFIX):
            op["importance"] = 9
        elif op.get("category") == "profile":
            op["importance"] = 8
        return json.dumps(op, ensure_ascii=False), []
