"""Running one cell: the model client built for it, and its cassette around the run.

A simulated model runs as it is; a real model always goes through the cell's cassette
(:mod:`evals.cassettes`), replayed with the sampling its label recorded, or recorded. Used by
``memeval run`` (in worker processes under ``--jobs``) and ``memeval record``.
"""

from __future__ import annotations

import os
from dataclasses import replace

from evals.cassettes import (
    CassetteLabel,
    CassetteMode,
    ResponsePool,
    read_label,
    use_cassette,
)
from evals.errors import UsageError
from evals.grid.cell import Cell
from evals.run._embed_cache import shared_embedder
from evals.run.engine import run_scenario
from evals.run.spec import RunSpec
from memsys.clock import SystemClock
from memsys.llm import RemoteClient, make_client
from memsys.llm.openai import BASE_URL_ENV
from memsys.storage import without_fsync

__all__ = ["client_options", "run_cell"]


def client_options(cell: Cell, mode: CassetteMode, options: dict[str, object]) -> dict[str, object]:
    """A real model's client options: on replay, and when a cached cell is brought back, the
    sampling the recording used (so its unchanged calls are the same requests)."""
    out = dict(options)
    reads_label = mode in (CassetteMode.REPLAY, CassetteMode.MISSING)
    label = read_label(cell.cassette_path()) if reads_label else None
    if label is not None:
        out.update({k: v for k, v in _sampling(label).items() if k not in out})
    if mode is CassetteMode.REPLAY:
        # Replay needs no server: the recorded one is named but never called.
        if not os.environ.get(BASE_URL_ENV):
            recorded = label.base_url if label is not None else None
            out.setdefault("base_url", recorded or "http://replay.invalid/v1")
    elif cell.repeat is not None and isinstance(options.get("seed"), int):
        # A base seed given for the samples: repeat N samples with base + N - 1, whether the
        # cell is new or brought back (before, a stale repeat-3 re-recorded with seed 1).
        out["seed"] = int(options["seed"]) + cell.repeat - 1  # type: ignore[call-overload]
    return out


def _sampling(label: CassetteLabel) -> dict[str, object]:
    """The client options a recording used that shape its requests."""
    out: dict[str, object] = {"text_tool_calls": bool(label.text_tool_calls)}
    if label.temperature is not None:
        out["temperature"] = label.temperature
    if label.seed is not None:
        out["seed"] = label.seed
    if label.max_tokens is not None:
        out["max_tokens"] = label.max_tokens
    return out


def run_cell(
    spec: RunSpec,
    real: bool,
    mode: CassetteMode,
    options: dict[str, object],
    pool: ResponsePool | None = None,
) -> str:
    """Run one cell; a real model always goes through the cell's cassette (in ``missing``
    mode with ``pool``: other cells' answers for the same model and weights).

    Runs in a worker process under ``--jobs``; each process loads the embedder once.
    """
    embedder = shared_embedder()
    cell = spec.cell
    if not real:
        with without_fsync():  # a run's memory dir is throwaway: atomic writes, no fsync
            run_scenario(spec, embedder, make_client(cell.model))
        return str(spec.out_dir)
    client = make_client(cell.model, **client_options(cell, mode, options))
    if not isinstance(client, RemoteClient):
        raise UsageError(f"{cell.model} is not a model over HTTP, so it has no cassette")
    label = CassetteLabel(
        cell.model,
        client.base_url,
        SystemClock().now().date().isoformat(),
        temperature=client.temperature,
        seed=client.seed,
        text_tool_calls=client.text_tool_calls,
        max_tokens=getattr(client, "max_tokens", None),
        variant_file=str(spec.variant_file) if spec.variant_file else None,
    )
    path = cell.cassette_path()
    command = cell.rerecord_command(spec.scenario_file, spec.variant_file)
    cassette = use_cassette(
        path, mode, label=label, rerecord_command=command, play_all=True, pool=pool
    )
    with cassette, without_fsync():
        run_scenario(replace(spec, cassette=str(path)), embedder, client)
    return str(spec.out_dir)
