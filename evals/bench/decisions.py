"""``memeval bench decisions``: how well a model makes the unified pipeline's decisions.

Each labelled case (``evals/bench/decision_cases.yaml``: a candidate fact, existing memories
with their ids and dates, the expected ADD / UPDATE / DELETE / NOOP with a one-line reason)
goes through the policy's own decision path, one request at a time, through a vcrpy
cassette (replayed by default, recorded with ``--record`` against a running server):

- **pipeline** (the headline figure): the case's memories are put in a unified store, and
  the policy's retrieval (stored MiniLM vectors, cosine >= MIN_RELEVANCE, best retrieval
  score first, at most TOP_K) picks what the model is shown, exactly as
  :meth:`UnifiedPolicy.process` does; then :func:`memsys.decisions.decision_request` and
  :func:`memsys.decisions.parse_decision` with its repairs.
- **all shown**: every memory of the case is shown, related or not: the decision alone,
  against distractors retrieval would have filtered out (a harder, secondary figure).

Identical requests are sent once per run. It prints, and writes to
``reports/bench-decisions.md`` (and ``.json``): accuracy per group of cases (``tuned``, the
48 the prompt and repairs were tuned on; ``new``, those written after, issue 36), per
expected event and overall; the new cases by pattern; a confusion matrix (expected rows,
decided columns, unreadable replies as MALFORMED); how often the target id was right; every
DELETE or UPDATE of a memory the label does not name left standing; every miss with its
reason. On replay, a case whose request the cassette has no reply for is listed as
unrecorded and counted neither right nor wrong (a missing cassette is still an error).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from collections.abc import Callable
from contextlib import closing
from dataclasses import replace
from datetime import datetime
from pathlib import Path

from evals.bench._decision_cases import CASES_FILE, DecisionCase, load_cases
from evals.bench.decision_figures import (
    MALFORMED,
    UNRECORDED,
    Outcome,
    Summary,
    summarise,
    summarise_groups,
    target_misses,
)
from evals.bench.decision_report import render_markdown
from evals.bench.decision_traps import render_traps, scripted_traps
from evals.errors import UsageError
from evals.scenario import DATA_FILE_LIMITS
from memsys.app import open_memory
from memsys.clock import ManualClock
from memsys.decisions import SimilarMemory, decision_request, parse_decision
from memsys.errors import MalformedOutput
from memsys.events import discard
from memsys.llm import ChatRequest, ChatResponse, LLMClient, ModelKind
from memsys.policies.base import EmbedFn, PolicyContext
from memsys.policies.unified import UnifiedPolicy
from memsys.safe_io import load_input
from memsys.subject import SubjectJudge

__all__ = [
    "DEFAULT_MODEL",
    "add_arguments",
    "cassette_for",
    "pipeline_shown",
    "run",
    "run_cases",
]

DEFAULT_MODEL = "openai-compatible/qwen2.5-coder-1.5b-instruct"
CASSETTE_ROOT = Path("cassettes/bench-decisions")
REPORT = Path("reports/bench-decisions.md")


class _OnceClient:
    """Sends each distinct request once (temperature 0: the same request, the same reply).

    ``unrecorded`` says whether an exception means "the replayed cassette has no reply for
    this request": the reply is then None (the case is unrecorded), and any other exception
    propagates."""

    def __init__(
        self, client: LLMClient, unrecorded: Callable[[Exception], bool] = lambda _: False
    ) -> None:
        self._client = client
        self._unrecorded = unrecorded
        self._replies: dict[str, str | None] = {}

    @property
    def sent(self) -> int:
        """Requests answered (sent, or replayed from the cassette)."""
        return sum(r is not None for r in self._replies.values())

    def reply(self, request: ChatRequest) -> str | None:
        """The reply to ``request``, asking the model only the first time; None when the
        cassette has none."""
        key = request.messages[-1].content
        if key not in self._replies:
            try:
                self._replies[key] = self._client.complete(request).text
            except Exception as exc:
                if not self._unrecorded(exc):
                    raise
                self._replies[key] = None
        return self._replies[key]


def _unrecorded_in_replay(exc: Exception) -> bool:
    """vcrpy's refusal of a request the (existing) cassette does not hold."""
    from vcr.errors import CannotOverwriteExistingCassetteException

    return (
        isinstance(exc, CannotOverwriteExistingCassetteException)
        and exc.reason != "cassette_not_found"
    )


def pipeline_shown(
    case: DecisionCase, now: datetime, embed: EmbedFn | None, workdir: Path
) -> list[SimilarMemory]:
    """What the unified policy's retrieval shows for the case's candidate."""
    manager = open_memory(workdir / case.name, ManualClock(now))
    ctx = PolicyContext(manager, _NoModel(), embed, discard)
    with closing(UnifiedPolicy(ctx)) as policy:
        for m in case.memories:
            vector = policy.retriever.vector(m.text)
            policy.store.add(m.text, m.category, 5, m.at, vector, memory_id=m.id)
        return [
            SimilarMemory(m.id, m.content, m.category, m.created_at, m.updated_at)
            for m in policy.similar(case.candidate, now)
        ]


class _NoModel:
    """The policy built only for its retrieval never calls a model."""

    name = "none/none"
    kind = ModelKind.SIMULATED

    def complete(self, request: ChatRequest) -> ChatResponse:
        raise AssertionError("retrieval only")


def run_cases(
    client: LLMClient,
    now: datetime,
    cases: list[DecisionCase],
    shown: Callable[[DecisionCase], list[SimilarMemory]],
    once: _OnceClient | None = None,
    subject: SubjectJudge | None = None,
) -> list[Outcome]:
    """Decide every case, one request at a time, showing ``shown(case)``; ``subject`` is
    the policy's same-subject judge (with its embedder)."""
    sender = once or _OnceClient(client)
    outcomes = []
    for case in cases:
        memories = shown(case)
        reply = sender.reply(decision_request(case.candidate, memories))
        if reply is None:
            outcomes.append(Outcome(case, UNRECORDED, None, "", None, len(memories)))
            continue
        try:
            d = parse_decision(reply, case.candidate, memories, subject)
        except MalformedOutput:
            outcomes.append(Outcome(case, MALFORMED, None, reply, None, len(memories)))
            continue
        kind = d.repair_kind.value if d.repair_kind else None
        outcomes.append(Outcome(case, d.op.value, d.id, reply, d.repair, len(memories), kind))
    return outcomes


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``memeval bench decisions``."""
    parser.add_argument("--cases", type=Path, default=CASES_FILE, help="labelled case file")
    parser.add_argument("--model", default=DEFAULT_MODEL, help="provider/model")
    parser.add_argument("--cassette", type=Path, help="default: cassettes/bench-decisions/...")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--record", action="store_true", help="record the calls not recorded")
    mode.add_argument("--rerecord", action="store_true", help="record every call again")
    parser.add_argument("--base-url", help="server to record against (…/v1)")
    parser.add_argument(
        "--server-info",
        type=Path,
        help="JSON of a running local server (python -m evals.record.local_server)",
    )
    parser.add_argument("--out", type=Path, default=REPORT, help="markdown report (+ .json)")


def cassette_for(model: str) -> Path:
    """``cassettes/bench-decisions/<model, / -> __>/decisions.yaml``."""
    return CASSETTE_ROOT / model.replace("/", "__") / "decisions.yaml"


def run(args: argparse.Namespace) -> int:
    """Run the benchmark; exit 0 when the target is met, 1 otherwise."""
    from evals.cassettes.replay import (
        CassetteLabel,
        CassetteMode,
        read_label,
        use_cassette,
        write_label,
    )
    from memsys.llm import make_client

    now, cases = load_cases(args.cases)
    path = args.cassette or cassette_for(args.model)
    mode = (
        CassetteMode.RERECORD
        if args.rerecord
        else CassetteMode.RECORD
        if args.record
        else CassetteMode.REPLAY
    )
    server: dict[str, object] = {}
    if args.server_info:
        server = load_input(args.server_info, "json", DATA_FILE_LIMITS)
    if mode is CassetteMode.REPLAY:
        recorded = read_label(path)
        base_url = recorded.base_url if recorded else "http://replay.invalid/v1"
    else:
        base_url = args.base_url or str(
            server.get("base_url") or os.environ.get("MEMEVAL_BASE_URL") or ""
        )
        if not base_url:
            raise UsageError("recording needs --base-url, --server-info or MEMEVAL_BASE_URL")
    client = make_client(args.model, base_url=base_url, temperature=0.0)
    label = CassetteLabel(
        args.model,
        base_url,
        datetime.now().date().isoformat(),  # noqa: DTZ005 (the recording's own date)
        model_sha256=server.get("model_sha256"),  # type: ignore[arg-type]
        server=server.get("server"),  # type: ignore[arg-type]
        server_flags=tuple(server.get("server_flags") or ()),  # type: ignore[arg-type]
        temperature=0.0,
    )
    started = time.monotonic()
    command = f"memeval bench decisions --model {args.model} --record --server-info FILE"
    embed = _embedder()
    with use_cassette(path, mode, label=label, rerecord_command=command):
        once = _OnceClient(client, _unrecorded_in_replay)
        subject = SubjectJudge(embed)  # as the policy judges (memsys.subject)
        with tempfile.TemporaryDirectory() as tmp:
            pipeline = run_cases(
                client,
                now,
                cases,
                lambda c: pipeline_shown(c, now, embed, Path(tmp)),
                once,
                subject,
            )
        everything = run_cases(client, now, cases, DecisionCase.shown, once, subject)
    seconds = time.monotonic() - started
    if mode is not CassetteMode.REPLAY:  # the label says what the recording cost
        per_call = round(seconds / once.sent, 2) if once.sent else None
        write_label(path, replace(label, calls=once.sent, seconds_per_call=per_call))
    runs = {"pipeline": pipeline, "all_shown": everything}
    traps = scripted_traps(cases, subject)
    retrieval = "MiniLM vectors" if embed is not None else "FTS5 (no embedder)"
    text = "\n".join(
        [
            f"# Decision benchmark: {args.model} (real, cassette `{path}`)",
            "",
            f"`memeval bench decisions` over {len(cases)} labelled cases "
            f"(`{_shown_path(args.cases)}`), {mode.value}, {once.sent} model calls, "
            f"{seconds:.1f} s.",
            "",
            render_markdown(
                f"## Pipeline (headline): the policy's retrieval picks what is shown ({retrieval})",
                pipeline,
            ),
            render_markdown(
                "## All shown: every memory of the case, related or not (decision only)",
                everything,
            ),
            render_traps(traps),
        ]
    )
    print(text)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    data = {"model": args.model, "cassette": str(path), "retrieval": retrieval}
    data |= {name: _as_json(outcomes) for name, outcomes in runs.items()}
    data["scripted_traps"] = {
        "scripted": len(traps),
        "left": [f"{t.case.name}: {t.op.value} {t.memory}" for t in traps if not t.caught],
    }
    args.out.with_suffix(".json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return 1 if target_misses(pipeline) else 0


def _shown_path(path: Path) -> str:
    """``path`` relative to the working directory when inside it (reports are committed)."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _embedder() -> EmbedFn | None:
    from evals.run import shared_embedder

    embedder = shared_embedder()
    return embedder.embed if embedder is not None else None


def _summary_json(summary: Summary) -> dict[str, object]:
    return {
        "cases": summary.cases,
        "unrecorded": summary.unrecorded,
        "overall": summary.overall,
        "per_event": summary.per_event,
        "confusion": summary.confusion,
        "target_accuracy": summary.target_accuracy,
        "repairs": summary.repairs,
        "repairs_by_kind": summary.repairs_by_kind,
        "unrelated_left": summary.unrelated_left,
    }


def _as_json(outcomes: list[Outcome]) -> dict[str, object]:
    """A run's figures: all recorded cases, each group, the target's misses, and the names
    of the cases left unrecorded or with a DELETE/UPDATE of another memory standing."""
    misses = target_misses(outcomes)
    return _summary_json(summarise(outcomes)) | {
        "groups": {g: _summary_json(s) for g, s in summarise_groups(outcomes).items()},
        "meets_target": not misses,
        "target_misses": misses,
        "unrecorded_cases": [o.case.name for o in outcomes if not o.recorded],
        "unrelated_left_cases": [o.case.name for o in outcomes if o.recorded and o.unrelated_left],
    }
