"""What changed in a request that no longer matches its recording, said in the terms a prompt
engineer thinks in: the system prompt's memory block, its relevant memories, a tool result,
an earlier model reply, the tool schemas, the sampling settings.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["what_changed"]

# The injector's section headers (memsys/injector.py): the memory block and the search hits.
_MEMORY_HEADER = "## Long-term Memory (MEMORY.md)"
_RELEVANT_HEADER = "## Relevant Memories"
_ROLE_PART = {
    "tool": "a tool result",
    "user": "a user message",
    "assistant": "an earlier model reply",
    "system": "a system message",
}


def what_changed(recorded: bytes | str | None, new: bytes | str | None) -> str:
    """One line naming the parts of a chat-completions body that differ, recorded -> new."""
    old_body, new_body = _load(recorded), _load(new)
    if old_body is None or new_body is None:
        return "the request body (not JSON)"
    parts: list[str] = []
    parts += _tools_changed(old_body.get("tools"), new_body.get("tools"))
    parts += _messages_changed(old_body.get("messages") or [], new_body.get("messages") or [])
    settings = sorted(
        key
        for key in set(old_body) | set(new_body)
        if key not in {"tools", "messages"} and old_body.get(key) != new_body.get(key)
    )
    if settings:
        parts.append("request settings (" + ", ".join(settings) + ")")
    return "; ".join(parts) if parts else "nothing in the body (method or path)"


def _load(body: bytes | str | None) -> dict[str, Any] | None:
    try:
        value = json.loads(body or b"")
    except (TypeError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def _tools_changed(old: Any, new: Any) -> list[str]:
    if old == new:
        return []
    old_by_name = {_tool_name(t): t for t in old or []}
    new_by_name = {_tool_name(t): t for t in new or []}
    changed = sorted(
        n for n in set(old_by_name) | set(new_by_name) if old_by_name.get(n) != new_by_name.get(n)
    )
    return [f"the tool schemas ({', '.join(changed)})"]


def _tool_name(tool: Any) -> str:
    if isinstance(tool, dict):
        function = tool.get("function")
        if isinstance(function, dict):
            return str(function.get("name"))
        return str(tool.get("name"))
    return "?"


def _messages_changed(old: list[Any], new: list[Any]) -> list[str]:
    parts = []
    for index, (a, b) in enumerate(zip(old, new, strict=False)):
        if a == b:
            continue
        role = b.get("role") if isinstance(b, dict) else None
        if role == "system" and index == 0:
            parts.append(_system_changed(_text(a), _text(b)))
        else:
            parts.append(f"{_ROLE_PART.get(str(role), 'a message')} (message {index + 1})")
        break  # later messages follow from the first difference
    if len(old) != len(new) and not parts:
        more = len(new) - len(old)
        parts.append(f"{abs(more)} {'more' if more > 0 else 'fewer'} messages")
    return parts


def _system_changed(old: str, new: str) -> str:
    """Which part of the chat system prompt differs: rules, memory block or search hits."""
    old_parts, new_parts = _system_parts(old), _system_parts(new)
    names = ("its rules", "its memory block (MEMORY.md)", "its relevant memories (search hits)")
    changed = [name for name, a, b in zip(names, old_parts, new_parts, strict=True) if a != b]
    return "the system prompt: " + ", ".join(changed or ["its text"])


def _system_parts(text: str) -> tuple[str, str, str]:
    memory_at = text.find(_MEMORY_HEADER)
    relevant_at = text.find(_RELEVANT_HEADER)
    end_rules = min(i for i in (memory_at, relevant_at, len(text)) if i >= 0)
    rules = text[:end_rules]
    memory = (
        text[memory_at : relevant_at if relevant_at > memory_at else len(text)]
        if memory_at >= 0
        else ""
    )
    relevant = text[relevant_at:] if relevant_at >= 0 else ""
    return rules, memory, relevant


def _text(message: Any) -> str:
    if isinstance(message, dict):
        content = message.get("content")
        return content if isinstance(content, str) else json.dumps(content)
    return ""
