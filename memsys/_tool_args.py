"""Parse and check a model's tool-call arguments before any tool sees them.

Every way the raw JSON text can be wrong becomes a :class:`ToolResult` error the model can
read and act on; nothing here raises.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from memsys.tools.base import ToolDefinition, ToolErrorCode, ToolResult

__all__ = ["ParsedArguments", "parse_arguments"]

LENIENT_NOTE = (
    "arguments contained raw control characters (e.g. newlines) inside JSON strings; "
    "accepted by a lenient parse (json.loads(strict=False))"
)

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
    "null": (type(None),),
}


@dataclass(frozen=True)
class ParsedArguments:
    """Outcome of parsing one call's arguments: either ``arguments`` or ``error``."""

    arguments: Mapping[str, object] | None
    """The checked arguments (None when they were rejected)."""
    error: ToolResult | None = None
    """Why they were rejected."""
    note: str | None = None
    """Set when the arguments were accepted only after a lenient parse."""


def _invalid(message: str) -> ParsedArguments:
    return ParsedArguments(None, ToolResult.error(ToolErrorCode.INVALID_ARGUMENTS, message))


def parse_arguments(
    raw: str, definition: ToolDefinition, *, truncated: bool, max_tokens: int
) -> ParsedArguments:
    """Decode ``raw`` (a JSON object) and check it against ``definition``'s parameters.

    Args:
        raw: The arguments as the model emitted them ("" means no arguments).
        definition: The called tool.
        truncated: The model stopped at its output limit, so broken JSON is a cut-off.
        max_tokens: The output limit, named in the cut-off message.
    """
    note = None
    text = raw.strip() or "{}"
    try:
        value = json.loads(text)
    except ValueError as strict_error:
        try:
            value = json.loads(text, strict=False)
        except ValueError:
            if truncated:
                return _invalid(
                    f"The arguments of {definition.name} are incomplete JSON: the reply was "
                    f"cut off at the output limit (max_tokens={max_tokens}) before the call "
                    "ended. Nothing was executed. Send the call again with shorter arguments."
                )
            return _invalid(
                f"The arguments of {definition.name} are not valid JSON ({strict_error}). "
                "Nothing was executed. Send a JSON object, e.g. "
                f"{_example(definition)}."
            )
        note = LENIENT_NOTE
    if not isinstance(value, dict):
        return _invalid(
            f"The arguments of {definition.name} must be a JSON object, got "
            f"{_json_kind(value)}. Nothing was executed. Example: {_example(definition)}."
        )
    problem = _check(value, definition)
    if problem:
        return _invalid(f"{problem} Nothing was executed. Example: {_example(definition)}.")
    optional = {p.name for p in definition.parameters if not p.required}
    # A null optional parameter means "not given", which every tool already handles.
    cleaned = {k: v for k, v in value.items() if not (v is None and k in optional)}
    for param in definition.parameters:
        if param.if_absent is not None and cleaned.get(param.name) is None:
            cleaned[param.name] = param.if_absent
    return ParsedArguments(cleaned, note=note)


def _check(value: Mapping[str, object], definition: ToolDefinition) -> str | None:
    known = {p.name: p for p in definition.parameters}
    unknown = sorted(set(value) - set(known))
    if unknown:
        accepted = ", ".join(known) or "none"
        return (
            f"{definition.name} has no parameter(s) {', '.join(map(repr, unknown))}; "
            f"accepted parameters: {accepted}."
        )
    missing = [
        p.name
        for p in definition.parameters
        if p.required and p.if_absent is None and p.name not in value
    ]
    if missing:
        return f"{definition.name} is missing required parameter(s): {', '.join(missing)}."
    for name, item in value.items():
        param = known[name]
        if item is None and (not param.required or param.if_absent is not None):
            continue
        expected = _JSON_TYPES.get(param.type)
        if expected is None:
            continue
        is_bool = isinstance(item, bool)
        if not isinstance(item, expected) or (is_bool and param.type in ("integer", "number")):
            return (
                f"Parameter {name!r} of {definition.name} must be a {param.type}, "
                f"got {_json_kind(item)}."
            )
    return None


def _json_kind(value: object) -> str:
    names = {
        str: "a string",
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        list: "an array",
        dict: "an object",
    }
    return "null" if value is None else names.get(type(value), type(value).__name__)


def _example(definition: ToolDefinition) -> str:
    sample = {"string": "...", "integer": 1, "number": 1.0, "boolean": True}
    example = {p.name: sample.get(p.type, "...") for p in definition.parameters if p.required}
    return json.dumps(example)
