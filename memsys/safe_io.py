"""The file rules memsys keeps, for callers outside it: safe reads and writes, bounded
parsing, and the directory lock.

memsys's own modules import these from their private homes (:mod:`memsys._safe_files`,
:mod:`memsys._inputs_outputs`, :mod:`memsys._parse_limits`, :mod:`memsys._dirlock`); the
harness (``evals``) imports them from here, its one public name for them, so it never
reaches into a private module (tests/test_layout.py).
"""

from __future__ import annotations

from memsys._dirlock import dir_lock, lock_holder
from memsys._inputs_outputs import (
    check_output_dir,
    check_output_path,
    portable_path,
    read_input_text,
    sqlite_refused,
    write_output,
)
from memsys._parse_limits import (
    InputFormat,
    ParseLimitError,
    ParseLimits,
    compose_yaml,
    load_input,
    parse_json,
    parse_text,
    parse_toml,
)
from memsys._safe_files import describe_kind

__all__ = [
    "InputFormat",
    "ParseLimitError",
    "ParseLimits",
    "check_output_dir",
    "check_output_path",
    "compose_yaml",
    "describe_kind",
    "dir_lock",
    "load_input",
    "lock_holder",
    "parse_json",
    "parse_text",
    "parse_toml",
    "portable_path",
    "read_input_text",
    "sqlite_refused",
    "write_output",
]
