"""Cases Hypothesis found in the memory-dir state machine, replayed step by step so they are
checked on every run, not only when the random search meets them again."""

from __future__ import annotations

from tests.memsys.test_memory_state_machine import MemoryDirMachine


def test_a_compacted_entry_that_only_survives_inside_a_requested_one_is_not_deletable() -> None:
    """Hypothesis found it: "0" and "User requested: 0" saved, compaction keeps only the
    requested one; the model must not count "0" as still confirmed (the substring would make
    a delete of "0" take the requested entry)."""
    machine = MemoryDirMachine()
    machine.open_dir()
    try:
        machine.save(category="preferences", requested=False, text="0")
        machine.save(category="preferences", requested=True, text="0")
        machine.compact(compactor="sim/careful")
        for entry in sorted(e for e in machine.confirmed if not e.startswith("User requested:")):
            machine.do_delete(entry, machine.snapshot(), crashed=False)
        machine.nothing_confirmed_is_lost()
        assert "User requested: 0" in (machine.text() or "")
    finally:
        machine.teardown()


def test_a_compaction_never_writes_the_title_twice_behind_a_pasted_byte_order_mark() -> None:
    """Hypothesis found it (CI, 2026-11-24): an entry saved, then a hand edit that pasted a
    whole file (BOM first) after it and cut the rest; the compaction's result repeated the
    title, one copy behind the invisible BOM, and was written."""
    machine = MemoryDirMachine()
    machine.open_dir()
    try:
        machine.save(category="preferences", requested=False, text="0")
        pasted = b"- 0\n\xef\xbb\xbf# Long-term Memory\n\n## User Profile\n\n## Preferences"
        machine.edit_by_hand(edit=(("bom", "truncate", "add entry"), lambda _old: pasted))
        machine.compact(compactor="drops user requested")  # checks no header repeats
        machine.nothing_confirmed_is_lost()
    finally:
        machine.teardown()
