"""The README and help texts a new user reads: every command documented, no link outside
the repository, no reStructuredText markup in ``--help``, every nox session described."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from evals.cli.main import build_parser

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _commands() -> list[str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    return sorted(sub.choices)  # type: ignore[arg-type]


@pytest.mark.parametrize("command", _commands())
def test_every_command_is_in_the_readmes_command_table(command: str) -> None:
    assert re.search(rf"^\| `memeval {command}\b", README, re.M), f"memeval {command}"


def test_readme_links_stay_inside_a_clone() -> None:
    for target in re.findall(r"\]\(([^)]+)\)", README):
        if re.match(r"[a-z]+://", target):
            continue
        path = (ROOT / target.split("#")[0]).resolve()
        assert path.is_relative_to(ROOT) and path.exists(), target


def _command_paths() -> list[list[str]]:
    """Every command and sub-command (``memory search``, ``bench retrieval``...)."""
    import argparse

    def walk(parser: argparse.ArgumentParser, prefix: list[str]) -> list[list[str]]:
        paths = [prefix] if prefix else []
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in sorted(action.choices.items()):
                    paths += walk(sub, [*prefix, name])
        return paths

    return walk(build_parser(), [])


@pytest.mark.parametrize("command", _command_paths(), ids=" ".join)
def test_help_shows_no_rst_markup(command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args([*command, "--help"])
    text = capsys.readouterr().out
    assert "``" not in text and ":class:" not in text and ":func:" not in text
    assert "%%" not in text  # an argparse %-escape printed as written


def test_the_noxfile_docstring_names_every_session() -> None:
    tree = ast.parse((ROOT / "noxfile.py").read_text(encoding="utf-8"))
    sessions = [
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
        and any("nox.session" in ast.unparse(d) for d in node.decorator_list)
    ]
    docstring = ast.get_docstring(tree) or ""
    assert sessions and all(f"``{s}``" in docstring for s in sessions), sessions


def test_the_offline_suite_table_shows_every_scenario() -> None:
    section = README[README.index("## What the offline suite shows") :]
    section = section[: section.index("\n## ", 1)]
    rows = set(re.findall(r"^\| ([a-z0-9][a-z0-9-]*) \|", section, re.M)) - {"scenario"}
    names = {p.stem for p in (ROOT / "scenarios").glob("*.yaml")}
    assert rows == names, f"missing {sorted(names - rows)}, stale {sorted(rows - names)}"
