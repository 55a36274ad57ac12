"""Inspect recorded cassettes offline: what each one holds, and whether it is sound.

:func:`describe` says which run cell a cassette belongs to (from the layout of
:meth:`evals.grid.cell.Cell.cassette_path`), what its label says and how many calls it holds.
:func:`check_cassette` lists what is wrong with one: YAML that does not load (or passes the
size limits), a structure vcrpy does not write, no interactions at all, interactions of the
wrong shape, a recorded error or non-JSON reply (the same
checks replay makes, :mod:`evals.cassettes._file`), a missing or non-``real`` label, or a
secret the recorder should have filtered (a credential header, credentials or a key in a
URI, a ``Bearer`` token, an ``sk-`` key, the value of an API-key variable of the
environment: :func:`memsys.redact.find_secrets`). Nothing here touches the network.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evals.cassettes._file import read_cassette
from evals.cassettes.labels import ServerTimings, reply_timings
from evals.cassettes.replay import (
    SECRET_HEADERS,
    SECRET_RESPONSE_HEADERS,
    CassetteLabel,
    read_label,
)
from evals.cassettes.replay import env_secrets as current_env_secrets
from evals.errors import CassetteFileError, UsageError

# The recorder's own lists: what use_cassette promises never to write.
from evals.grid.cell import Cell
from memsys.llm.base import ModelKind
from memsys.redact import find_secrets

__all__ = [
    "CassetteInfo",
    "CassetteProblem",
    "check_cassette",
    "describe",
    "find_cassettes",
    "recorded_cells",
]

_SECRET_HEADER_NAME = re.compile(r"authorization|api[-_]?key", re.IGNORECASE)
# Not a credential, but private all the same: a server that names its weights by path
# (llama-server without --alias) would publish the recording machine's home directory in
# every reply.
_HOME_PATH = re.compile(r"(?<![\w.~])/(?:root|home/[^/\s\"']+|Users/[^/\s\"']+)/")


@dataclass(frozen=True)
class CassetteProblem:
    """One thing wrong with a cassette."""

    path: Path
    """The cassette file."""
    message: str
    """What is wrong (never the secret itself)."""
    interaction: int | None = None
    """1-based index of the recorded interaction concerned, if any."""

    def __str__(self) -> str:
        where = f" interaction #{self.interaction}:" if self.interaction is not None else ""
        return f"{self.path}:{where} {self.message}"


@dataclass(frozen=True)
class CassetteInfo:
    """What one cassette is, for listing."""

    path: Path
    """The cassette file, relative to the root it was found under."""
    cell: Cell | None
    """The run cell its path names, or None when the path is not a cassette path."""
    label: CassetteLabel | None
    """Its label, or None when it has none (or one that does not load)."""
    label_problem: str | None
    """Why the label did not load, if it did not."""
    interactions: int | None
    """Number of recorded interactions, or None when the file does not load."""
    size: int
    """File size in bytes."""
    timings: ServerTimings | None = None
    """llama.cpp's timings of the calls its recording sent to the model: the label's, else
    summed from the recorded replies (recordings made before labels kept them)."""

    @property
    def kind(self) -> str:
        """The label's model kind, ``unlabelled``, or ``invalid-label``."""
        if self.label is not None:
            return self.label.kind.value
        return "invalid-label" if self.label_problem else "unlabelled"

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (one line of ``memeval cassettes list --json``)."""
        cell = self.cell
        return {
            "path": self.path.as_posix(),
            "scenario": cell.scenario if cell else None,
            "model": cell.model if cell else None,
            "policy": cell.policy if cell else None,
            "variant": cell.variant if cell else None,
            "repeat": cell.repeat if cell else None,
            "kind": self.kind,
            "recorded_on": self.label.recorded_on if self.label else None,
            "base_url": self.label.base_url if self.label else None,
            "interactions": self.interactions,
            "branches": [b.cpu for b in self.label.branches] if self.label else [],
            "record_minutes": self.record_minutes,
            "seconds_per_call": self.label.seconds_per_call if self.label else None,
            "replayed_calls": self.label.replayed_calls if self.label else None,
            "diverged_at": self.label.diverged_at if self.label else None,
            "cache_share": _rounded(self.timings.cache_share if self.timings else None, 3),
            "prompt_tokens_per_s": _rounded(
                self.timings.prompt_tokens_per_s if self.timings else None, 1
            ),
            "generated_tokens_per_s": _rounded(
                self.timings.generated_tokens_per_s if self.timings else None, 1
            ),
            "size": self.size,
        }

    @property
    def record_minutes(self) -> float | None:
        """Wall-clock minutes the last recording spent on the calls it sent (not those it
        replayed), if labelled."""
        seconds = self.label.sent_seconds if self.label is not None else None
        return None if seconds is None else round(seconds / 60, 1)


def _rounded(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


def find_cassettes(root: Path) -> list[Path]:
    """Every ``*.yaml`` file under ``root``, sorted.

    Raises:
        UsageError: ``root`` is not a directory.
    """
    if not root.is_dir():
        raise UsageError(f"cassette directory {root} does not exist (or is not a directory)")
    return sorted(p for p in root.rglob("*.yaml") if p.is_file())


def describe(path: Path, root: Path) -> CassetteInfo:
    """Path layout, label, interaction count and size of the cassette ``path`` under ``root``."""
    label, label_problem = _label(path)
    interactions, problems = read_cassette(path)
    timings = label.timings if label is not None else None
    if timings is None and not problems:
        timings = ServerTimings.total(reply_timings(i["response"]) for i in interactions)
    return CassetteInfo(
        path=path.relative_to(root),
        cell=Cell.from_cassette_path(path, root),
        label=label,
        label_problem=label_problem,
        interactions=None if problems else len(interactions),
        size=path.stat().st_size,
        timings=timings,
    )


def check_cassette(
    path: Path, env_secrets: Sequence[tuple[str, str]] | None = None
) -> list[CassetteProblem]:
    """Everything wrong with the cassette ``path``; empty when it is sound.

    Args:
        path: The cassette file.
        env_secrets: ``(name, value)`` pairs of secrets to look for; by default the values
            of the API-key variables the recorder filters, as currently set.
    """
    secrets = current_env_secrets() if env_secrets is None else env_secrets
    label, label_problem = _label(path)
    problems: list[CassetteProblem] = []
    if label_problem:
        problems.append(CassetteProblem(path, label_problem))
    elif label is None:
        problems.append(CassetteProblem(path, f"no label ({path.name}.meta.json is missing)"))
    elif label.kind is not ModelKind.REAL:
        problems.append(
            CassetteProblem(
                path, f"label kind is {label.kind.value!r}; cassettes only hold 'real' recordings"
            )
        )
    interactions, load_problems = read_cassette(path)
    problems += [CassetteProblem(path, message, index) for index, message in load_problems]
    if load_problems:
        return problems
    if not interactions:
        # Replay takes an empty cassette for a missing one and records afresh: as a
        # committed recording it replays nothing (issue 41: it passed check, then replay
        # said it did not exist).
        problems.append(
            CassetteProblem(path, "holds no interactions (an empty recording): record it again")
        )
    known = [(value, placeholder.strip("<>")) for placeholder, value in secrets]
    for index, interaction in enumerate(interactions, start=1):
        problems += [
            CassetteProblem(path, message, index)
            for message in _interaction_problems(interaction, known)
        ]
    return problems


def _label(path: Path) -> tuple[CassetteLabel | None, str | None]:
    try:
        return read_label(path), None
    except CassetteFileError as exc:
        return None, exc.problems[0][1]


def _interaction_problems(
    interaction: dict[str, Any], known_secrets: list[tuple[str, str]]
) -> Iterator[str]:
    request, response = interaction["request"], interaction["response"]
    reported: set[str] = set()
    for name, values in _headers(request):
        if (name.lower() in SECRET_HEADERS or _SECRET_HEADER_NAME.search(name)) and any(
            v.strip() for v in values
        ):
            reported.add(f"request.headers.{name}")
            yield f"request header {name!r} is recorded with a value (credentials header)"
    for name, values in _headers(response):
        if name.lower() in SECRET_RESPONSE_HEADERS and any(v.strip() for v in values):
            reported.add(f"response.headers.{name}")
            yield f"response header {name!r} is recorded with a value"
    for where, text in _strings(interaction):
        if where in reported:
            continue
        found = [finding.description for finding in find_secrets(text, known_secrets)]
        if _HOME_PATH.search(text):
            found.append("an absolute path in a home directory of the recording machine")
        if found:
            yield f"{where} holds {', '.join(found)}"


def _headers(message: dict[str, Any]) -> Iterator[tuple[str, list[str]]]:
    headers = message.get("headers")
    if not isinstance(headers, dict):
        return
    for name, value in headers.items():
        values = value if isinstance(value, list) else [value]
        yield str(name), [_text(v) for v in values]


def _strings(node: object, where: str = "") -> Iterator[tuple[str, str]]:
    """Every text leaf under ``node`` with its location (``request.headers.accept``...)."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _strings(value, f"{where}.{key}" if where else str(key))
    elif isinstance(node, list | tuple):
        for value in node:
            yield from _strings(value, where)
    elif isinstance(node, str | bytes):
        yield where.removesuffix(".string"), _text(node)


def _text(value: object) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return "" if value is None else str(value)


def recorded_cells(root: Path) -> list[Cell]:
    """The cells of every finished recording under ``root`` (a label marks one finished).

    Where a cell has sampled repeats (``<variant>/repeat-N.yaml``) and a single recording
    (``<variant>.yaml``), the repeats stand for it: they are what ``--repeat`` replays. A
    missing ``root`` holds none. Sorted, so runs list them in a stable order.
    """
    if not root.is_dir():
        return []
    cells = [Cell.from_cassette_path(path, root) for path in find_cassettes(root)]
    found = [c for c in cells if c is not None and read_label(c.cassette_path(root)) is not None]
    sampled = {c.group for c in found if c.repeat is not None}
    found = [c for c in found if c.repeat is not None or c not in sampled]
    return sorted(found, key=lambda c: c.sort_key)
