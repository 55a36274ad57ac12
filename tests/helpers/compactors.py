"""The compaction models the memory-dir state machine draws from: the careful simulation and
three scripted bad ones (a reply too short to keep, one that drops every "User requested:"
entry and pads itself with blank lines, and a transport error)."""

from __future__ import annotations

from collections.abc import Callable

from memsys.errors import LLMTransportError
from memsys.llm.sim import CarefulSim
from tests.helpers.fakes import FakeLLM, reply

__all__ = ["COMPACTORS", "compactor_model"]


def _dropping_user_requested(text: str) -> FakeLLM:
    kept = [line for line in text.splitlines() if "User requested:" not in line]
    return FakeLLM([reply("# Long-term Memory\n\n## Notes\n" + "\n".join(kept) + "\n" * 60)])


_BUILDERS: dict[str, Callable[[str], CarefulSim | FakeLLM]] = {
    "sim/careful": lambda _text: CarefulSim("sim/careful"),
    "short reply": lambda _text: FakeLLM([reply("# Long-term Memory\n")]),
    "drops user requested": _dropping_user_requested,
    "model error": lambda _text: FakeLLM([LLMTransportError("connection reset")]),
}

COMPACTORS = tuple(_BUILDERS)
"""Their names."""


def compactor_model(kind: str, text: str) -> CarefulSim | FakeLLM:
    """A fresh model of ``kind`` for compacting MEMORY.md's ``text``."""
    return _BUILDERS[kind](text)
