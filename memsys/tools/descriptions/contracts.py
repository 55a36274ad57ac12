"""Output contracts: what each prompt slot a variant may replace must give the memory system.

A ``[prompts]`` text is sent to a model whose reply a parser then reads; a prompt that never
tells the model the reply's form makes every reply unreadable, and a run of such replies
leaves MEMORY.md empty without any error. Each slot's :class:`OutputContract` says, as data:
the placeholder the text must hold (checked when a variant loads: an error), the words of the
reply format the parser looks for (checked by ``memeval variant check``: a warning naming the
format), the format in a sentence, a reply the parser accepts (a test feeds it to the real
parser, and the built-in prompt must meet its own contract), and what an unparsed reply costs
(the report's "9 of 9 daily summaries unparsed: MEMORY.md got nothing from them").

The parsers are :func:`memsys.prompts.parse_daily_summary`, the compactor's checks
(:mod:`memsys.compaction`) and :func:`memsys.decisions.parse_decision`; when one of them
changes what it reads, its contract here changes with it (the tests fail until it does).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from memsys.registry import Registry

__all__ = ["CONTRACTS", "OutputContract", "builtin_prompt", "contract_problems"]


@dataclass(frozen=True)
class OutputContract:
    """What one prompt slot's text must give the model, and what its reply must hold."""

    slot: str
    """The ``[prompts]`` key."""
    placeholder: str | None
    """What the text must hold exactly once (the memory system's input), or None."""
    markers: tuple[str, ...]
    """Words of the reply format the parser looks for, exactly as it looks for them: a prompt
    that never names one leaves the model to guess it."""
    reply_format: str
    """The reply the parser reads, in a sentence (shown when a prompt misses a marker)."""
    example: str | None
    """A reply the parser accepts (a test parses it), or None when nothing is parsed."""
    role: str | None
    """The reply's role in a :class:`~memsys.errors.MalformedOutput` (``daily summary``) and
    in a run's counts, or None when no reply is parsed."""
    plural: str
    """The replies, counted: ``daily summaries``."""
    lost: str
    """What an unparsed reply costs, after "N of M <plural> unparsed: "."""
    builtin: Callable[[], str]
    """The built-in text the slot replaces, with its placeholder (for ``variant diff``)."""


def _builtin_summary() -> str:
    from memsys.prompts import daily_summary_prompt

    # The built-in prompt ends with the transcript: with none, it ends where it goes.
    return daily_summary_prompt([]) + "{transcript}"


def _builtin_compaction() -> str:
    from memsys.prompts import compaction_prompt

    return compaction_prompt("{content}")


def _builtin_decision() -> str:
    from memsys._decision_prompt import SYSTEM_PROMPT

    return SYSTEM_PROMPT


def _builtin_chat() -> str:
    from memsys.app_messages import BASE_PROMPT

    return BASE_PROMPT


CONTRACTS: Registry[OutputContract] = Registry("prompt slot")
"""Every prompt slot a variant may replace, in ``[prompts]`` order."""
CONTRACTS.add(
    "daily_summary",
    OutputContract(
        slot="daily_summary",
        placeholder="{transcript}",
        markers=("SUMMARY:", "LONG_TERM:"),
        reply_format=(
            "the line 'SUMMARY:', then the day's points as '- ' bullets ('SUMMARY: text' on one "
            "line is read as one point); then the line 'LONG_TERM:', then one "
            "'- [category] fact' per line ('- category: fact', '- category [fact]' and an "
            "untagged '- User requested: fact' are read too; '- none' when nothing qualifies)"
        ),
        example=(
            "SUMMARY:\n- Planned the allotment.\nLONG_TERM:\n- [interests] Grows beans every summer"
        ),
        role="daily summary",
        plural="daily summaries",
        lost="MEMORY.md got nothing from them (nor the daily log)",
        builtin=_builtin_summary,
    ),
)
CONTRACTS.add(
    "compaction",
    OutputContract(
        slot="compaction",
        placeholder="{content}",
        markers=("# Long-term Memory",),
        reply_format=(
            "the whole new MEMORY.md: '# Long-term Memory', each '## Section' once, '- ' "
            "bullets, every 'User requested:' entry kept (else the original is kept)"
        ),
        example=None,  # the compactor has no parser: its checks are in memsys.compaction
        role="compaction",
        plural="compactions",
        lost="the original MEMORY.md was kept",
        builtin=_builtin_compaction,
    ),
)
CONTRACTS.add(
    "decision_system",
    OutputContract(
        slot="decision_system",
        placeholder=None,
        markers=("JSON",),
        reply_format=(
            'one JSON object: {"answer": letter, "id": memory id or null, "content": text}'
        ),
        example='{"answer": "A", "id": null, "content": "Grows beans every summer"}',
        role="update decision",
        plural="unified decisions",
        lost="each was a no-op: MEMORY.md did not change",
        builtin=_builtin_decision,
    ),
)
CONTRACTS.add(
    "chat_system",
    OutputContract(
        slot="chat_system",
        placeholder=None,
        markers=(),
        reply_format="free text; memory changes come as the API's tool calls, not parsed text",
        example=None,
        role=None,
        plural="chat turns",
        lost="nothing was saved",
        builtin=_builtin_chat,
    ),
)


def builtin_prompt(slot: str) -> str:
    """The built-in text of ``slot`` (what the memory system sends when no variant sets it).

    Raises:
        UnknownNameError: not a prompt slot (the message lists them).
    """
    return CONTRACTS.get(slot).builtin()


def contract_problems(slot: str, text: str) -> list[str]:
    """What ``text`` as the ``slot`` prompt fails of its contract's reply format, one
    sentence each naming the format the parser reads; empty when it names every marker.

    Raises:
        UnknownNameError: not a prompt slot.
    """
    contract = CONTRACTS.get(slot)
    missing = [marker for marker in contract.markers if marker not in text]
    if not missing:
        return []
    named = ", ".join(repr(m) for m in missing)
    return [
        f"[prompts] {slot} never names {named}, which the parser looks for in the reply; "
        f"the parser reads {contract.reply_format}. Unparsed {contract.plural}: "
        f"{contract.lost}."
    ]
