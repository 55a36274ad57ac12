"""``memeval cassettes list|check``: the committed cassette, leaks, bad files, missing roots."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from vcr.serializers import yamlserializer

from evals.cli.main import main

REPO = Path(__file__).resolve().parents[3]
LABEL = {
    "base_url": "http://model.test/v1",
    "kind": "real",
    "model": "openai-compatible/echo",
    "recorded_on": "2026-03-02",
    "schema_version": 1,
}


def write_cassette(path: Path, headers: dict[str, list[str]], labelled: bool = True) -> Path:
    """A one-interaction cassette in vcrpy's format, labelled ``real`` unless told not to."""
    request = {"body": "{}", "headers": headers, "method": "POST", "uri": "http://model.test/v1"}
    response: dict[str, Any] = {"body": {"string": "{}"}, "headers": {}, "status": {"code": 200}}
    data = {"interactions": [{"request": request, "response": response}], "version": 1}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yamlserializer.serialize(data))
    if labelled:
        path.with_name(path.name + ".meta.json").write_text(json.dumps(LABEL))
    return path


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A clean cassette, a leaky one, an unlabelled one and a corrupt one."""
    root = tmp_path / "cassettes"
    write_cassette(root / "scn" / "sim__x" / "clean.yaml", {"accept": ["*/*"]})
    write_cassette(
        root / "scn" / "openai__gpt" / "guardrails" / "v1" / "repeat-2.yaml",
        {"Authorization": ["Bearer sk-proj-AbCdEfGhIjKlMnOpQrSt"]},
    )
    write_cassette(root / "scn" / "sim__x" / "p" / "unlabelled.yaml", {}, labelled=False)
    corrupt = write_cassette(root / "zzz" / "corrupt.yaml", {})
    corrupt.write_text("interactions: [\n")
    return root


def test_check_names_each_problem_and_still_checks_the_rest(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["cassettes", "check", "--root", str(root)]) == 1
    lines = capsys.readouterr().out.splitlines()
    leaky = root / "scn" / "openai__gpt" / "guardrails" / "v1" / "repeat-2.yaml"
    assert lines[:2] == [
        f"{leaky}: interaction #1: request header 'Authorization' is recorded with a value "
        "(credentials header)",
        f"{root / 'scn' / 'sim__x' / 'p' / 'unlabelled.yaml'}: no label "
        "(unlabelled.yaml.meta.json is missing)",
    ]
    # The parser's wording differs between libyaml and pure-Python PyYAML; the place does not.
    assert lines[2].startswith(f"{root / 'zzz' / 'corrupt.yaml'}: does not load as YAML (line 2")
    assert lines[3:] == ["3 of 4 cassettes with problems"]
    assert "sk-proj" not in "\n".join(lines)


def test_list_json_lines_parse(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cassettes", "list", "--root", str(root), "--json"]) == 0
    rows = {row["path"]: row for row in map(json.loads, capsys.readouterr().out.splitlines())}
    assert len(rows) == 4
    repeat = rows["scn/openai__gpt/guardrails/v1/repeat-2.yaml"]
    assert (repeat["model"], repeat["variant"], repeat["repeat"]) == ("openai/gpt", "v1", 2)
    assert (repeat["kind"], repeat["interactions"]) == ("real", 1)
    assert rows["scn/sim__x/p/unlabelled.yaml"]["kind"] == "unlabelled"
    corrupt = rows["zzz/corrupt.yaml"]
    assert (corrupt["scenario"], corrupt["interactions"]) == (None, None)
    assert corrupt["size"] == len("interactions: [\n")


@pytest.mark.parametrize("action", ["list", "check"])
def test_missing_root_exits_2_naming_it(
    tmp_path: Path, action: str, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "no-such-dir"
    assert main(["cassettes", action, "--root", str(missing)]) == 2
    assert f"cassette directory {missing} does not exist" in capsys.readouterr().err


@pytest.mark.parametrize("action", ["list", "check"])
def test_empty_root_says_so(
    tmp_path: Path, action: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["cassettes", action, "--root", str(tmp_path)]) == 0
    assert capsys.readouterr().out == f"no cassettes under {tmp_path}\n"
