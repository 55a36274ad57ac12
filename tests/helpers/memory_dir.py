"""The model half of the memory-directory state machine (tests/memsys/test_memory_state_machine.py):
what is on disk, and each operation run against the real MemoryManager and tools -- or, after
a simulated crash (``crashed``), only learning what survived -- with the plain model of what
must be there (confirmed entries, our backups and their bytes, daily-log lines) kept in step.
The rules that draw the operations and the invariants are in the test."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from memsys.clock import ManualClock
from memsys.compaction import CompactionOutcome, MemoryCompactor, user_requested_entries
from memsys.errors import MemoryFileError
from memsys.manager import MemoryManager
from memsys.sections import STANDARD_SECTIONS, LineKind, line_kind, parse_entries
from memsys.tools import SaveMemoryTool, UpdateMemoryTool, load_variant
from tests.helpers.compactors import compactor_model

__all__ = ["V049", "MemoryDirModel", "Snapshot"]

V049 = load_variant("v049-guardrails")


@dataclass(frozen=True)
class Snapshot:
    """The directory before an operation."""

    raw: bytes | None  # MEMORY.md's bytes (None: no file)
    text: str | None  # its text (None: no file, or not UTF-8)
    backups: frozenset[str]  # backup names listed


def _headers(text: str) -> Counter[str]:
    visible = (line.strip(" \t\r\n\ufeff") for line in text.splitlines())  # BOMs: invisible
    return Counter(line for line in visible if line_kind(line) is LineKind.HEADER)


class MemoryDirModel:
    """One memory directory and the plain model of what must be in it."""

    def start(self, directory: Path, clock: ManualClock) -> None:
        """Open ``directory`` with nothing confirmed yet."""
        self.dir = directory
        self.clock = clock
        self.confirmed: set[str] = set()
        self.made: list[tuple[str, bytes, frozenset[str]]] = []  # our backups, in order
        self.planted: dict[str, bytes] = {}  # copied-in backups with an old mtime
        self.daily: dict[date, list[str]] = {}
        self.reopen()

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
            tool = SaveMemoryTool(self.manager, sectioned=True)
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
            result = UpdateMemoryTool(self.manager).execute({"old_text": entry, "new_text": ""})
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


def _decodes(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
