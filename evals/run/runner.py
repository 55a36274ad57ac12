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
from evals.run.run_spec import RunSpec
from memsys.clock import SystemClock
from memsys.llm import RemoteClient, make_client
from memsys.llm.openai import BASE_URL_ENV
from memsys.storage import without_fsync

__all__ = ["client_options", "run_cell"]


def client_options(cell: Cell, mode: CassetteMode, options: dict[str, object]) -> dict[str, object]:
    """A real model's client options: on replay, and when a cached cell is brought back, the
    sampling the recording used (so its unchanged calls are the same requests)."""
    out = dict(options)
    if mode is CassetteMode.MISSING and (label := read_label(cell.cassette_path())) is not None:
        if label.temperature is not None:
            out.setdefault("temperature", label.temperature)
        if label.seed is not None:
            out.setdefault("seed", label.seed)
        out.setdefault("text_tool_calls", bool(label.text_tool_calls))
        return out
    if mode is CassetteMode.REPLAY:
        label = read_label(cell.cassette_path())
        if label is not None:
            if label.temperature is not None:
                out.setdefault("temperature", label.temperature)
            if label.seed is not None:
                out.setdefault("seed", label.seed)
            out.setdefault("text_tool_calls", bool(label.text_tool_calls))
            # Replay needs no server: the recorded one is named but never called.
            if not os.environ.get(BASE_URL_ENV):
                out.setdefault("base_url", label.base_url or "http://replay.invalid/v1")
        elif not os.environ.get(BASE_URL_ENV):
            out.setdefault("base_url", "http://replay.invalid/v1")
    elif cell.repeat is not None and isinstance(out.get("seed"), int):
        out["seed"] = int(out["seed"]) + cell.repeat - 1  # type: ignore[call-overload]
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
    )
    path = cell.cassette_path()
    command = cell.rerecord_command(spec.scenario_file, spec.variant_file)
    cassette = use_cassette(
        path, mode, label=label, rerecord_command=command, play_all=True, pool=pool
    )
    with cassette, without_fsync():
        run_scenario(replace(spec, cassette=str(path)), embedder, client)
    return str(spec.out_dir)
