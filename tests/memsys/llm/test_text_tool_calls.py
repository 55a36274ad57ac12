"""Recovery of tool calls a model wrote as JSON text, on the shapes Qwen2.5-Coder 1.5B wrote
in the committed cassettes, and on what must stay text."""

from __future__ import annotations

import json

import pytest

from memsys.llm import ChatRequest, ChatResponse, Message, Role, StopReason
from memsys.llm.text_tool_calls import recover_tool_calls, with_text_tool_calls
from memsys.tools.base import ToolDefinition, ToolParameter

TOOLS = {"save_memory", "update_memory", "search_memory"}
SAVE_ARGS = {"content": "I like Sushi Go as a card game", "category": "interests"}
SAVE_JSON = json.dumps({"name": "save_memory", "arguments": SAVE_ARGS}, indent=2)


@pytest.mark.parametrize(
    "text",
    [
        f"```json\n{SAVE_JSON}\n```",
        f"<tools>\n{SAVE_JSON}\n</tools>",
        f"<tool_call>\n{SAVE_JSON}\n</tool_call>",
        SAVE_JSON,
        # The template's doubled braces, copied by the model.
        '{{"name": "save_memory", "arguments": {"content": "I like Sushi Go as a card game", '
        '"category": "interests"}}}',
        # Doubled only where it opens (91 replies in 18 committed 1.5B cells).
        '{{"name": "save_memory", "arguments": {"content": "I like Sushi Go as a card game", '
        '"category": "interests"}}',
        # Arguments as a JSON string, the way the API itself carries them.
        json.dumps({"name": "save_memory", "arguments": json.dumps(SAVE_ARGS)}),
        # Llama-style "parameters" holding the arguments.
        json.dumps({"name": "save_memory", "parameters": SAVE_ARGS}),
    ],
    ids=[
        "json-fence",
        "tools-tags",
        "tool_call-tags",
        "bare",
        "doubled-braces",
        "doubled-opening",
        "str-args",
        "params",
    ],
)
def test_each_written_shape_becomes_one_call(text: str) -> None:
    found = recover_tool_calls(text, TOOLS)
    assert len(found.calls) == 1
    call = found.calls[0]
    assert call.name == "save_memory" and call.id == "text_call_0"
    assert json.loads(call.arguments) == SAVE_ARGS
    assert found.text == ""


def test_calls_among_prose_are_taken_out_and_the_prose_kept() -> None:
    search = json.dumps({"name": "search_memory", "arguments": {"query": "cycling"}})
    text = f"Noted!\n```json\n{SAVE_JSON}\n```\nLet me check.\n```\n{search}\n```\nDone."
    found = recover_tool_calls(text, TOOLS)
    assert [c.name for c in found.calls] == ["save_memory", "search_memory"]
    assert [c.id for c in found.calls] == ["text_call_0", "text_call_1"]
    assert all(c.from_text for c in found.calls)
    assert found.text == "Noted!\n\nLet me check.\n\nDone."


def test_a_bare_call_on_lines_of_its_own_among_prose_is_read_as_a_fenced_one() -> None:
    # As the 1.5B wrote it when sampled (chitchat-transient): the fence left out.
    search = json.dumps({"name": "search_memory", "arguments": {"query": "umbrella"}})
    text = f"To check, I can use the `search_memory` function.\n\n{search}\n\nThis finds it."
    found = recover_tool_calls(text, TOOLS)
    assert [(c.name, json.loads(c.arguments)) for c in found.calls] == [
        ("search_memory", {"query": "umbrella"})
    ]
    assert found.text == "To check, I can use the `search_memory` function.\n\n\n\nThis finds it."
    # Pretty-printed over several lines, with the template's doubled opening brace, then an
    # explanation after it.
    doubled = "{" + SAVE_JSON
    found = recover_tool_calls(f"{doubled}\n\n**Explanation**: a new preference.", TOOLS)
    assert [json.loads(c.arguments) for c in found.calls] == [SAVE_ARGS]
    assert found.text == "**Explanation**: a new preference."


def test_a_list_of_calls_in_one_block() -> None:
    calls = [
        {"name": "save_memory", "arguments": SAVE_ARGS},
        {"name": "update_memory", "arguments": {"old_text": "a", "new_text": "b"}},
    ]
    found = recover_tool_calls(f"```json\n{json.dumps(calls)}\n```", TOOLS)
    assert [c.name for c in found.calls] == ["save_memory", "update_memory"]


@pytest.mark.parametrize(
    "text",
    [
        "Sure, I'll remember that you like Sushi Go.",
        # A tool that was not offered.
        '```json\n{"name": "delete_everything", "arguments": {}}\n```',
        # The tool's definition echoed back (seen under v023-vague): not a call.
        json.dumps(
            {
                "name": "save_memory",
                "parameters": {"type": "object", "properties": {"content": {"type": "string"}}},
            }
        ),
        # A markdown memory file in a fence, as the model writes its compaction.
        "```markdown\n# Long-term Memory\n\n## Preferences\n- Dark mode\n```",
        # JSON that is data, not a call.
        '```json\n{"content": "I like tea"}\n```',
        # A name but no arguments.
        '{"name": "save_memory"}',
        # Broken JSON stays text.
        '```json\n{"name": "save_memory", "arguments": {"content": "x"\n```',
        # Doubled braces with the object left open, or prose after it: still text.
        '{{"name": "save_memory", "arguments": {"content": "x"}',
        '{{"name": "save_memory", "arguments": {"content": "x"}} Saved!',
        # A list mixing a call with something else is not a call block.
        json.dumps([{"name": "save_memory", "arguments": SAVE_ARGS}, {"note": 1}]),
        # One object a line, a "call" to each offered tool (the 0.5B's tool list echoed with
        # values): not a call, though each line alone would read as one.
        '{"name": "save_memory", "arguments": {"content": "x"}}\n'
        '{"name": "update_memory", "arguments": {"old_text": "x", "new_text": ""}}\n'
        '{"name": "search_memory", "arguments": {"query": "x"}}',
        # The same list cut off where the reply ran out of tokens.
        '{"name": "save_memory", "arguments": {"content": "x"}}\n'
        '{"name": "update_memory", "arguments": {"old_text": "x", "new_te',
        # A call inside a sentence is prose that quotes one.
        'Call {"name": "save_memory", "arguments": {"content": "x"}} to save it.',
    ],
    ids=[
        "prose",
        "unknown-tool",
        "echoed-definition",
        "markdown",
        "data",
        "no-args",
        "broken",
        "doubled-left-open",
        "doubled-then-prose",
        "mixed-list",
        "one-per-tool",
        "one-per-tool-cut",
        "inside-a-sentence",
    ],
)
def test_what_is_not_a_call_stays_text(text: str) -> None:
    found = recover_tool_calls(text, TOOLS)
    assert found.calls == () and found.text == text


SAVE = ToolDefinition("save_memory", "Save a fact.", (ToolParameter("content", "The fact."),))


def test_a_response_gains_calls_only_when_tools_were_offered_and_none_were_made() -> None:
    text = f"```json\n{SAVE_JSON}\n```"
    response = ChatResponse(text=text, stop_reason=StopReason.END)
    with_tools = ChatRequest((Message(Role.USER, "hi"),), (SAVE,))
    recovered = with_text_tool_calls(response, with_tools)
    assert [c.name for c in recovered.tool_calls] == ["save_memory"]
    assert recovered.stop_reason is StopReason.TOOL_CALLS and recovered.text == ""
    # No tools offered (a daily summary, a compaction): the text is the answer.
    assert with_text_tool_calls(response, ChatRequest((Message(Role.USER, "hi"),))) is response
