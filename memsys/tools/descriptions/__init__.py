"""Tool descriptions as data: one TOML file per variant, loadable by name or path.

A variant gives, per tool, the description and the description of each parameter it exposes.
``extends = "other"`` takes the tools the file does not define from another variant (a tool
table replaces the base's table whole, so a variant can drop a parameter).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from memsys.errors import MemEvalError, UnknownNameError

__all__ = [
    "DEFAULT_VARIANT",
    "ToolText",
    "Variant",
    "VariantError",
    "available_variants",
    "load_variant",
]

DEFAULT_VARIANT = "v049-guardrails"
_DIR = Path(__file__).parent


class VariantError(MemEvalError):
    """A description variant file is malformed."""

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(f"{path}: {problem}")


@dataclass(frozen=True)
class ToolText:
    """The text one variant gives one tool."""

    description: str
    """Tool description."""
    parameters: tuple[tuple[str, str], ...]
    """(parameter name, parameter description), in file order."""


@dataclass(frozen=True)
class Variant:
    """A named set of tool descriptions."""

    name: str
    """Variant name (file stem)."""
    summary: str
    """One line saying what the variant is."""
    tools: dict[str, ToolText]
    """Tool name -> its text."""

    def tool(self, name: str) -> ToolText:
        """The text of tool ``name``."""
        try:
            return self.tools[name]
        except KeyError:
            raise UnknownNameError(
                f"tool in variant {self.name!r}", name, list(self.tools)
            ) from None


def available_variants() -> list[str]:
    """Names of the shipped variants."""
    return sorted(p.stem for p in _DIR.glob("*.toml"))


def load_variant(name_or_path: str) -> Variant:
    """Load a shipped variant by name, or any variant file by path."""
    path = Path(name_or_path)
    if path.suffix != ".toml":
        path = _DIR / f"{name_or_path}.toml"
        if not path.is_file():
            raise UnknownNameError("description variant", name_or_path, available_variants())
    return _load(path, seen=())


def _load(path: Path, seen: tuple[Path, ...]) -> Variant:
    if path in seen:
        raise VariantError(path, "'extends' forms a cycle")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise VariantError(path, "no such file") from None
    except tomllib.TOMLDecodeError as exc:
        raise VariantError(path, f"invalid TOML: {exc}") from exc
    tools: dict[str, ToolText] = {}
    base = data.pop("extends", None)
    if base is not None:
        base_path = path.parent / f"{base}.toml"
        if not base_path.is_file():
            base_path = _DIR / f"{base}.toml"
        tools.update(_load(base_path, (*seen, path)).tools)
    summary = str(data.pop("summary", ""))
    data.pop("schema_version", None)
    for tool_name, table in data.items():
        if not isinstance(table, dict) or not isinstance(table.get("description"), str):
            raise VariantError(path, f"[{tool_name}] needs a 'description' string")
        params = table.get("parameters", {})
        if not isinstance(params, dict) or not all(isinstance(v, str) for v in params.values()):
            raise VariantError(path, f"[{tool_name}.parameters] must map names to strings")
        tools[tool_name] = ToolText(table["description"].strip(), tuple(params.items()))
    return Variant(path.stem, summary, tools)
