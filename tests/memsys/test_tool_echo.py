"""Copies of a memory tool's call or reply are no memory: read_echo on the forms the models
wrote (taken from the default run's final files), on every reply the real tools give, and
through the guardrails and unified write paths."""

from __future__ import annotations

from datetime import date
from types import SimpleNamespace

import pytest

from memsys.agent import AssistantLoop
from memsys.llm.base import ToolCall
from memsys.manager import MemoryManager
from memsys.policies import PolicyContext, make_policy
from memsys.policies.unified import _DONE
from memsys.prompts import PromotedFact, unwrap_echoes
from memsys.search import MemorySearch
from memsys.tool_echo import read_echo
from memsys.tools import (
    ReadMemoryTool,
    SaveMemoryTool,
    SearchMemoryTool,
    ToolErrorCode,
    UpdateMemoryTool,
    load_variant,
)
from tests.helpers.fakes import FakeLLM

V049 = load_variant("v049-guardrails")
FACT = "The heating engineer says our boiler is twelve years old."


@pytest.mark.parametrize(
    ("text", "facts", "echo"),
    [
        # render_transcript's form, copied by the daily summary
        (f'[calls: save_memory({{"content": "{FACT}", "category": "notes"}})]', (FACT,), "save"),
        # two calls written as JSON on two lines, the second a read
        (
            f'{{"name": "save_memory", "arguments": {{"content": "{FACT}"}}}}\n'
            '{"name": "read_memory", "arguments": {"type": "object"}}',
            (FACT,),
            "save",
        ),
        (f'save_memory({{"content": "{FACT}", "category": "workflow"}})', (FACT,), "save"),
        # the assistant's words around its call are not the user's fact
        (f'Sure, noted! [calls: save_memory({{"content": "{FACT}"}})]', (FACT,), "save"),
        # a Python-style dict, as a model writes it too
        (f"save_memory({{'content': '{FACT}'}})", (FACT,), "save"),
        (
            f'User requested: {{"name": "save_memory", "arguments": {{"content": "{FACT}"}}}}',
            (f"User requested: {FACT}",),
            "save",
        ),
        (
            "No memories found for 'rain in Manchester'. "
            '[calls: search_memory({"query": "rain in Manchester"})]',
            (),
            "search_memory",
        ),
        ('[calls: search_memory({"query": "night trains to Vienna"})]', (), "search_memory"),
        # a call cut off where the summary ran out of tokens: its content only if it closed
        (
            f'{{{{"name": "save_memory", "arguments": {{"content": "{FACT}", "categ',
            (FACT,),
            "save",
        ),
        ('{{"name": "save_memory", "arguments": {"content": "I prefer Astro and Net', (), "save"),
        ('- [profile] {"name": "save_memory', (), "save"),
        ('{"name": "search_memory", "arguments": {"query": "tr', (), "search_memory"),
        ("Memory saved successfully. Current MEMORY.md content (for reference", (), "reply"),
        ("Error [tool_failed]: not executed: this turn reached its limit", (), "reply"),
        ("Found 2 result(s) for 'My blood type': 1. [MEMORY.md:7] O negative.", (), "reply"),
    ],
)
def test_copies_of_calls_and_replies_are_read_as_such(
    text: str, facts: tuple[str, ...], echo: str
) -> None:
    reading = read_echo(text)
    assert reading.facts == facts
    assert reading.echo is not None and echo in reading.echo.replace("memory tool's ", "")


@pytest.mark.parametrize(
    "text",
    [
        "Prefers dark mode in every editor.",
        "To save a note, the user can ask me to use the save_memory tool.",  # prose, no call
        "Found a great café near the office.",  # "Found" without a result count
        '{"name": "calm", "arguments": {"content": "Calm and sunny."}}',  # no memory tool
        "Error handling in the payments service is the user's current project.",
        'Calls the tool "name": "save_memory" by hand',  # no opening brace: prose
    ],
)
def test_text_that_only_mentions_a_tool_is_left_as_it_is(text: str) -> None:
    assert read_echo(text).facts == (text,)
    assert read_echo(text).echo is None


def test_every_reply_the_real_tools_give_is_recognised(manager: MemoryManager) -> None:
    save = SaveMemoryTool(manager, sectioned=True)
    update = UpdateMemoryTool(manager)
    read = ReadMemoryTool(manager)
    search = MemorySearch(manager.memory_dir, None)
    manager.add_listener(search)
    find = SearchMemoryTool(search, lambda: date(2026, 3, 2))
    replies = [
        read.execute({}),  # empty file
        find.execute({"query": "kayak"}),  # nothing found
        save.execute({"content": "Prefers dark mode in every editor"}),
        save.execute({"content": "Prefers dark mode in every editor"}),  # duplicate
        save.execute({"content": ""}),  # validation error
        find.execute({"query": "dark mode"}),  # found
        update.execute({"old_text": "dark mode", "new_text": "light mode"}),
        update.execute({"old_text": "no such text", "new_text": "x"}),
        update.execute({"old_text": "light mode", "new_text": ""}),  # deleted
    ]
    texts = [r.for_model() for r in replies]
    texts += [t.format(id=3) for t in _DONE.values()]
    # the loop's reply to a call past its round limit
    over = AssistantLoop._not_run(SimpleNamespace(_max_rounds=5), ToolCall("c1", "x", "{}"))  # type: ignore[arg-type]
    texts.append(over.content)
    for text in texts:
        assert read_echo(text).echo is not None, text
        assert read_echo(text).facts == (), text


def test_save_memory_keeps_the_fact_of_a_copied_call_and_refuses_a_copied_reply(
    manager: MemoryManager,
) -> None:
    save = SaveMemoryTool(manager, sectioned=True)
    assert save.execute({"content": f'save_memory({{"content": "{FACT}"}})'}).ok
    refused = save.execute({"content": "Memory saved successfully."})
    assert not refused.ok and refused.code is ToolErrorCode.VALIDATION_ERROR
    assert "is a copy of a memory tool's reply" in refused.message
    two = f'{{"name": "save_memory", "arguments": {{"content": "{FACT}"}}}} ' * 2
    two = two.replace(FACT, "Lives in Lisbon", 1)
    assert "holds 2 copied save_memory calls" in save.execute({"content": two}).message
    memory = manager.read_long_term_memory()
    assert f"- {FACT}" in memory
    assert "save_memory" not in memory and "Memory saved" not in memory


def test_guardrails_promotes_what_a_copied_call_holds_and_counts_a_copied_reply(
    manager: MemoryManager,
) -> None:
    ctx = PolicyContext(manager, FakeLLM([]), None, lambda _: None)
    with make_policy("guardrails", ctx) as policy:
        policy.promote(
            [
                PromotedFact("notes", f'[calls: save_memory({{"content": "{FACT}"}})]'),
                PromotedFact("notes", "Error [not_found]: The specified text was not found."),
            ]
        )
        assert policy.counters == {"promotion_saved": 1, "promotion_validation_error": 1}
    memory = manager.read_long_term_memory()
    assert f"- {FACT}" in memory and "Error [" not in memory and "[calls:" not in memory


def test_unified_drops_a_copied_reply_before_any_decision(manager: MemoryManager) -> None:
    llm = FakeLLM([])  # no reply scripted: a decision request would fail the test
    ctx = PolicyContext(manager, llm, None, lambda _: None)
    with make_policy("unified", ctx) as policy:
        policy.promote([PromotedFact("notes", "Memory saved (ADD).")])
        assert policy.counters == {"tool_echoes_dropped": 1}
    assert llm.requests == []


def test_unwrap_echoes_splits_a_fact_holding_two_saves() -> None:
    two = (
        f'{{"name": "save_memory", "arguments": {{"content": "{FACT}"}}}}\n'
        '{"name": "save_memory", "arguments": {"content": "Lives in Lisbon"}}'
    )
    unwrapped = unwrap_echoes([PromotedFact("profile", two), PromotedFact("notes", "Plays chess")])
    assert [(f.category, f.text) for f in unwrapped] == [
        ("profile", FACT),
        ("profile", "Lives in Lisbon"),
        ("notes", "Plays chess"),
    ]
