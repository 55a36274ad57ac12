"""Marked blocks of a Markdown file, rewritten in place by the command that measures them."""

from __future__ import annotations

from pathlib import Path

import pytest

from evals.errors import UsageError
from evals.report.readme_blocks import fill_markers, write_blocks

_TEXT = (
    "intro\n<!-- reader:agreement -->\nold figures\n<!-- /reader:agreement -->\n"
    "middle\n<!-- tables:real -->\nold table\n<!-- /tables:real -->\nend\n"
)


def test_each_command_rewrites_its_own_blocks_and_no_other_byte() -> None:
    text, kinds = fill_markers(_TEXT, lambda kind: f"new {kind}", "reader", ("agreement",))
    assert kinds == ["agreement"]
    assert text == _TEXT.replace("\nold figures\n", "\n\nnew agreement\n\n")
    both, _ = fill_markers(text, lambda kind: f"new {kind}", "tables", ("real",))
    assert both.count("new ") == 2 and both.startswith("intro\n") and both.endswith("end\n")
    # Written again: nothing moves.
    assert fill_markers(both, lambda kind: f"new {kind}", "tables", ("real",))[0] == both


def test_a_bad_block_names_the_file_and_leaves_it_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "README.md"
    path.write_text(_TEXT.replace("<!-- /reader:agreement -->\n", ""), encoding="utf-8")
    before = path.read_bytes()
    with pytest.raises(UsageError, match="line 2: 'reader:agreement' is not closed") as raised:
        write_blocks(path, str.upper, "reader", ("agreement",))
    assert str(raised.value).count(str(path)) == 1 and path.read_bytes() == before
    with pytest.raises(UsageError, match="unknown kind 'real' in '<!-- tables:real -->'"):
        write_blocks(path, str.upper, "tables", ("writers",))
    path.write_text(_TEXT, encoding="utf-8")
    assert write_blocks(path, str.upper, "reader", ("agreement",)) == ["agreement"]
    assert "\n\nAGREEMENT\n\n" in path.read_text(encoding="utf-8")


def test_the_readme_and_the_agreement_report_carry_the_reader_blocks() -> None:
    """``memeval bench reader --agreement --write-readme`` writes these two files' issue-38
    tables: their markers are there and pair up."""
    from evals.bench._reader_summary import BLOCKS

    root = Path(__file__).resolve().parents[3]
    found = {}
    for name in ("README.md", "reports/reader-agreement.md"):
        text = (root / name).read_text(encoding="utf-8")
        found[name] = fill_markers(text, lambda kind: kind, "reader", BLOCKS)[1]
    assert found == {"README.md": ["agreement"], "reports/reader-agreement.md": ["batches"]}
