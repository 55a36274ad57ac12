"""Property-based file mutations (issue 12): a Hypothesis state machine over one memory dir.

Save, update, delete, backup, restore, compaction (sim/careful and scripted bad models),
daily-log appends, hand edits of MEMORY.md (see tests/helpers/mutations.py), backups copied
in from elsewhere, and a crash at any write, checked after every step against a plain model:
every confirmed entry is still there, rejected operations leave MEMORY.md byte-identical,
tools never add headers, at most 5 backups -- exactly the newest ones, each holding the
bytes it was made with -- daily logs hold every line, and no temp file outlives a restart.
The operations and the plain model are in tests/helpers/memory_dir.py; the rules that draw
them and the invariants are here. CI runs >= 10,000 steps (asserted); ``MEMEVAL_FUZZ_EXAMPLES``
scales it for ``nox -s fuzz``."""

from __future__ import annotations

import itertools
import logging
import os
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from memsys.clock import ManualClock
from memsys.sections import LineKind, line_kind
from memsys.storage import MAX_BACKUPS, MemoryFileStorage
from memsys.tools import SaveMemoryTool, UpdateMemoryTool
from tests.helpers.compactors import COMPACTORS
from tests.helpers.crash import CrashPoint, SimulatedCrash, crash_at
from tests.helpers.memory_dir import MemoryDirModel, Snapshot
from tests.helpers.mutations import hand_edit, one_line_text

# tmpfs where there is one: fsync there is free, so the step budget goes to the logic.
FAST_TMP = "/dev/shm" if os.access("/dev/shm", os.W_OK) else tempfile.gettempdir()
CI_EXAMPLES = 300
EXAMPLES = int(os.environ.get("MEMEVAL_FUZZ_EXAMPLES", str(CI_EXAMPLES)))
STEPS_PER_EXAMPLE = 60
HOSTILE = ("\n## Preferences\n- injected", "\r\n- extra bullet", "\u2028## Notes", "\x85- x")
OPS = ("save", "delete", "backup", "restore", "daily", "compact")
STEPS = Counter[str]()


class MemoryDirMachine(MemoryDirModel, RuleBasedStateMachine):
    """The operations drawn at random over one directory, the model checked after each."""

    @initialize()
    def open_dir(self) -> None:
        directory = Path(tempfile.mkdtemp(prefix="memeval-fuzz-", dir=FAST_TMP))
        self.start(directory, ManualClock(datetime(2026, 3, 2, 9, 0)))
        STEPS["examples"] += 1

    def teardown(self) -> None:
        if hasattr(self, "dir"):
            shutil.rmtree(self.dir, ignore_errors=True)

    # -- rules ------------------------------------------------------------------------------

    @rule(
        text=one_line_text,
        category=st.sampled_from(["preferences", "notes", "x"]),
        requested=st.booleans(),
    )
    def save(self, text: str, category: str, requested: bool) -> None:
        content = f"User requested: {text}" if requested else text
        self.do_save(content, category, self.snapshot(), crashed=False)

    @rule(text=one_line_text, hostile=st.sampled_from(HOSTILE), header=st.booleans())
    def save_hostile(self, text: str, hostile: str, header: bool) -> None:
        before = self.raw()
        content = f"## {text}" if header else text + hostile
        result = SaveMemoryTool(self.manager, sectioned=True).execute({"content": content})
        assert not result.ok and self.raw() == before

    @precondition(lambda self: bool(self.confirmed))
    @rule(data=st.data(), new=one_line_text)
    def update(self, data: st.DataObject, new: str) -> None:
        entry = data.draw(st.sampled_from(sorted(self.confirmed)))
        start = data.draw(st.integers(0, len(entry) - 1))
        old = entry[start : data.draw(st.integers(start + 1, len(entry)))].strip()
        before, text = self.raw(), self.text()
        result = UpdateMemoryTool(self.manager).execute({"old_text": old, "new_text": new})
        if not result.ok or not old or old == new.strip():
            assert self.raw() == before
            return
        assert text is not None and self.text() == text.replace(old, new.strip())
        self.confirmed.discard(entry)
        self.confirmed.add(entry.replace(old, new.strip()).strip())

    @precondition(lambda self: bool(self.confirmed))
    @rule(data=st.data())
    def delete(self, data: st.DataObject) -> None:
        entry = data.draw(st.sampled_from(sorted(self.confirmed)))
        self.do_delete(entry, self.snapshot(), crashed=False)

    @rule(data=st.data(), new=st.text(max_size=20))
    def update_hostile(self, data: st.DataObject, new: str) -> None:
        text = self.text() or ""
        lines = text.split("\n")
        headers = [line for line in lines if line_kind(line) is LineKind.HEADER]
        spans = [a + "\n" + b for a, b in itertools.pairwise(lines) if a.strip() and b.strip()]
        if not headers + spans:
            return
        old = data.draw(st.sampled_from(headers + spans))
        if old in headers and len(old.strip()) > 1:
            old = old.strip()[data.draw(st.integers(0, len(old.strip()) - 1)) :]
        before = self.raw()
        result = UpdateMemoryTool(self.manager).execute({"old_text": old, "new_text": new})
        assert not result.ok and self.raw() == before, (old, new, result)

    @rule()
    def backup(self) -> None:
        self.do_backup(self.snapshot(), crashed=False)

    @precondition(lambda self: bool(self.manager.list_backups()))
    @rule(data=st.data())
    def restore(self, data: st.DataObject) -> None:
        name = data.draw(st.sampled_from(self.manager.list_backups()))
        self.do_restore(name, self.snapshot(), crashed=False)

    @rule(compactor=st.sampled_from(COMPACTORS))
    def compact(self, compactor: str) -> None:
        self.do_compact(compactor, self.snapshot(), crashed=False)

    @rule(day=st.integers(0, 2), text=one_line_text)
    def daily_append(self, day: int, text: str) -> None:
        self.do_daily(date(2026, 3, 2) + timedelta(days=day), f"- {text}", crashed=False)

    @rule(edit=hand_edit())
    def edit_by_hand(self, edit: tuple[tuple[str, ...], object]) -> None:
        _, mutate = edit
        new = mutate(self.raw() or b"")  # type: ignore[operator]
        (self.dir / "MEMORY.md").write_bytes(new)
        self.confirmed = {e for e in self.confirmed if e.encode() in new}

    @rule(number=st.integers(0, 9))
    def copy_in_old_backup(self, number: int) -> None:
        """A backup copied in with its old mtime kept, named far in the future."""
        name = f"MEMORY_backup_2099-01-01_00-00-0{number}.md"
        path = self.dir / name
        if path.exists():
            return
        content = f"- copied in {number}\n".encode()
        path.write_bytes(content)
        os.utime(path, (946_684_800, 946_684_800))  # 2000-01-01
        self.planted[name] = content
        MemoryFileStorage(self.dir, self.clock)  # opening prunes: what the next operation does

    @rule(minutes=st.integers(0, 90))
    def tick(self, minutes: int) -> None:
        self.clock.advance(timedelta(minutes=minutes))

    @rule(
        data=st.data(),
        op=st.sampled_from(OPS),
        write=st.integers(1, 2),
        point=st.sampled_from(list(CrashPoint)),
        cut=st.floats(0, 1),
    )
    def crash(
        self, data: st.DataObject, op: str, write: int, point: CrashPoint, cut: float
    ) -> None:
        action = self._crashable(data, op)
        if action is None:
            return
        before = self.snapshot()
        try:
            with crash_at(write, point, cut):
                action(before, False)
        except SimulatedCrash:
            self.reopen()  # the restart: leftovers of the dead writer are cleaned
            action(before, True)  # the model learns what survived
        assert not self._temp_files()

    def _crashable(self, data: st.DataObject, op: str) -> Callable[[Snapshot, bool], None] | None:
        if op == "save":
            content = data.draw(one_line_text)
            return lambda before, crashed: self.do_save(content, "notes", before, crashed)
        if op == "delete" and self.confirmed:
            entry = data.draw(st.sampled_from(sorted(self.confirmed)))
            return lambda before, crashed: self.do_delete(entry, before, crashed)
        if op == "backup":
            return self.do_backup
        if op == "restore" and self.manager.list_backups():
            name = data.draw(st.sampled_from(self.manager.list_backups()))
            return lambda before, crashed: self.do_restore(name, before, crashed)
        if op == "daily":
            line, day = "- " + data.draw(one_line_text), date(2026, 3, 2)
            return lambda before, crashed: self.do_daily(day, line, crashed)
        if op == "compact":
            return lambda before, crashed: self.do_compact("sim/careful", before, crashed)
        return None

    # -- invariants -------------------------------------------------------------------------

    def _temp_files(self) -> list[str]:
        return [p.name for p in self.dir.rglob("*.tmp")]

    @invariant()
    def nothing_confirmed_is_lost(self) -> None:
        STEPS["checks"] += 1
        data = self.raw() or b""
        assert [e for e in self.confirmed if e.encode() not in data] == []

    @invariant()
    def backups_are_the_newest_five_and_unchanged(self) -> None:
        listed = self.manager.list_backups()
        ours = [n for n, _, _ in reversed(self.made) if (self.dir / n).exists()]
        old = sorted(self.planted, reverse=True)
        assert len(listed) <= MAX_BACKUPS
        assert listed == (ours + old)[: len(listed)], (listed, ours, old)
        if self.made:
            assert listed[0] == self.made[-1][0]  # the one just made is never pruned
        recorded = self.recorded()
        for name in listed:
            assert (self.dir / name).read_bytes() == recorded[name], name

    @invariant()
    def daily_logs_hold_every_line(self) -> None:
        for day, lines in self.daily.items():
            path = self.manager.daily_log_path(day)
            assert path.read_text(encoding="utf-8") == "".join(f"{line}\n" for line in lines)

    @invariant()
    def no_temp_file_outlives_a_restart(self) -> None:
        assert self._temp_files() == []


def test_memory_dir_state_machine_runs_10000_steps(caplog: pytest.LogCaptureFixture) -> None:
    # The bad compactors and copied-in backups warn by design, thousands of times: captured,
    # they would bury a failure's falsifying steps (and its reproduce blob) in the CI log.
    caplog.set_level(logging.ERROR, logger="memsys")
    STEPS.clear()
    run_state_machine_as_test(
        MemoryDirMachine,
        settings=settings(
            max_examples=EXAMPLES,
            stateful_step_count=STEPS_PER_EXAMPLE,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            print_blob=True,  # a CI failure prints the @reproduce_failure line to replay it
        ),
    )
    steps = STEPS["checks"] - STEPS["examples"]
    print(f"state machine: {STEPS['examples']} examples, {steps} steps")
    assert steps >= 10_000 or EXAMPLES < CI_EXAMPLES, f"only {steps} steps ran"
