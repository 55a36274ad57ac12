"""A chat of several questions recorded into a cassette against the fake server, and replayed
offline: the cassette tests' conversation."""

from __future__ import annotations

from pathlib import Path

from evals.cassettes import (
    CassetteLabel,
    CassetteMissError,
    CassetteMode,
    ResponsePool,
    read_label,
    step,
    use_cassette,
)
from memsys.llm import OPENAI_COMPATIBLE, ChatRequest, Message, OpenAIChatClient, Role

MODEL = "openai-compatible/fake"
SHA = "0" * 64


def chat_label(base_url: str, model: str = MODEL) -> CassetteLabel:
    """A label of the fake server's recording."""
    return CassetteLabel(model, base_url, "2026-03-02", model_sha256=SHA, text_tool_calls=False)


def converse(base_url: str, questions: list[str]) -> None:
    """One call per question, each carrying every earlier question (as a chat history does)."""
    model = OpenAIChatClient("fake", OPENAI_COMPATIBLE, base_url=base_url)
    history: list[Message] = []
    for number, question in enumerate(questions, start=1):
        history.append(Message(Role.USER, question))
        with step(f"day 1 #{number} user"):
            reply = model.complete(ChatRequest(tuple(history)))
        history.append(Message(Role.ASSISTANT, reply.text))


def record_chat(
    path: Path,
    base_url: str,
    questions: list[str],
    pool: ResponsePool | None = None,
    model: str = MODEL,
) -> CassetteLabel | None:
    """Record (or complete, as a cache) the chat into ``path``; its label."""
    with use_cassette(path, CassetteMode.MISSING, label=chat_label(base_url, model), pool=pool):
        converse(base_url, questions)
    return read_label(path)


def replays_chat(path: Path, questions: list[str]) -> bool:
    """The chat replays from ``path`` alone, every recorded call of a branch made."""
    try:
        with use_cassette(path, CassetteMode.REPLAY, play_all=True):
            converse("http://replay.invalid/v1", questions)
    except CassetteMissError:
        return False
    return True
