"""The engine's handler table is keyed by event class and checked complete when it is built."""

from __future__ import annotations

import subprocess
import sys

import pytest

from evals.run.engine import HANDLERS
from evals.scenario import EVENT_CLASSES, SearchEvent, check_complete


def test_the_engine_has_one_handler_per_event_class() -> None:
    assert set(HANDLERS) == set(EVENT_CLASSES.values())
    check_complete(HANDLERS, "engine")  # the import already ran it; it passes


def test_a_table_missing_one_class_is_refused_naming_it() -> None:
    partial = {cls: handler for cls, handler in HANDLERS.items() if cls is not SearchEvent}
    with pytest.raises(
        TypeError, match=r"t\.HANDLERS: no entry for event class\(es\) \['SearchEvent'\]"
    ):
        check_complete(partial, "t.HANDLERS")


def test_a_table_with_a_non_event_key_is_refused() -> None:
    table: dict[type, object] = {**HANDLERS, int: None}
    with pytest.raises(TypeError, match=r"not event classes: \['int'\]"):
        check_complete(table, "t")  # type: ignore[arg-type]


def test_a_missing_handler_fails_the_engine_import() -> None:
    # The engine module, with one entry of its table removed, fails when it is imported.
    code = (
        "import pathlib, sys, types\n"
        "import evals.run.engine as e\n"
        "src = pathlib.Path(e.__file__).read_text()\n"
        "line = '    ev.SearchEvent: _Run._search,\\n'\n"
        "assert line in src\n"
        "mod = types.ModuleType('engine_copy')\n"
        "exec(compile(src.replace(line, ''), 'engine_copy', 'exec'), mod.__dict__)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 1
    assert "TypeError" in done.stderr and "['SearchEvent']" in done.stderr
