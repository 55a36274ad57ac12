"""Description variants compose: ``extends`` inherits every tool's schema, only text changes."""

from __future__ import annotations

import ast
import json
import os
from pathlib import Path

import pytest

from memsys.manager import MemoryManager
from memsys.tools import ReadMemoryTool, SaveMemoryTool, UpdateMemoryTool, load_variant
from memsys.tools.descriptions import MAX_VARIANT_BYTES, Variant, VariantError
from memsys.tools.memory_tools import READ_MEMORY, SAVE_MEMORY, SEARCH_MEMORY, UPDATE_MEMORY

SIGNATURES = (SAVE_MEMORY, UPDATE_MEMORY, READ_MEMORY, SEARCH_MEMORY)


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def _schemas(variant: Variant) -> dict[str, dict[str, object]]:
    return {s.name: variant.define(s).json_schema() for s in SIGNATURES}


def test_a_one_line_description_change_leaves_every_schema_identical(
    tmp_path: Path, manager: MemoryManager
) -> None:
    path = _write(
        tmp_path / "v049-user-requested.toml",
        'extends = "v049-guardrails"\n[save_memory]\n'
        'description = "Save facts. Prefix explicit requests with \\"User requested:\\"."\n',
    )
    base, variant = load_variant("v049-guardrails"), load_variant(str(path))
    assert _schemas(variant) == _schemas(base)
    save = variant.describe(SaveMemoryTool(manager, sectioned=True)).definition
    assert save.description.startswith("Save facts. Prefix explicit requests")
    assert [p.name for p in save.parameters] == ["content", "category"]
    # The other tools are the base's, text and all.
    for tool in ("update_memory", "read_memory", "search_memory"):
        assert variant.tool(tool) == base.tool(tool)
    for action in (UpdateMemoryTool(manager), ReadMemoryTool(manager)):
        assert variant.describe(action).definition == base.describe(action).definition


def test_one_parameter_text_can_change_alone(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "short-category.toml",
        'extends = "v049-guardrails"\n[save_memory.parameters]\ncategory = "Section name."\n',
    )
    base, variant = load_variant("v049-guardrails"), load_variant(str(path))
    save, base_save = variant.tool("save_memory"), base.tool("save_memory")
    assert save.description == base_save.description
    assert save.parameters == (
        ("content", dict(base_save.parameters)["content"]),
        ("category", "Section name."),
    )


def test_the_shipped_vague_variant_keeps_the_guardrail_parameters() -> None:
    def shape(variant: Variant) -> dict[str, list[str]]:
        return {t: [p for p, _ in variant.tool(t).parameters] for t in (s.name for s in SIGNATURES)}

    vague, guardrails = load_variant("v023-vague"), load_variant("v049-guardrails")
    assert shape(vague) == shape(guardrails)
    assert vague.tool("save_memory").description != guardrails.tool("save_memory").description


def test_any_toml_path_works_and_the_name_is_the_stem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = 'extends = "v049-guardrails"\n[read_memory]\ndescription = "R."\n'
    _write(tmp_path / "base.toml", base)
    child = _write(tmp_path / "child.toml", 'extends = "base"\n[save_memory]\ndescription = "C."\n')
    by_abs = load_variant(str(child))
    monkeypatch.chdir(tmp_path)
    by_rel = load_variant("child.toml")
    assert by_abs == by_rel
    assert (by_abs.name, by_abs.extends) == ("child", "base")
    assert by_abs.tool("save_memory").description == "C."
    assert by_abs.tool("read_memory").description == "R."


def _root_copy(path: Path, drop: str | None = None) -> Path:
    """A root variant (no ``extends``) with v049-guardrails' text, minus ``drop``'s lines."""
    base = load_variant("v049-guardrails")
    lines = []
    for tool, text in base.tools.items():
        lines += [f"[{tool}]", f"description = {json.dumps(text.description)}"]
        lines.append(f"[{tool}.parameters]")
        lines += [f"{p} = {json.dumps(d)}" for p, d in text.parameters if p != drop]
    return _write(path, "\n".join(lines) + "\n")


def test_a_root_variant_describing_every_tool_and_parameter_loads(tmp_path: Path) -> None:
    variant = load_variant(str(_root_copy(tmp_path / "copy.toml")))
    assert _schemas(variant) == _schemas(load_variant("v049-guardrails"))


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        # The field report: only a description, so save_memory would take no arguments.
        ('[save_memory]\ndescription = "Save durable facts."\n', "missing: update_memory"),
        (None, "[save_memory.parameters] must describe exactly what save_memory reads"),
    ],
)
def test_a_root_variant_cannot_drop_a_tool_or_parameter(
    tmp_path: Path, text: str | None, problem: str
) -> None:
    path = tmp_path / "mine.toml"
    if text is None:
        _root_copy(path, drop="category")
    else:
        _write(path, text)
    with pytest.raises(VariantError) as info:
        load_variant(str(path))
    message = str(info.value)
    assert str(path) in message and problem in message
    assert 'extends = "v049-guardrails"' in message


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('extends = "v049-guardrails"\n[save_memory.parameters]\ncontnet = "x"\n', "'contnet'"),
        ('extends = "v049-guardrails"\n[save_memroy]\ndescription = "x"\n', "save_memroy"),
        ('extends = "v049-guardrails"\n[save_memory]\ndesciption = "x"\n', "desciption"),
        ('extends = "no-such-variant"\n', "no-such-variant"),
        ("[save_memory]\n", "needs a 'description'"),
        ("[save_memory\n", "invalid TOML"),
    ],
)
def test_a_bad_variant_names_the_file_and_the_problem(
    tmp_path: Path, text: str, problem: str
) -> None:
    path = _write(tmp_path / "bad.toml", text)
    with pytest.raises(VariantError) as info:
        load_variant(str(path))
    assert str(path) in str(info.value)
    assert problem in str(info.value)


def test_an_extends_cycle_is_an_error(tmp_path: Path) -> None:
    _write(tmp_path / "a.toml", 'extends = "b"\n')
    _write(tmp_path / "b.toml", 'extends = "a"\n')
    with pytest.raises(VariantError, match="cycle"):
        load_variant(str(tmp_path / "a.toml"))


def test_a_missing_variant_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(VariantError, match="no such variant file"):
        load_variant(str(tmp_path / "absent.toml"))


def test_the_user_requested_variant_tells_the_chat_model_to_write_the_prefix() -> None:
    """FEAT-049 compaction rule 6 keeps "User requested:" entries, but RFC-049's verbatim
    description never asks for the prefix; the v049-user-requested variant does, with the
    default's schema unchanged (the default keeps the RFC's text: see the README)."""
    default, variant = load_variant("v049-guardrails"), load_variant("v049-user-requested")
    text = variant.tool("save_memory").description
    assert 'begin the entry with "User requested: "' in text
    assert "User requested" not in default.tool("save_memory").description
    assert _schemas(variant) == _schemas(default)


def test_a_variant_file_past_the_limit_is_refused_after_reading_only_the_limit(
    tmp_path: Path,
) -> None:
    # Issue 28: before, the whole file was read (any size) and parsed.
    big = tmp_path / "big.toml"
    padding = b"# padding\n" * (MAX_VARIANT_BYTES // 10 + 1)
    big.write_bytes(b'extends = "v049-guardrails"\n' + padding)
    with pytest.raises(
        VariantError, match=r"over the 262,144-byte limit \(reading stopped there\)"
    ):
        load_variant(str(big))
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)  # refused unread, without waiting for a writer
    with pytest.raises(VariantError):
        load_variant(str(fifo))


def _imports_variant(source: str) -> bool:
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = {a.name for a in node.names}
            if node.module.startswith("memsys.tools.descriptions") or (
                node.module == "memsys.tools" and names & {"Variant", "load_variant"}
            ):
                return True
    return False


def test_no_tool_or_policy_holds_the_variant() -> None:
    """Issue 39: the variant meets the tools' code in one place (``Variant.describe``, called
    by ``build_runtime``); a tool or policy module that imports it takes a second door."""
    root = Path(__file__).resolve().parents[3] / "memsys"
    modules = [*root.joinpath("tools").glob("*.py"), *root.joinpath("policies").glob("*.py")]
    holders = [
        p.relative_to(root).as_posix()
        for p in sorted(modules)
        if p.name != "__init__.py" and _imports_variant(p.read_text(encoding="utf-8"))
    ]
    assert holders == []
    assert _imports_variant("from memsys.tools.descriptions import Variant\n")
    assert _imports_variant("from memsys.tools import load_variant\n")
    assert not _imports_variant("from memsys.tools.base import ToolSignature\n")
