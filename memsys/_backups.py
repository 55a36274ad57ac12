"""Which backups are ours, and how recent they are: by the time in their name, never mtime.

A backup's recency is the timestamp we wrote into its name (``MEMORY_backup_<stamp>[_N].md``)
and its sequence number; the file system's modification time plays no part (a clock that
stepped, ``cp`` of old backups, ``touch``: none of them reorders backups).

Only backups we wrote are counted and pruned. We list them in a ledger, ``DIR/.memory_backups``
(one name a line, rewritten atomically under the directory's lock, the name added *before* the
backup is written, so a killed writer never leaves an unlisted backup of ours). A file with a
backup's name that is not in the ledger (copied in, restored by hand, from before the ledger),
and anything with a listed name that is no longer a regular file (a directory, a symlink) is
never counted and never deleted; it is reported once per process with a warning naming it.

A new backup's name sorts after every backup-named entry in the directory, even when the clock
runs backwards: the stamp is the later of now and the newest existing stamp, with the next
sequence number.
"""

from __future__ import annotations

import logging
import os
import re
import stat
from pathlib import Path

from memsys._safe_files import read_regular_text, write_text

__all__ = [
    "BACKUP_NAME",
    "LEDGER_NAME",
    "backup_key",
    "next_backup_name",
    "our_backups",
    "read_ledger",
    "write_ledger",
]

log = logging.getLogger("memsys.storage")

LEDGER_NAME = ".memory_backups"
BACKUP_NAME = re.compile(r"^MEMORY_backup_(\d{4}-\d{2}-\d{2}_\d{2}-\d{2}-\d{2})(?:_(\d+))?\.md$")
_MAX_LEDGER_BYTES = 1024 * 1024
_REPORTED: set[tuple[str, str]] = set()


def backup_key(name: str) -> tuple[str, int]:
    """(stamp, sequence) of a backup name: larger is more recent."""
    match = BACKUP_NAME.match(name)
    if match is None:
        raise ValueError(f"{name!r} is not a backup name")
    return match.group(1), int(match.group(2) or 1)


def read_ledger(memory_dir: Path) -> list[str]:
    """Names in the ledger (valid backup names only), in file order; [] when it is missing."""
    text = read_regular_text(memory_dir / LEDGER_NAME, _MAX_LEDGER_BYTES)
    if text is None:
        return []
    names = (line.strip() for line in text.splitlines())
    return list(dict.fromkeys(n for n in names if BACKUP_NAME.match(n)))


def write_ledger(memory_dir: Path, names: list[str]) -> None:
    """Replace the ledger with ``names`` (oldest first)."""
    ordered = sorted(dict.fromkeys(names), key=backup_key)
    write_text(memory_dir / LEDGER_NAME, "".join(f"{n}\n" for n in ordered))


def our_backups(memory_dir: Path) -> list[str]:
    """Backups we wrote that are regular files now, most recent first (by name).

    Everything else that looks like a backup is reported once and left alone.
    """
    if not memory_dir.is_dir():
        return []
    listed = set(read_ledger(memory_dir))
    ours = []
    for entry in os.scandir(memory_dir):
        if not entry.name.startswith("MEMORY_backup_"):
            continue
        try:
            mode = entry.stat(follow_symlinks=False).st_mode
        except FileNotFoundError:
            continue
        if entry.name in listed and stat.S_ISREG(mode):
            ours.append(entry.name)
        else:
            _report_once(memory_dir, entry.name, mode, listed=entry.name in listed)
    return sorted(ours, key=backup_key, reverse=True)


def next_backup_name(memory_dir: Path, now_stamp: str) -> str:
    """A free name that sorts after every backup-named entry in ``memory_dir``."""
    existing = [backup_key(n) for n in os.listdir(memory_dir) if BACKUP_NAME.match(n)]
    newest = max(existing, default=("", 0))
    stamp, sequence = (now_stamp, 1) if now_stamp > newest[0] else (newest[0], newest[1] + 1)
    while True:
        name = f"MEMORY_backup_{stamp}{'' if sequence == 1 else f'_{sequence}'}.md"
        if not os.path.lexists(memory_dir / name):
            return name
        sequence += 1


def _report_once(memory_dir: Path, name: str, mode: int, *, listed: bool) -> None:
    key = (os.path.realpath(memory_dir), name)
    if key in _REPORTED:
        return
    _REPORTED.add(key)
    path = memory_dir / name
    if listed or not stat.S_ISREG(mode):
        why = "is not a regular file (a directory or a link)"
    elif not BACKUP_NAME.match(name):
        why = "its name is not one memsys writes (MEMORY_backup_YYYY-MM-DD_HH-MM-SS[_N].md)"
    else:
        why = f"was not written by memsys (it is not listed in {LEDGER_NAME})"
    log.warning(
        "%s looks like a backup but %s; it is not counted as a backup and never pruned. "
        "Move it out of the memory directory if it does not belong there",
        path,
        why,
    )
