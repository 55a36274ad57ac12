"""Lines of memsys's own prompts pasted as MEMORY.md entries: the reader's protocol's "the
template's or the prompt's own words" (rule 1, ``junk``)."""

from __future__ import annotations

import re
from functools import cache

from memsys.prompts import compaction_prompt, daily_summary_prompt
from memsys.tools.descriptions import available_variants, load_variant

__all__ = ["ECHO_WORDS", "echoes_prompt", "is_prompt_text"]

_INSTRUCTION_WORDS = 4
"""A line of memsys's own instructions is recognised from this many words on."""


ECHO_WORDS = 5
"""A sentence holding a run of this many words of one of the tool descriptions' lines echoes
the prompt ("This is a new stable user preference confirmed across 2+ conversations")."""

_QUOTED = re.compile(r"\"[^\"]*\"")
"""A quoted example inside an instruction ('for example "User requested: Always answer in
British English"'): a fact a real user may share, so never prompt text."""


@cache
def _shipped_texts() -> tuple[tuple[str, str], ...]:
    """``(slot, text)`` of every shipped variant (``save_memory``, ``prompts.daily_summary``...),
    each variant file read once for both uses below."""
    return tuple(
        item for name in available_variants() for item in load_variant(name).texts().items()
    )


@cache
def _instruction_lines() -> frozenset[str]:
    """The compaction and daily-summary prompts' own lines (their instructions and the
    standard sections' descriptions, which hold no fact about a user), and every line of the
    shipped tool descriptions ("Important personal context: profession, domain expertise,
    key ongoing projects", their quoted examples taken out), as :func:`_line_key`. Not the variants'
    own background prompts: a worked example's lines are facts about a made-up user."""
    tool_texts = (text for slot, text in _shipped_texts() if not slot.startswith("prompts."))
    text = "\n".join([compaction_prompt(""), daily_summary_prompt([])])
    lines = map(
        _line_key, [*text.splitlines(), *_QUOTED.sub(" ", "\n".join(tool_texts)).splitlines()]
    )
    return frozenset(k for k in lines if len(k.split()) >= _INSTRUCTION_WORDS)


@cache
def _headings() -> frozenset[str]:
    """The headings of the shipped tool descriptions' guardrail texts ("SAVE when:", "DO NOT
    save:"): pasted alone they say nothing. Only headings, not every line: a worked example's
    lines are facts about a made-up user, which a real user may share."""
    return frozenset(
        _line_key(line)
        for _, text in _shipped_texts()
        for line in text.splitlines()
        if line.strip().endswith(":")
    )


def _line_key(text: str) -> str:
    return re.sub(r"^[\s\-*\d.)#]+", "", text).strip().lower()


def is_prompt_text(text: str) -> bool:
    """The entry is one of memsys's prompt lines, or a run of one ("## Projects (ongoing
    projects, tech stack details)", "1. MERGE duplicate entries -- ..."): the template's or
    the prompt's own words, or a heading of a tool description's guardrails ("SAVE when:")."""
    key = _line_key(text)
    if key in _headings():
        return True
    if len(key.split()) < _INSTRUCTION_WORDS:
        return False
    return any(key in line or line in key for line in _instruction_lines())


_RUN_WORD = re.compile(r"[\w+]+")


def _runs(text: str) -> set[tuple[str, ...]]:
    words = _RUN_WORD.findall(text.lower())
    return {tuple(words[i : i + ECHO_WORDS]) for i in range(len(words) - ECHO_WORDS + 1)}


@cache
def _instruction_runs() -> frozenset[tuple[str, ...]]:
    return frozenset(run for line in _instruction_lines() for run in _runs(line))


def echoes_prompt(sentence: str) -> bool:
    """``sentence`` holds a run of :data:`ECHO_WORDS` words of memsys's own instructions: the
    model pasting or paraphrasing its prompt after a line (commentary a reader reads past)."""
    return not _runs(sentence).isdisjoint(_instruction_runs())
