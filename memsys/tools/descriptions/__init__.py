"""Tool descriptions as data: one TOML file per variant, loadable by name or path.

A root variant gives, per tool, the description and the description of each parameter the
tool exposes: it fixes the tools' schemas. A variant that says ``extends = "other"`` (a
shipped name, a name next to the file, or a ``.toml`` path relative to it) inherits every
tool with all its parameters and changes only text: a tool table may give just
``description``, or just ``[tool.parameters] name = "..."`` for one parameter. It cannot add,
drop or misspell a parameter or tool (an error naming the file says which exist), so a
one-line wording change never changes what the model may send. A root variant (no
``extends``) fixes the schemas, so it must describe every tool and exactly the parameters the
tools' code reads (:data:`TOOL_PARAMETERS`): a file that gives ``save_memory`` only a
description is refused instead of silently offering a tool without parameters.

A tool table may also give ``append`` instead of the whole ``description``: a paragraph added
after the inherited description, so a one-line change needs one line.

Every other prompt that can write MEMORY.md is a variant axis too, in a ``[prompts]`` table
(:data:`PROMPT_SLOTS`): ``daily_summary`` (must contain ``{transcript}`` once),
``compaction`` (``{content}`` once), ``decision_system`` (the unified pipeline's system
prompt) and ``chat_system`` (the chat system prompt's memory instructions, before the injected
memory). A slot a variant does not give is inherited through ``extends``; unset everywhere, the
memory system sends today's built-in prompt, byte for byte. Each slot has an output contract
(:mod:`memsys.tools.descriptions.contracts`): its placeholder, checked here, and the reply
format its parser reads, which :meth:`Variant.contract_problems` checks for ``memeval variant
check``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from memsys._parse_limits import ParseLimits, load_input
from memsys.errors import InputFileError, UnknownNameError, VariantError
from memsys.registry import Registry
from memsys.tools.base import (
    DescribedTool,
    ToolAction,
    ToolDefinition,
    ToolParameter,
    ToolSignature,
)
from memsys.tools.descriptions.contracts import CONTRACTS, contract_problems

__all__ = [
    "DEFAULT_VARIANT",
    "MAX_VARIANT_BYTES",
    "PROMPT_SLOTS",
    "TOOL_PARAMETERS",
    "VARIANTS",
    "PromptTexts",
    "ToolText",
    "Variant",
    "VariantError",
    "available_variants",
    "load_variant",
    "variant_path",
]

DEFAULT_VARIANT = "v049-guardrails"
MAX_VARIANT_BYTES = 256 << 10
"""The shipped variants are under 4 KB; a variant file past this is refused unread."""
VARIANT_LIMITS = ParseLimits(max_bytes=MAX_VARIANT_BYTES, max_nodes=10_000, max_depth=8)
"""A variant is tables of strings two or three levels deep: 6 KB of arrays 3,000 deep (a
``RecursionError`` in the TOML parser) is refused as too deeply nested."""
_DIR = Path(__file__).parent
_TOOL_KEYS = frozenset({"description", "append", "parameters"})

PROMPT_SLOTS: dict[str, str | None] = {c.slot: c.placeholder for c in CONTRACTS}
"""Prompt slot -> the placeholder its text must hold exactly once (None: no placeholder),
from the slots' output contracts."""

TOOL_PARAMETERS: dict[str, frozenset[str]] = {
    "save_memory": frozenset({"content", "category"}),
    "update_memory": frozenset({"old_text", "new_text"}),
    "read_memory": frozenset(),
    "search_memory": frozenset({"query"}),
}
"""Every memory tool and the arguments its code reads: what a root variant must describe."""


@dataclass(frozen=True)
class ToolText:
    """The text one variant gives one tool."""

    description: str
    """Tool description."""
    parameters: tuple[tuple[str, str], ...]
    """(parameter name, parameter description), in the root variant's order."""


@dataclass(frozen=True)
class PromptTexts:
    """The background prompts a variant replaces; None sends the built-in prompt."""

    daily_summary: str | None = None
    """Daily-log summary and promotion prompt, with ``{transcript}``."""
    compaction: str | None = None
    """Compaction prompt, with ``{content}`` (RFC-049's text when None)."""
    decision_system: str | None = None
    """System prompt of the unified pipeline's ADD/UPDATE/DELETE/NOOP decisions."""
    chat_system: str | None = None
    """The chat system prompt's memory instructions (before the injected memory)."""

    def changed(self) -> list[str]:
        """Names of the slots this variant (with what it extends) replaces."""
        return [slot for slot in PROMPT_SLOTS if getattr(self, slot) is not None]


@dataclass(frozen=True)
class Variant:
    """A named set of tool descriptions."""

    name: str
    """Variant name (file stem); run directories and cassettes use it."""
    summary: str
    """One line saying what the variant is."""
    tools: dict[str, ToolText]
    """Tool name -> its text."""
    path: Path | None = None
    """The file it was read from."""
    extends: str | None = None
    """Name of the variant it extends, if any."""
    prompts: PromptTexts = PromptTexts()
    """Background prompts it replaces (see :data:`PROMPT_SLOTS`)."""

    def digest(self) -> str:
        """SHA-256 of the text the variant sends (each tool's description and parameter
        descriptions, each prompt slot), as canonical JSON: two files with the same text have
        the same digest, whatever their names; one changed character changes it."""
        text = {
            "tools": {
                n: [t.description, [list(p) for p in t.parameters]] for n, t in self.tools.items()
            },
            "prompts": {slot: getattr(self.prompts, slot) for slot in PROMPT_SLOTS},
        }
        canonical = json.dumps(text, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()

    def texts(self) -> dict[str, str]:
        """Every text the variant gives a model, by where it goes (``save_memory``,
        ``save_memory.content``, ``prompts.daily_summary``...); a prompt slot it does not
        set is ``(built-in)``."""
        out: dict[str, str] = {}
        for tool, text in self.tools.items():
            out[tool] = text.description
            out.update({f"{tool}.{name}": desc for name, desc in text.parameters})
        for slot in PROMPT_SLOTS:
            out[f"prompts.{slot}"] = getattr(self.prompts, slot) or "(built-in)"
        return out

    def contract_problems(self) -> list[str]:
        """Each prompt slot this variant sets (itself or through ``extends``) whose text
        never names the reply format its parser reads, one sentence each naming the format
        (:func:`~memsys.tools.descriptions.contracts.contract_problems`)."""
        return [
            problem
            for slot in self.prompts.changed()
            for problem in contract_problems(slot, getattr(self.prompts, slot))
        ]

    def define(self, signature: ToolSignature) -> ToolDefinition:
        """The definition the model gets of the tool with ``signature``: this variant's
        description and parameter descriptions, the signature's requiredness and timeout."""
        text = self.tool(signature.name)
        params = tuple(
            ToolParameter(
                name,
                description,
                required=name not in signature.optional,
                if_absent=signature.if_absent.get(name),
            )
            for name, description in text.parameters
        )
        return ToolDefinition(
            signature.name, text.description, params, timeout_seconds=signature.timeout_seconds
        )

    def describe(self, action: ToolAction) -> DescribedTool:
        """``action`` as the assistant loop offers it, in this variant's words: the one place
        a tool's code meets its description."""
        return DescribedTool(self.define(action.signature), action)

    def tool(self, name: str) -> ToolText:
        """The text of tool ``name``."""
        try:
            return self.tools[name]
        except KeyError:
            raise UnknownNameError(
                f"tool in variant {self.name!r}", name, list(self.tools)
            ) from None


VARIANTS: Registry[Path] = Registry("description variant")
"""Shipped variants by name: every ``.toml`` file of this directory, under its stem."""
for _file in sorted(_DIR.glob("*.toml")):
    VARIANTS.add(_file.stem, _file)


def available_variants() -> list[str]:
    """Names of the shipped variants."""
    return sorted(VARIANTS.names())


def variant_path(name_or_path: str) -> Path:
    """The file of a shipped variant name, or ``name_or_path`` itself when it ends in .toml.

    Raises:
        UnknownNameError: not a shipped name (the message lists them).
        VariantError: a ``.toml`` path that does not exist.
    """
    if name_or_path.endswith(".toml"):
        path = Path(name_or_path)
        if not path.is_file():
            raise VariantError(path, "no such variant file")
        return path
    return VARIANTS.get(name_or_path)


def load_variant(name_or_path: str) -> Variant:
    """Load a shipped variant by name, or any variant file by (absolute or relative) path."""
    return _load(variant_path(name_or_path).resolve(), seen=())


def _base_path(path: Path, base: str) -> Path:
    if base.endswith(".toml"):
        return (path.parent / base).resolve()
    local = path.parent / f"{base}.toml"
    return local if local.is_file() else _DIR / f"{base}.toml"


def _load(path: Path, seen: tuple[Path, ...]) -> Variant:
    if path in seen:
        raise VariantError(path, "'extends' forms a cycle")
    try:
        # The size limit applies while reading; a FIFO or device is refused unread.
        data = load_input(path, "toml", VARIANT_LIMITS, pipes=False)
    except InputFileError as exc:
        raise VariantError(path, exc.problem) from None
    base_name = data.pop("extends", None)
    base: Variant | None = None
    if base_name is not None:
        if not isinstance(base_name, str):
            raise VariantError(path, "'extends' must be a variant name or .toml path")
        base_path = _base_path(path, base_name)
        if not base_path.is_file():
            raise VariantError(
                path,
                f"extends {base_name!r}, which is neither next to it nor shipped "
                f"({', '.join(available_variants())})",
            )
        base = _load(base_path.resolve(), (*seen, path))
    summary = str(data.pop("summary", ""))
    data.pop("schema_version", None)
    prompts = _prompt_texts(path, data.pop("prompts", {}), base.prompts if base else PromptTexts())
    tools = dict(base.tools) if base else {}
    for tool_name, table in data.items():
        if not isinstance(table, dict):
            raise VariantError(path, f"[{tool_name}] must be a table")
        if base is not None and tool_name not in base.tools:
            raise VariantError(
                path,
                f"[{tool_name}] is not a tool of {base.name!r} (it has: {', '.join(base.tools)})",
            )
        inherited = base.tools[tool_name] if base is not None else None
        tools[tool_name] = _tool_text(path, tool_name, table, inherited)
    if base is None:
        _check_root_schema(path, tools)
    return Variant(path.stem, summary, tools, path, base.name if base else None, prompts)


def _prompt_texts(path: Path, table: object, inherited: PromptTexts) -> PromptTexts:
    """The ``[prompts]`` table over what ``inherited`` gives, each slot's placeholder checked."""
    if not isinstance(table, dict):
        raise VariantError(path, "[prompts] must be a table")
    unknown = sorted(set(table) - set(PROMPT_SLOTS))
    if unknown:
        raise VariantError(
            path, f"[prompts] has unknown slot(s) {unknown}; the slots: {', '.join(PROMPT_SLOTS)}"
        )
    texts = {slot: getattr(inherited, slot) for slot in PROMPT_SLOTS}
    for slot, text in table.items():
        if not isinstance(text, str) or not text.strip():
            raise VariantError(path, f"[prompts] {slot} must be a non-empty string")
        placeholder = PROMPT_SLOTS[slot]
        if placeholder is not None and text.count(placeholder) != 1:
            raise VariantError(
                path,
                f"[prompts] {slot} must contain {placeholder} exactly once (found "
                f"{text.count(placeholder)}): it is where the memory system puts its input",
            )
        texts[slot] = text.strip()
    return PromptTexts(**texts)


def _tool_text(
    path: Path, tool: str, table: Mapping[str, object], inherited: ToolText | None
) -> ToolText:
    """One tool's text: the table's, over what ``inherited`` gives."""
    unknown = sorted(set(table) - _TOOL_KEYS)
    if unknown:
        raise VariantError(
            path,
            f"[{tool}] has unknown key(s) {unknown}; allowed: description, append, parameters",
        )
    description = table.get("description")
    if description is None and inherited is not None:
        description = inherited.description
    if not isinstance(description, str):
        raise VariantError(path, f"[{tool}] needs a 'description' string")
    append = table.get("append")
    if append is not None:
        if not isinstance(append, str) or not append.strip():
            raise VariantError(path, f"[{tool}] 'append' must be a non-empty string")
        if "description" in table:
            raise VariantError(path, f"[{tool}] gives both 'description' and 'append'; use one")
        description = f"{description.rstrip()}\n{append.strip()}"
    params = table.get("parameters", {})
    if not isinstance(params, dict) or not all(isinstance(v, str) for v in params.values()):
        raise VariantError(path, f"[{tool}.parameters] must map names to strings")
    if inherited is None:
        return ToolText(description.strip(), tuple(params.items()))
    known = dict(inherited.parameters)
    extra = sorted(set(params) - set(known))
    if extra:
        raise VariantError(
            path,
            f"[{tool}.parameters] {extra} not parameter(s) of {tool} (it has: "
            f"{', '.join(known) or 'none'}); an extending variant changes text, not the schema",
        )
    merged = tuple((name, params.get(name, text)) for name, text in inherited.parameters)
    return ToolText(description.strip(), merged)


def _check_root_schema(path: Path, tools: Mapping[str, ToolText]) -> None:
    """A root variant describes every tool with exactly the parameters its code reads."""
    hint = f'; to change only some text, start the file with extends = "{DEFAULT_VARIANT}"'
    unknown = sorted(set(tools) - set(TOOL_PARAMETERS))
    if unknown:
        raise VariantError(
            path, f"{unknown} not memory tool(s) (the tools: {', '.join(TOOL_PARAMETERS)})"
        )
    missing = [name for name in TOOL_PARAMETERS if name not in tools]
    if missing:
        raise VariantError(
            path,
            f"a variant without 'extends' fixes the tools' schemas and must describe every "
            f"tool; missing: {', '.join(missing)}{hint}",
        )
    for name, expected in TOOL_PARAMETERS.items():
        given = {p for p, _ in tools[name].parameters}
        if given != expected:
            lacking, extra = sorted(expected - given), sorted(given - expected)
            raise VariantError(
                path,
                f"[{name}.parameters] must describe exactly what {name} reads "
                f"({', '.join(sorted(expected)) or 'nothing'}); missing {lacking or 'none'}, "
                f"unknown {extra or 'none'}{hint}",
            )
