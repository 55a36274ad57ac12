"""MemoryFileStorage: backups (RFC-049 3D unit test points), reads, daily logs."""

from __future__ import annotations

import os
from datetime import date, timedelta
from pathlib import Path

import pytest

from memsys._safe_files import read_memory_text, write_memory_text
from memsys.clock import ManualClock
from memsys.errors import BackupNameError, MemoryFileError
from memsys.manager import MemoryManager
from memsys.storage import MAX_MEMORY_FILE_BYTES, MemoryFileStorage


@pytest.fixture
def storage(tmp_path: Path, clock: ManualClock) -> MemoryFileStorage:
    return MemoryFileStorage(tmp_path, clock)


def make_backups(storage: MemoryFileStorage, clock: ManualClock, n: int) -> list[str]:
    names = []
    for i in range(n):
        write_memory_text(storage.memory_file, f"# Long-term Memory\n- version {i}\n")
        name = storage.create_backup()
        assert name is not None
        names.append(name)
        clock.advance(timedelta(minutes=1))
    return names


def test_create_backup_copies_memory_with_timestamped_name(storage: MemoryFileStorage) -> None:
    write_memory_text(storage.memory_file, "- Prefers dark mode\n")
    name = storage.create_backup()
    assert name == "MEMORY_backup_2026-03-02_14-30-00.md"
    assert (storage.memory_dir / name).read_text() == "- Prefers dark mode\n"


def test_create_backup_of_blank_memory_returns_none(storage: MemoryFileStorage) -> None:
    write_memory_text(storage.memory_file, "  \n\n")
    assert storage.create_backup() is None
    assert storage.list_backups() == []


def test_create_backup_without_memory_file_returns_none(storage: MemoryFileStorage) -> None:
    assert storage.create_backup() is None


def test_two_backups_in_the_same_second_do_not_overwrite(storage: MemoryFileStorage) -> None:
    write_memory_text(storage.memory_file, "first\n")
    first = storage.create_backup()
    write_memory_text(storage.memory_file, "second\n")
    second = storage.create_backup()
    assert first != second
    assert second == "MEMORY_backup_2026-03-02_14-30-00_2.md"
    assert (storage.memory_dir / str(first)).read_text() == "first\n"
    assert storage.list_backups() == [second, first]


def test_seven_backups_leave_the_five_most_recent(
    storage: MemoryFileStorage, clock: ManualClock
) -> None:
    names = make_backups(storage, clock, 7)
    assert storage.list_backups() == list(reversed(names[2:]))
    assert storage.prune_old_backups() == []


def test_prune_three_backups_deletes_nothing(
    storage: MemoryFileStorage, clock: ManualClock
) -> None:
    names = make_backups(storage, clock, 3)
    assert storage.prune_old_backups() == []
    assert sorted(storage.list_backups()) == sorted(names)


def test_list_backups_orders_by_name_never_mtime(
    storage: MemoryFileStorage, clock: ManualClock
) -> None:
    """Issue 28: recency was the mtime, so a touched or copied old backup outranked new ones."""
    names = make_backups(storage, clock, 3)
    assert storage.list_backups() == list(reversed(names))
    # The oldest backup touched (or copied over) later is still the oldest: its name says so.
    os.utime(storage.memory_dir / names[0], ns=(4_000_000_000_000_000_000,) * 2)
    assert storage.list_backups() == list(reversed(names))
    assert storage.prune_old_backups(max_backups=2) == [names[0]]


def test_five_later_named_files_we_did_not_write_are_neither_counted_nor_pruned(
    storage: MemoryFileStorage, clock: ManualClock
) -> None:
    """Issue 12, then 28: five backup-named files copied in (not written by us) used to win,
    and then to be pruned; now they are left alone and the new backup sorts after them."""
    storage.memory_dir.mkdir(parents=True, exist_ok=True)
    forged = [f"MEMORY_backup_2099-01-01_{hour}-00-00.md" for hour in range(10, 15)]
    for name in forged:
        (storage.memory_dir / name).write_text(f"- copied in {name}\n")
    write_memory_text(storage.memory_file, "- the only copy of this\n")
    made = storage.make_backup()
    assert made is not None and made.pruned == ()
    assert made.name == "MEMORY_backup_2099-01-01_14-00-00_2.md"  # after the newest name
    assert storage.list_backups() == [made.name]
    assert (storage.memory_dir / made.name).read_text() == "- the only copy of this\n"
    assert all((storage.memory_dir / name).exists() for name in forged)


def test_restore_leaves_at_most_five_backups(
    storage: MemoryFileStorage, clock: ManualClock
) -> None:
    """Issue 12/15: a restore backs up the replaced file, and used to never prune."""
    names = make_backups(storage, clock, 5)
    for i in range(4):
        clock.advance(timedelta(minutes=1))
        write_memory_text(storage.memory_file, f"- edited {i}\n")
        assert storage.restore_from_backup(storage.list_backups()[-1])
        assert len(storage.list_backups()) == 5
    newest = storage.memory_dir / storage.list_backups()[0]
    assert newest.read_text() == "- edited 3\n" and newest.name not in names


def test_list_backups_ignores_other_files(storage: MemoryFileStorage, clock: ManualClock) -> None:
    names = make_backups(storage, clock, 1)
    (storage.memory_dir / "MEMORY_backup_notes.md").write_text("x")
    (storage.memory_dir / "MEMORY_backup_2026-03-02_14-30-00.txt").write_text("x")
    assert storage.list_backups() == names


def test_restore_from_valid_backup_overwrites_memory(
    storage: MemoryFileStorage, clock: ManualClock
) -> None:
    names = make_backups(storage, clock, 2)
    write_memory_text(storage.memory_file, "broken by a bad compaction\n")
    assert storage.restore_from_backup(names[0]) is True
    assert read_memory_text(storage.memory_file) == "# Long-term Memory\n- version 0\n"


def test_restore_keeps_the_replaced_content_as_a_backup(
    storage: MemoryFileStorage, clock: ManualClock
) -> None:
    names = make_backups(storage, clock, 1)
    write_memory_text(storage.memory_file, "content the user still wants\n")
    assert storage.restore_from_backup(names[0])
    kept = [n for n in storage.list_backups() if n not in names]
    assert len(kept) == 1
    assert (storage.memory_dir / kept[0]).read_text() == "content the user still wants\n"


def test_restore_from_missing_backup_returns_false(storage: MemoryFileStorage) -> None:
    write_memory_text(storage.memory_file, "keep me\n")
    assert storage.restore_from_backup("MEMORY_backup_2020-01-01_00-00-00.md") is False
    assert read_memory_text(storage.memory_file) == "keep me\n"


def test_restore_from_blank_backup_returns_false(storage: MemoryFileStorage) -> None:
    write_memory_text(storage.memory_file, "keep me\n")
    (storage.memory_dir / "MEMORY_backup_2020-01-01_00-00-00.md").write_text("\n")
    assert storage.restore_from_backup("MEMORY_backup_2020-01-01_00-00-00.md") is False
    assert read_memory_text(storage.memory_file) == "keep me\n"


@pytest.mark.parametrize(
    "name",
    [
        "../MEMORY_backup_2026-03-02_14-30-00.md",
        "/etc/passwd",
        "MEMORY.md",
        "daily/2026-03-02.md",
        "MEMORY_backup_2026-03-02_14-30-00.md/../../x",
        "",
    ],
)
def test_backup_names_outside_the_backup_set_are_rejected(
    storage: MemoryFileStorage, name: str
) -> None:
    write_memory_text(storage.memory_file, "keep me\n")
    with pytest.raises(BackupNameError, match="is not a backup of"):
        storage.restore_from_backup(name)
    assert read_memory_text(storage.memory_file) == "keep me\n"


def test_unreadable_memory_file_raises_naming_the_file(storage: MemoryFileStorage) -> None:
    storage.memory_dir.mkdir(parents=True, exist_ok=True)
    storage.memory_file.write_bytes(b"- ok\n\xff\xfe broken\n")
    with pytest.raises(MemoryFileError) as err:
        read_memory_text(storage.memory_file)
    assert str(storage.memory_file) in str(err.value)
    assert "UTF-8" in str(err.value)
    assert storage.memory_file.read_bytes() == b"- ok\n\xff\xfe broken\n"


def test_huge_memory_file_is_refused_not_truncated(storage: MemoryFileStorage) -> None:
    storage.memory_dir.mkdir(parents=True, exist_ok=True)
    storage.memory_file.write_bytes(b"x" * (MAX_MEMORY_FILE_BYTES + 1))
    with pytest.raises(MemoryFileError, match="limit"):
        read_memory_text(storage.memory_file)
    assert storage.memory_file.stat().st_size == MAX_MEMORY_FILE_BYTES + 1


def test_daily_log_appends_and_never_rewrites(
    storage: MemoryFileStorage, clock: ManualClock
) -> None:
    day = date(2026, 3, 2)
    manager = MemoryManager(storage.memory_dir, clock)
    manager.append_daily_log(day, "- discussed the API design")
    manager.append_daily_log(day, "- decided on JWT with RS256")
    assert (
        manager.read_daily_log(day) == "- discussed the API design\n- decided on JWT with RS256\n"
    )
    assert storage.list_daily_logs() == [storage.memory_dir / "daily" / "2026-03-02.md"]


def test_a_hand_edited_byte_order_mark_is_not_part_of_the_content(
    storage: MemoryFileStorage,
) -> None:
    storage.memory_dir.mkdir(parents=True, exist_ok=True)
    storage.memory_file.write_bytes(b"\xef\xbb\xbf## Preferences\n- tea\n")
    assert read_memory_text(storage.memory_file) == "## Preferences\n- tea\n"


def test_restore_over_an_unreadable_memory_file_keeps_its_bytes_as_a_backup(
    storage: MemoryFileStorage, clock: ManualClock
) -> None:
    """The moment a user restores is when MEMORY.md is broken: the broken bytes are kept."""
    names = make_backups(storage, clock, 1)
    clock.advance(timedelta(minutes=1))
    broken = b"- half a multi-byte character \xe2\x82"
    storage.memory_file.write_bytes(broken)
    assert storage.restore_from_backup(names[0])
    assert read_memory_text(storage.memory_file) == "# Long-term Memory\n- version 0\n"
    assert (storage.memory_dir / storage.list_backups()[0]).read_bytes() == broken
