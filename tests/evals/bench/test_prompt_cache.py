"""The prompt-cache layout estimate: what a changed memory block costs in each layout."""

from __future__ import annotations

import json

from evals.bench.prompt_cache import _changed, rendered

TOOLS = [{"type": "function", "function": {"name": "save_memory", "description": "x" * 500}}]


def _body(memory: str, user: str) -> dict[str, object]:
    system = f"You are OneClaw.\n## Long-term Memory (MEMORY.md)\n{memory}"
    return {
        "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
        "tools": TOOLS,
    }


def test_memory_after_the_tools_keeps_the_schemas_in_the_shared_prefix() -> None:
    before, after = _body("- Likes tea", "Hi"), _body("- Likes coffee", "Hi")
    now = _changed(rendered(before, False), rendered(after, False))
    last = _changed(rendered(before, True), rendered(after, True))
    schemas = len(json.dumps(TOOLS[0], sort_keys=True))
    # Today the tool schemas come after the memory block and are evaluated again...
    assert now > schemas
    # ...with the memory block after them, only the memory and the turns are.
    assert last < schemas
    assert rendered(before, True).index("save_memory") < rendered(before, True).index("Likes tea")


def test_an_unchanged_prompt_costs_nothing_and_a_system_less_one_renders() -> None:
    body = _body("- Likes tea", "Hi")
    assert _changed(rendered(body, False), rendered(body, False)) == 0
    summary = {"messages": [{"role": "user", "content": "Summarise"}]}
    assert rendered(summary, True).endswith("<user>Summarise")
    assert rendered(summary, True).count("Summarise") == 1
