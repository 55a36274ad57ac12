"""A variant's digest is of the text it sends: names aside, one changed character changes it."""

from __future__ import annotations

from pathlib import Path

from memsys.tools import available_variants, load_variant


def test_the_same_text_under_another_name_has_the_same_digest(tmp_path: Path) -> None:
    shipped = load_variant("v049-guardrails")
    assert shipped.path is not None
    copy = tmp_path / "renamed.toml"
    text = shipped.path.read_text(encoding="utf-8")
    summary = next(line for line in text.splitlines() if line.startswith("summary = "))
    copy.write_text(text.replace(summary, 'summary = "the same text, another summary"'))
    renamed = load_variant(str(copy))
    assert (renamed.name, renamed.summary) == ("renamed", "the same text, another summary")
    assert renamed.digest() == shipped.digest()
    assert len(shipped.digest()) == 64 and int(shipped.digest(), 16) >= 0


def test_one_changed_character_in_a_tool_or_a_prompt_changes_it(tmp_path: Path) -> None:
    base = load_variant("v049-guardrails").digest()
    tool = tmp_path / "tool.toml"
    tool.write_text('extends = "v049-guardrails"\n[save_memory]\nappend = "x"\n')
    param = tmp_path / "param.toml"
    param.write_text(
        'extends = "v049-guardrails"\n[search_memory.parameters]\nquery = "What to look for."\n'
    )
    prompt = tmp_path / "prompt.toml"
    prompt.write_text('extends = "v049-guardrails"\n[prompts]\nchat_system = "You are Ada."\n')
    digests = [load_variant(str(p)).digest() for p in (tool, param, prompt)]
    assert len({base, *digests}) == 4


def test_shipped_variants_that_differ_in_text_differ_in_digest() -> None:
    variants = [load_variant(name) for name in available_variants()]
    texts = {(repr(v.tools), repr(v.prompts)) for v in variants}
    assert len({v.digest() for v in variants}) == len(texts)
