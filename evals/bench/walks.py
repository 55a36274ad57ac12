"""``memeval bench walks``: how many modules a thing crosses on its way through the harness.

Runs one cell in this process (``sim/careful`` · ``guardrails`` · a variant file extending
``v049-guardrails``, offline) under :func:`sys.setprofile`, counting memsys and evals modules
only, and prints four walks:

- **variant → request**: every call handed the variant (the loaded object, one of its texts,
  or its file's path), from planning to the first model request carrying tools; a hop is a
  change of module between consecutive such calls.
- **day → MEMORY.md** and **day → daily log**: the call stack from the engine's scenario
  loop down to each write of the file (the deepest one is reported); a hop is a change of
  module along it.
- **trace → report**: every call from reading the cell's trace to the rendered page; the
  distinct modules and caller → callee module edges.

A shorter walk is one a reader follows with fewer files open; the counts are what the
README's layout section quotes, so a refactoring can say what it shortened.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from itertools import pairwise
from pathlib import Path
from types import FrameType

__all__ = ["Walk", "WalkProfiler", "add_arguments", "measure", "run"]

_OWN = ("memsys", "evals")
_DAILY_LOG = re.compile(r"\d{4}-\d{2}-\d{2}\.md")
_MARK = "Walk-marker: save durable facts only."


@dataclass(frozen=True)
class Walk:
    """One walk's count."""

    name: str
    hops: int
    """Changes of module along it (for trace → report: distinct module edges)."""
    modules: tuple[str, ...]
    """The memsys/evals modules it crosses, in first-seen order."""


def _module(frame: FrameType) -> str | None:
    name = frame.f_globals.get("__name__", "")
    if not isinstance(name, str) or not name.startswith(_OWN) or name == __name__:
        return None
    return name


def _changes(modules: Sequence[str]) -> int:
    return sum(1 for a, b in pairwise(modules) if a != b)


def _unique(modules: Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(modules))


@dataclass
class WalkProfiler:
    """The profile hook: watches calls and collects each walk as it happens."""

    variant_file: Path
    variant_calls: list[str] = field(default_factory=list)
    request_seen: bool = False
    file_stacks: dict[str, list[list[str]]] = field(default_factory=dict)
    trace_read: bool = False
    report_edges: list[tuple[str, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        # Imported here, once: the hook runs on every call, and the CLI imports this module
        # for its arguments alone.
        from memsys.llm import ChatRequest
        from memsys.tools.descriptions import Variant

        self._request_type, self._variant_type = ChatRequest, Variant

    def __call__(self, frame: FrameType, event: str, arg: object) -> None:
        if event != "call":
            return
        module = _module(frame)
        if module is None:
            return
        values = tuple(frame.f_locals.values())
        self._variant(module, values)
        self._file_write(frame, module, values)
        self._report(frame, module)

    def _variant(self, module: str, values: tuple[object, ...]) -> None:
        if self.request_seen:
            return
        if any(isinstance(v, self._request_type) and v.tools for v in values):
            self.request_seen = True
            self.variant_calls.append(module)
            return
        if any(
            isinstance(v, self._variant_type)
            or (isinstance(v, str) and _MARK in v)
            or (isinstance(v, str | Path) and str(v).endswith(self.variant_file.name))
            for v in values
        ):
            self.variant_calls.append(module)

    def _file_write(self, frame: FrameType, module: str, values: tuple[object, ...]) -> None:
        if module != "memsys._safe_files" or frame.f_code.co_name != "atomic_write_bytes":
            return
        target = next((v for v in values if isinstance(v, Path)), None)
        if target is None:
            return
        if target.name == "MEMORY.md":
            kind = "MEMORY.md"
        elif _DAILY_LOG.fullmatch(target.name):
            kind = "daily log"
        else:
            return
        stack: list[str] = []
        walker: FrameType | None = frame
        while walker is not None:
            own = _module(walker)
            if own is not None:
                stack.append(own)
            if own == "evals.run.engine" and walker.f_code.co_name == "run":
                break
            walker = walker.f_back
        else:
            return  # a write outside the engine's scenario loop (setup): not a day's walk
        self.file_stacks.setdefault(kind, []).append(stack[::-1])

    def _report(self, frame: FrameType, module: str) -> None:
        if not self.trace_read:
            self.trace_read = module == "evals.trace.jsonl" and frame.f_code.co_name in (
                "read_records",
                "read_trace",
            )
            if not self.trace_read:
                return
        caller = frame.f_back
        while caller is not None and _module(caller) is None:
            if caller.f_globals.get("__name__") == __name__:
                break  # called by the walk itself (:func:`measure`): where the walk starts
            caller = caller.f_back
        if caller is not None:
            self.report_edges.append((_module(caller) or "", module))

    def walks(self) -> list[Walk]:
        """The four walks, counted."""
        found = [
            Walk("variant → request", _changes(self.variant_calls), _unique(self.variant_calls))
        ]
        for kind in ("MEMORY.md", "daily log"):
            stacks = self.file_stacks.get(kind, [])
            # the longest stack; of two as long, the one through more modules
            deepest = max(stacks, key=lambda s: (_changes(s), len(_unique(s))), default=[])
            found.append(Walk(f"day → {kind}", _changes(deepest), _unique(deepest)))
        edges = {(a, b) for a, b in self.report_edges if a and a != b}
        modules = _unique([m for edge in self.report_edges for m in edge if m])
        found.append(Walk("trace → report", len(edges), modules))
        return found


def measure(scenario: Path, work: Path) -> list[Walk]:
    """Run one cell of ``scenario`` in ``work`` under the profiler, as ``memeval run`` does
    (plan, run, score, results, page); its walks."""
    from evals.cassettes import CassetteMode
    from evals.report import build_report, write_report
    from evals.results import finish_run
    from evals.results.scoring import score_trace
    from evals.run import shared_embedder
    from evals.run.plan import PlanRequest, plan_runs, resolve_variants
    from evals.run.runner import run_cell
    from evals.scenario import load_scenario
    from evals.scorers import DEFAULT_SCORER_SETTINGS
    from evals.trace import TRACE_FILE_NAME

    variant = work / "walk-variant.toml"
    variant.write_text(
        f'extends = "v049-guardrails"\n[save_memory]\ndescription = "{_MARK}"\n', encoding="utf-8"
    )
    shared_embedder()  # loaded before the profile: the model's load is no walk
    profiler = WalkProfiler(variant)
    sys.setprofile(profiler)
    try:
        request = PlanRequest(
            [(scenario, load_scenario(scenario))],
            models=["sim/careful"],
            policies=["guardrails"],
            variants=resolve_variants([str(variant)]),
        )
        [planned] = [p.under(work / "runs") for p in plan_runs(request)]
        run_cell(planned.spec, planned.real, CassetteMode.REPLAY, {})
        trace = planned.spec.out_dir / TRACE_FILE_NAME
        result = score_trace(trace, shared_embedder(), DEFAULT_SCORER_SETTINGS)
        about = finish_run(work / "runs", [result])
        write_report(build_report([result], about), work / "report.html")
    finally:
        sys.setprofile(None)
    return profiler.walks()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``memeval bench walks``."""
    parser.add_argument(
        "--scenario",
        default="scenarios/compaction-pressure.yaml",
        help="the scenario of the profiled cell (default compaction-pressure: it compacts, "
        "promotes facts and writes daily logs)",
    )
    parser.add_argument("--json", action="store_true", help="print the walks as JSON")


def run(args: argparse.Namespace) -> int:
    """Profile the cell and print one row per walk."""
    with tempfile.TemporaryDirectory(prefix="memeval-walks-") as tmp:
        walks = measure(Path(args.scenario).resolve(), Path(tmp))
    if args.json:
        print(json.dumps([asdict(w) for w in walks], indent=2))
        return 0
    print("| walk | hops | modules |")
    print("|---|---:|---:|")
    for walk in walks:
        print(f"| {walk.name} | {walk.hops} | {len(walk.modules)} |")
    return 0
