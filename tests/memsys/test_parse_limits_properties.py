"""Issue 41, property: generated nested and odd TOML and YAML, fed to every loader of a
user's file, gives a value or a clean error naming the file, never a traceback (before, 6 KB
of ``[`` was a ``RecursionError`` out of the variant loader)."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evals.cassettes.audit import check_cassette
from evals.results.gate import load_baseline
from evals.scenario import load_scenario
from memsys._parse_limits import ParseLimits, load_input
from memsys.errors import MemEvalError
from memsys.tools import load_variant

PAIRS = [("[", "]"), ("{", "}"), ("{a = ", "}"), ("{a: ", "}"), ("[1, ", "]"), ("- ", "")]
ODD = "[]{}=:,-&*!|>'\"#\\\n\t .a1xé\u2028\ud800\x00"


@st.composite
def nested(draw: st.DrawFn) -> str:
    """A value nested 0 to 3,000 deep, in TOML's or YAML's brackets, maybe unbalanced."""
    opener, closer = draw(st.sampled_from(PAIRS))
    # Shallow values, and values past Python's recursion limit (1,000 frames).
    depth = draw(st.integers(0, 40) | st.integers(900, 3000))
    closed = draw(st.integers(min_value=0, max_value=depth))
    middle = draw(st.text(alphabet=ODD, max_size=20))
    if opener == "- ":  # YAML block lists: each level indented one more
        return "".join(" " * i + "-\n" for i in range(depth)) + " " * depth + "- x\n"
    return opener * depth + middle + closer * closed


def documents() -> st.SearchStrategy[bytes]:
    """Whole files: a key then a nested value, odd text, or arbitrary bytes."""
    keyed = st.tuples(
        st.sampled_from(["x = ", "name: x\ndays: ", "extends = 'v049-guardrails'\na = ", "a:\n"]),
        nested(),
        st.text(alphabet=ODD, max_size=40),
    ).map(lambda parts: "".join(parts).encode("utf-8", errors="surrogatepass"))
    odd = st.text(alphabet=ODD, max_size=200).map(
        lambda text: text.encode("utf-8", errors="surrogatepass")
    )
    return st.one_of(keyed, odd, st.binary(max_size=200))


LIMITS = ParseLimits(max_bytes=64 << 10, max_nodes=10_000, max_depth=16)
LOADERS: dict[str, Callable[[Path], object]] = {
    "variant": lambda p: load_variant(str(p)),
    "scenario": load_scenario,
    "baseline": load_baseline,
    "toml": lambda p: load_input(p, "toml", LIMITS),
    "yaml": lambda p: load_input(p, "yaml", LIMITS),
    "json": lambda p: load_input(p, "json", LIMITS),
}
SUFFIX = {"variant": ".toml", "toml": ".toml", "json": ".json"}


@pytest.mark.parametrize("loader", sorted(LOADERS))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=documents())
def test_a_loader_gives_a_value_or_a_clean_error(loader: str, data: bytes) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / f"input{SUFFIX.get(loader, '.yaml')}"
        path.write_bytes(data)
        try:
            LOADERS[loader](path)
        except MemEvalError as exc:
            assert str(path) in str(exc), f"{loader}: the error does not name the file: {exc}"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=documents())
def test_cassettes_check_lists_problems_never_raises(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "cassette.yaml"
        path.write_bytes(data)
        problems = check_cassette(path, env_secrets=[])
        assert problems, "a generated file is never a sound, labelled cassette"
        assert all(p.path == path for p in problems)
