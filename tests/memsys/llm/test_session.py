"""SessionModel: one switch reaches chat, daily logs and compaction alike."""

from __future__ import annotations

from memsys.compaction import MemoryCompactor
from memsys.llm import ChatRequest, Message, ModelKind, Role, SessionModel
from memsys.manager import MemoryManager
from tests.helpers.fakes import FakeLLM, reply

COMPACTED = "# Long-term Memory\n\n## Preferences\n- Prefers light mode in all apps, always\n"


def test_calls_go_to_the_current_model_and_switch_returns_the_previous() -> None:
    first = FakeLLM([reply("from first")], name="fake/first")
    second = FakeLLM([reply("from second")], name="fake/second", kind=ModelKind.REAL)
    session = SessionModel(first)
    request = ChatRequest((Message(Role.USER, "hi"),))
    assert session.complete(request).text == "from first"
    assert session.switch(second) is first
    assert (session.name, session.kind, session.current) == ("fake/second", ModelKind.REAL, second)
    assert session.complete(request).text == "from second"
    assert len(first.requests) == len(second.requests) == 1


def test_compaction_uses_the_session_model_after_a_switch_feat049_compaction_rule_3(
    manager: MemoryManager,
) -> None:
    """FEAT-049 compaction rule 3: "Compaction uses the same LLM model as the active chat
    session"; the compactor holds the session model, so a switch redirects it."""
    chat, other = FakeLLM([], name="fake/chat"), FakeLLM([reply(COMPACTED)], name="fake/other")
    session = SessionModel(chat)
    compactor = MemoryCompactor(manager, session)
    manager.write_long_term_memory("- Prefers dark mode in all apps\n- Prefers light mode\n")
    session.switch(other)
    assert compactor.model == "fake/other"
    assert compactor.force_compact().compacted
    assert chat.requests == [] and len(other.requests) == 1
