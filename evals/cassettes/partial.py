"""The answers a cache run got before it stopped, kept beside the cassette to resume from.

A ``missing``-mode run writes its cassette only once the cell completes (:mod:`.cache`), so
that a stopped run leaves the committed recording replaying. Without more, a refusal after
twenty minutes (a context overflow on day 3), Ctrl-C or a kill threw away every answer the
model had given. So each answer (HTTP 200) is also written, as it arrives, to
``<cassette>.partial.json`` (atomically: a kill leaves the file as it was after the last
answer). The next cache run of the cell answers from it after the cell's own cassette and
before the pool, and deletes it once the cell completes. The file names the model and the
weights; answers of other weights are never replayed (the file is started afresh).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from vcr.serializers import compat

from evals.cassettes._file import CASSETTE_LIMITS, interaction_problems
from evals.cassettes.cache import ResponsePool, UsedCall, add_answers
from evals.errors import CassetteFileError
from memsys.safe_io import ParseLimits, parse_json, read_input_text, write_output

__all__ = ["PARTIAL_SUFFIX", "PartialRecording", "kept_calls", "partial_path"]

PARTIAL_SUFFIX = ".partial.json"
"""Beside ``cell.yaml``: ``cell.yaml.partial.json`` (no ``*.yaml`` glob picks it up)."""
_LIMITS = ParseLimits(max_bytes=CASSETTE_LIMITS.max_bytes, max_nodes=2_000_000, max_depth=64)
_KEYS = ("partial_recording_of", "model", "model_sha256", "interactions")


def partial_path(cassette: Path) -> Path:
    """Where the stopped run of ``cassette``'s cell keeps its answers."""
    return cassette.with_name(cassette.name + PARTIAL_SUFFIX)


class PartialRecording:
    """The kept answers of one cell for one model and weights.

    Args:
        cassette: The cell's cassette path.
        model: ``provider/model``.
        model_sha256: The served weights' hash (None when unknown: a hosted model).

    Raises:
        CassetteFileError: the kept file is there but broken (it names the file; deleting
            it records the cell from its start).
    """

    def __init__(self, cassette: Path, model: str, model_sha256: str | None) -> None:
        self.path = partial_path(cassette)
        self._header = {
            "partial_recording_of": cassette.name,
            "model": model,
            "model_sha256": model_sha256,
        }
        self._interactions: list[dict[str, Any]] = []
        data = _read(self.path)
        if data is not None and all(data[k] == v for k, v in self._header.items()):
            self._interactions = data["interactions"]
        self.answers = ResponsePool(add_answers({}, self._interactions))
        """The kept answers by request key (for :class:`~evals.cassettes.cache.CachingCassette`)."""

    def __len__(self) -> int:
        return len(self._interactions)

    def keep(self, call: UsedCall) -> None:
        """Add a call the model answered with HTTP 200 (others are asked again next time).

        Raises:
            MemoryFileError: the file cannot be written (a recording that could not keep
                its answers stops at once, not after an hour).
        """
        status = call.response.get("status", {})
        if not isinstance(status, dict) or status.get("code") != 200:
            return
        self._interactions.append(
            {
                "step": call.step,
                "request": compat.convert_to_unicode(call.request._to_dict()),
                "response": compat.convert_to_unicode(copy.deepcopy(call.response)),
            }
        )
        text = json.dumps({**self._header, "interactions": self._interactions}, indent=1)
        write_output(self.path, text + "\n")

    def discard(self) -> None:
        """The cell completed: its cassette holds every call now."""
        self.path.unlink(missing_ok=True)


def kept_calls(cassette: Path) -> int:
    """How many answers a stopped run of ``cassette``'s cell kept (0: none, or unreadable)."""
    try:
        data = _read(partial_path(cassette))
    except CassetteFileError:
        return 0
    return len(data["interactions"]) if data is not None else 0


def _read(path: Path) -> dict[str, Any] | None:
    if not path.exists() and not path.is_symlink():
        return None
    fix = f"rm {path}  (the cell is then recorded from its first call)"
    try:
        data = parse_json(read_input_text(path, _LIMITS.max_bytes, pipes=False), _LIMITS)
    except (OSError, ValueError) as exc:
        raise CassetteFileError(path, [(None, f"does not load ({exc})")], fix) from None
    if not isinstance(data, dict) or set(data) != set(_KEYS):
        problem = f"not a kept partial recording (the keys should be {list(_KEYS)})"
        raise CassetteFileError(path, [(None, problem)], fix)
    interactions = data["interactions"]
    if not isinstance(interactions, list):
        raise CassetteFileError(path, [(None, "'interactions' is not a list")], fix)
    problems = [
        (number, message)
        for number, interaction in enumerate(interactions, start=1)
        for message in interaction_problems(interaction)
    ]
    if problems:
        raise CassetteFileError(path, problems, fix)
    return data
