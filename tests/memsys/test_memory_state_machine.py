"""Property-based file mutations (issue 12): a Hypothesis state machine over one memory dir.

Save, update, delete, backup, restore, compaction (sim/careful and scripted bad models),
daily-log appends, hand edits of MEMORY.md (see tests/helpers/mutations.py), backups copied
in from elsewhere, and a crash at any write, checked after every step against a plain model:
every confirmed entry is still there, rejected operations leave MEMORY.md byte-identical,
tools never add headers, at most 5 backups -- exactly the newest ones, each holding the
bytes it was made with -- daily logs hold every line, and no temp file outlives a restart.
CI runs >= 10,000 steps (asserted); ``MEMEVAL_FUZZ_EXAMPLES`` scales it for ``nox -s fuzz``."""

from __future__ import annotations

import itertools
import logging
import os
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
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
from memsys.compaction import CompactionOutcome, MemoryCompactor, user_requested_entries
from memsys.errors import MemoryFileError
from memsys.manager import MemoryManager
from memsys.sections import STANDARD_SECTIONS, LineKind, line_kind, parse_entries
from memsys.storage import MAX_BACKUPS, MemoryFileStorage
from memsys.tools import SaveMemoryTool, UpdateMemoryTool, load_variant
from tests.helpers.compactors import COMPACTORS, compactor_model
from tests.helpers.crash import CrashPoint, SimulatedCrash, crash_at
from tests.helpers.mutations import hand_edit, one_line_text

V049 = load_variant("v049-guardrails")
# tmpfs where there is one: fsync there is free, so the step budget goes to the logic.
FAST_TMP = "/dev/shm" if os.access("/dev/shm", os.W_OK) else tempfile.gettempdir()
CI_EXAMPLES = 300
EXAMPLES = int(os.environ.get("MEMEVAL_FUZZ_EXAMPLES", str(CI_EXAMPLES)))
STEPS_PER_EXAMPLE = 60
HOSTILE = ("\n## Preferences\n- injected", "\r\n- extra bullet", "\u2028## Notes", "\x85- x")
OPS = ("save", "delete", "backup", "restore", "daily", "compact")
STEPS = Counter[str]()


@dataclass(frozen=True)
class Snapshot:
    """The directory before an operation."""

    raw: bytes | None  # MEMORY.md's bytes (None: no file)
    text: str | None  # its text (None: no file, or not UTF-8)
    backups: frozenset[str]  # backup names listed


def _headers(text: str) -> Counter[str]:
    visible = (line.strip(" \t\r\n\ufeff") for line in text.splitlines())  # BOMs: invisible
    return Counter(line for line in visible if line_kind(line) is LineKind.HEADER)


class MemoryDirMachine(RuleBasedStateMachine):
    """One memory directory and the plain model of what must be in it."""

    @initialize()
    def open_dir(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="memeval-fuzz-", dir=FAST_TMP))
        self.clock = ManualClock(datetime(2026, 3, 2, 9, 0))
        self.confirmed: set[str] = set()
        self.made: list[tuple[str, bytes, frozenset[str]]] = []  # our backups, in order
        self.planted: dict[str, bytes] = {}  # copied-in backups with an old mtime
        self.daily: dict[date, list[str]] = {}
        self.reopen()
        STEPS["examples"] += 1

    def teardown(self) -> None:
        if hasattr(self, "dir"):
            shutil.rmtree(self.dir, ignore_errors=True)

    def reopen(self) -> None:
        """A new process opening the directory (after a crash: the restart)."""
        self.manager = MemoryManager(self.dir, self.clock)

    # -- what is on disk --------------------------------------------------------------------

    def raw(self) -> bytes | None:
        path = self.dir / "MEMORY.md"
        return path.read_bytes() if path.exists() else None

    def text(self) -> str | None:
        data = self.raw()
        try:
            return None if data is None else data.decode("utf-8").removeprefix("\ufeff")
        except UnicodeDecodeError:
            return None

    def readable(self) -> bool:
        return self.raw() is None or self.text() is not None

    def snapshot(self) -> Snapshot:
        return Snapshot(self.raw(), self.text(), frozenset(self.manager.list_backups()))

    def note_new_backups(self, before: Snapshot) -> None:
        for name in sorted(set(self.manager.list_backups()) - before.backups):
            self.made.append((name, before.raw or b"", frozenset(self.confirmed)))

    # -- operations; after a crash (``crashed``) each learns what survived ------------------

    def do_save(self, content: str, category: str, before: Snapshot, crashed: bool) -> None:
        if not crashed:
            tool = SaveMemoryTool(self.manager, V049, sectioned=True)
            result = tool.execute({"content": content, "category": category})
            if not result.ok:
                assert self.raw() == before.raw and result.code is not None, result
                assert result.code.value != "save_failed" or not self.readable(), result
                return
        after = self.text()
        if crashed and self.raw() == before.raw:
            return  # died before the rename: nothing happened
        assert after is not None and content in after
        self.confirmed.add(content)
        if before.text is not None and before.text.strip():
            added = _headers(after) - _headers(before.text)
            assert set(added) <= {f"## {s}" for s in STANDARD_SECTIONS}, added

    def do_delete(self, entry: str, before: Snapshot, crashed: bool) -> None:
        if not crashed:
            result = UpdateMemoryTool(self.manager, V049).execute(
                {"old_text": entry, "new_text": ""}
            )
            if not result.ok:
                assert self.raw() == before.raw and result.code is not None
                allowed = ("ambiguous_match", "validation_error", "update_failed")
                assert result.code.value in allowed, result
                assert result.code.value != "update_failed" or before.text is None
                return
        if self.raw() != before.raw:
            self.confirmed.discard(entry)
            cut = {c for c in self.confirmed if entry in c}  # RFC-049 matches a substring
            self.confirmed = (self.confirmed - cut) | {c.replace(entry, "", 1).strip() for c in cut}
            assert _headers(self.text() or "") == _headers(before.text or "")

    def do_backup(self, before: Snapshot, crashed: bool) -> None:
        if not crashed:
            name = self.manager.create_backup()
            assert (name is None) == (before.raw is None or not before.raw.strip())
        self.note_new_backups(before)

    def do_restore(self, name: str, before: Snapshot, crashed: bool) -> None:
        expected = self.recorded()[name]
        snapshot = next((c for n, _, c in self.made if n == name), frozenset())
        if not crashed:
            try:
                assert self.manager.restore_from_backup(name)
            except MemoryFileError:
                assert not _decodes(expected) and self.raw() == before.raw
                return
        self.note_new_backups(before)
        if not crashed or self.raw() == expected:
            assert self.raw() == expected
            self.confirmed = {e for e in snapshot if e.encode() in expected}

    def do_daily(self, day: date, line: str, crashed: bool) -> None:
        if not crashed:
            self.manager.append_daily_log(day, line)
        path = self.manager.daily_log_path(day)
        appended = [*self.daily.get(day, []), line]
        survived = path.exists() and path.read_text("utf-8") == "".join(f"{x}\n" for x in appended)
        if not crashed or survived:
            self.daily[day] = appended

    def do_compact(self, compactor: str, before: Snapshot, crashed: bool) -> None:
        if not crashed:
            if before.text is None and before.raw is not None:
                try:
                    MemoryCompactor(self.manager, compactor_model(compactor, "")).force_compact()
                except MemoryFileError:
                    return
                raise AssertionError("compaction read a file that is not UTF-8")
            client = compactor_model(compactor, before.text or "")
            result = MemoryCompactor(self.manager, client).force_compact()
            if result.outcome is not CompactionOutcome.COMPACTED:
                assert self.raw() == before.raw
        self.note_new_backups(before)
        after = self.text()
        if after is not None and self.raw() != before.raw:
            assert before.text is not None
            for entry in user_requested_entries(before.text):
                assert " ".join(entry.split()) in " ".join(after.split()), entry
            assert max(_headers(after).values(), default=1) == 1, after
            # Whole entries, not substrings: "0" inside "User requested: 0" is no entry "0"
            # (deleting it would then rightly hit the requested one).
            kept = {" ".join(entry.text.split()) for entry in parse_entries(after)}
            self.confirmed = {e for e in self.confirmed if " ".join(e.split()) in kept}

    def recorded(self) -> dict[str, bytes]:
        return {**self.planted, **{n: c for n, c, _ in self.made}}

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
        result = SaveMemoryTool(self.manager, V049, sectioned=True).execute({"content": content})
        assert not result.ok and self.raw() == before

    @precondition(lambda self: bool(self.confirmed))
    @rule(data=st.data(), new=one_line_text)
    def update(self, data: st.DataObject, new: str) -> None:
        entry = data.draw(st.sampled_from(sorted(self.confirmed)))
        start = data.draw(st.integers(0, len(entry) - 1))
        old = entry[start : data.draw(st.integers(start + 1, len(entry)))].strip()
        before, text = self.raw(), self.text()
        result = UpdateMemoryTool(self.manager, V049).execute({"old_text": old, "new_text": new})
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
        result = UpdateMemoryTool(self.manager, V049).execute({"old_text": old, "new_text": new})
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


def _decodes(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


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
