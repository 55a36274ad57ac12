"""Every prompt that can write MEMORY.md is a variant axis: [prompts] slots and `append`."""

from __future__ import annotations

from pathlib import Path

import pytest

from memsys.clock import ManualClock
from memsys.compaction import MemoryCompactor
from memsys.dailylog import DailyLogWriter
from memsys.decisions import SYSTEM_PROMPT, decision_request
from memsys.errors import VariantError
from memsys.llm import Message, Role
from memsys.manager import MemoryManager
from memsys.policies import PolicyContext, make_policy
from memsys.prompts import compaction_prompt, daily_summary_prompt
from memsys.sessions import SessionStore
from memsys.tools import load_variant
from memsys.tools.descriptions import PROMPT_SLOTS
from tests.helpers.fakes import FakeLLM, reply


def _variant(tmp_path: Path, body: str, name: str = "mine") -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text('schema_version = 1\nextends = "v049-guardrails"\n' + body, encoding="utf-8")
    return path


def test_the_shipped_prompt_fix_changes_the_summary_prompt_only() -> None:
    fix, base = load_variant("summary-worked-example"), load_variant("v049-guardrails")
    assert fix.prompts.changed() == ["daily_summary"]
    assert fix.tools == base.tools and base.prompts.changed() == []
    assert "<bullet>" not in fix.prompts.daily_summary  # type: ignore[operator]


def test_slots_are_inherited_through_extends_and_overridden_one_by_one(tmp_path: Path) -> None:
    (tmp_path / "parent.toml").write_text(
        'schema_version = 1\nextends = "v049-guardrails"\n[prompts]\n'
        'compaction = "Shorten:\\n{content}"\nchat_system = "You are Ada."\n',
        encoding="utf-8",
    )
    child = tmp_path / "child.toml"
    child.write_text('extends = "parent"\n[prompts]\nchat_system = "You are Bea."\n')
    prompts = load_variant(str(child)).prompts
    assert (prompts.compaction, prompts.chat_system) == ("Shorten:\n{content}", "You are Bea.")
    assert prompts.changed() == ["compaction", "chat_system"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('[prompts]\ndaily_summary = "Summarize."\n', r"\{transcript\} exactly once \(found 0\)"),
        (
            '[prompts]\ncompaction = "{content} {content}"\n',
            r"\{content\} exactly once \(found 2\)",
        ),
        ('[prompts]\nsummary = "x"\n', r"unknown slot\(s\) \['summary'\].*daily_summary"),
        ('[prompts]\nchat_system = ""\n', "non-empty string"),
        ("prompts = 3\n", r"\[prompts\] must be a table"),
        ('[save_memory]\nappend = "A"\ndescription = "B"\n', "both 'description' and 'append'"),
    ],
)
def test_a_bad_prompt_or_append_names_the_file_and_the_slot(
    tmp_path: Path, body: str, message: str
) -> None:
    path = _variant(tmp_path, body)
    with pytest.raises(VariantError, match=message) as caught:
        load_variant(str(path))
    assert str(path) in str(caught.value)


def test_append_adds_one_paragraph_to_the_inherited_description(tmp_path: Path) -> None:
    path = _variant(tmp_path, '[save_memory]\nappend = "Never save a model name."\n')
    mine, base = load_variant(str(path)), load_variant("v049-guardrails")
    text = mine.tool("save_memory").description
    assert text == base.tool("save_memory").description + "\nNever save a model name."
    assert mine.tool("save_memory").parameters == base.tool("save_memory").parameters


def test_without_a_template_every_prompt_is_the_built_in_one() -> None:
    messages = [Message(Role.USER, "I like tea")]
    assert daily_summary_prompt(messages, None) == daily_summary_prompt(messages)
    assert "LONG_TERM:\n- [<category>] <fact>" in daily_summary_prompt(messages)
    assert compaction_prompt("# M", None).startswith("You are a memory compaction assistant.")
    assert decision_request("x", []).messages[0].content == SYSTEM_PROMPT


def test_each_component_sends_the_variants_text(tmp_path: Path, clock: ManualClock) -> None:
    manager = MemoryManager(tmp_path / "memory", clock)
    summary = FakeLLM([reply("SUMMARY:\n- Tea\nLONG_TERM:\n- none")])
    ctx = PolicyContext(manager, summary, None, lambda _: None)  # type: ignore[arg-type]
    writer = DailyLogWriter(manager, summary, make_policy("guardrails", ctx), "LOG <{transcript}>")
    store = SessionStore()
    session = store.open("s")
    store.add(session, Message(Role.USER, "I like tea"), clock.now())
    writer.flush(session)
    assert summary.requests[0].messages[0].content == "LOG <[user] I like tea>"

    manager.write_long_term_memory("# Long-term Memory\n\n## Notes\n- Likes tea\n")
    compact = FakeLLM([reply("# Long-term Memory\n\n## Notes\n- Likes tea\n")])
    MemoryCompactor(manager, compact, "SHORTEN <{content}>").force_compact()
    sent = compact.requests[0].messages[0].content
    assert sent.startswith("SHORTEN <# Long-term Memory") and sent.endswith("- Likes tea\n>")

    assert decision_request("x", [], "DECIDE").messages[0].content == "DECIDE"
    assert set(PROMPT_SLOTS) == {"daily_summary", "compaction", "decision_system", "chat_system"}
