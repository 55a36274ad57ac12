"""``memeval run --record``: the real cells whose cassettes do not replay, brought back.

Every cell was first replayed strictly; those that missed (no cassette yet, or a request
that stopped matching) are recorded here through the recording path of ``memeval record``
(:mod:`evals.record.recorder`): the server started as ``memeval record`` starts it (or the
``-M base_url`` server, or a hosted API), each cell replaying what still matches and calling
the model from where it diverged, then scored like every other cell.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import defaultdict
from typing import TYPE_CHECKING

from evals.errors import CassetteMissError
from memsys.errors import RunFailure

if TYPE_CHECKING:
    from evals.results.results import RunResult
    from evals.run.plan import PlannedRun
    from evals.scorers import ScorerSettings

__all__ = ["bring_back"]


def bring_back(
    runs: list[PlannedRun],
    misses: dict[int, CassetteMissError],
    options: dict[str, object],
    args: argparse.Namespace,
    settings: ScorerSettings,
) -> dict[int, RunResult]:
    """Record the missed cells (one server per model) and score them; results by plan index.

    Raises:
        RunFailure: a cell could not be recorded (the server failed, calls failed).
    """
    from evals.cli.record import record_planned
    from evals.record.recording import PlannedCell
    from evals.results.scoring import score_trace
    from evals.run import shared_embedder
    from evals.trace import TRACE_FILE_NAME
    from memsys.llm.openai import BASE_URL_ENV

    print(f"{len(misses)} real cell(s) do not replay; recording them:", file=sys.stderr)
    by_model: dict[str, list[int]] = defaultdict(list)
    for index in sorted(misses):
        cell = runs[index].spec.cell
        miss = misses[index]
        what = "no cassette yet" if "does not exist" in miss.problem else miss.change or "changed"
        print(f"  {cell.cassette_path()}: {miss.where()}: {what}", file=sys.stderr)
        by_model[cell.model].append(index)
    client = {k: v for k, v in options.items() if k != "base_url"}
    base_url = str(options.get("base_url") or os.environ.get(BASE_URL_ENV) or "") or None
    for model, indices in by_model.items():
        planned = [
            PlannedCell(
                runs[i].spec.cell,
                runs[i].spec.scenario_file,
                None,
                None,
                runs[i].spec.variant_file,
                run_dir=runs[i].spec.out_dir,
                options=client,
            )
            for i in indices
        ]
        server_args = argparse.Namespace(
            base_url=base_url,
            server_info=getattr(args, "server_info", None),
            runtime=getattr(args, "runtime", "xllamacpp"),
            threads=getattr(args, "threads", 2),
            parallel=1,
            cache=None,
            jobs=1,
            rerecord=False,
            out="runs/record",
        )
        if record_planned(planned, model, server_args) != 0:
            raise RunFailure(
                f"{model}: some cells could not be recorded (listed above); the cassettes "
                "that were there are unchanged. Fix the server and run again"
            )
    return {
        i: score_trace(runs[i].spec.out_dir / TRACE_FILE_NAME, shared_embedder(), settings)
        for i in sorted(misses)
    }
