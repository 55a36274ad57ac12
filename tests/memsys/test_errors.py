"""The error trees, memsys's and the harness's: every error sits on exactly one branch, is
drawn in its own module's docstring, and builds its own message."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from evals import errors as harness_errors
from evals.errors import Regression, ScenarioError, TraceError
from memsys import errors
from memsys.errors import (
    ConfigError,
    LLMConfigError,
    LLMError,
    LLMResponseError,
    LLMTransportError,
    MemEvalError,
    RunFailure,
    UnknownNameError,
)

BRANCHES = (ConfigError, RunFailure, Regression)
CLASSES = [
    cls
    for module in (errors, harness_errors)
    for _, cls in inspect.getmembers(module, inspect.isclass)
    if issubclass(cls, MemEvalError)
    and cls.__module__ == module.__name__
    and cls not in (MemEvalError, LLMError, *BRANCHES)
]


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_every_error_is_on_exactly_one_branch(cls: type[MemEvalError]) -> None:
    assert sum(issubclass(cls, branch) for branch in BRANCHES) == 1


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_every_error_class_is_drawn_in_its_modules_docstring(cls: type[MemEvalError]) -> None:
    module = inspect.getmodule(cls)
    assert module is not None and module.__doc__ is not None
    assert f" {cls.__name__} " in module.__doc__


def test_the_harness_errors_are_its_own() -> None:
    harness = {c.__name__ for c in CLASSES if c.__module__ == "evals.errors"}
    assert len(harness) == 19  # and Regression, its own branch
    assert errors.__doc__ is not None
    assert sorted(n for n in harness if f" {n} " in errors.__doc__) == []
    assert not hasattr(errors, "Regression")


def test_every_error_class_lives_in_an_errors_module() -> None:
    import evals.cli.main  # noqa: F401  (imports every module of the CLI)

    def subclasses(cls: type) -> list[type]:
        return [cls, *(s for sub in cls.__subclasses__() for s in subclasses(sub))]

    homes = ("memsys.errors", "evals.errors")
    strays = [c for c in subclasses(MemEvalError) if c.__module__ not in homes]
    assert strays == [], "define error classes in memsys/errors.py or evals/errors.py"


def test_llm_errors_split_by_cause_and_branch() -> None:
    assert issubclass(LLMConfigError, LLMError) and issubclass(LLMConfigError, ConfigError)
    assert issubclass(LLMTransportError, LLMError) and issubclass(LLMTransportError, RunFailure)
    assert issubclass(LLMResponseError, LLMError) and issubclass(LLMResponseError, RunFailure)


def test_messages_name_the_problem() -> None:
    assert str(UnknownNameError("policy", "x", ["b", "a"])) == "unknown policy 'x'; known: a, b"
    assert "2 of 5 gate checks failed" in str(Regression(2, 5))
    assert str(TraceError(Path("t.jsonl"), "line 3: bad")) == "t.jsonl: line 3: bad"


def test_errors_survive_pickling_with_their_class_message_and_fields() -> None:
    """A ``memeval run --jobs`` worker sends its error back to the parent by pickling it."""
    import pickle

    for error in (
        UnknownNameError("policy", "x", ["a"]),
        Regression(2, 5),
        TraceError(Path("t.jsonl"), "line 3: bad"),
        ScenarioError(Path("s.yaml"), 4, "days.0", "bad"),
    ):
        copy = pickle.loads(pickle.dumps(error))
        assert type(copy) is type(error) and str(copy) == str(error)
        assert copy.__dict__ == error.__dict__
