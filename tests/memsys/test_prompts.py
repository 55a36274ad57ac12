"""The daily-summary prompt and its parser (FEAT-013), as far as the seeds fix them."""

from __future__ import annotations

from memsys.llm.base import Message, Role
from memsys.prompts import daily_summary_prompt, parse_daily_summary


def test_the_daily_summary_asks_for_the_user_requested_prefix() -> None:
    """FEAT-049 compaction rule 6 protects entries with the "User requested:" prefix; the
    summariser is told to write it for explicit requests (the chat model is told by the
    v049-user-requested variant)."""
    prompt = daily_summary_prompt([Message(Role.USER, "Remember that I'm allergic to shellfish")])
    assert (
        "anything the user explicitly asked to remember (prefix those with 'User requested: ')"
        in prompt
    )
    summary = parse_daily_summary(
        "SUMMARY:\n- Talked about food\nLONG_TERM:\n- [notes] User requested: allergic to shellfish"
    )
    assert summary.facts[0].text == "User requested: allergic to shellfish"
