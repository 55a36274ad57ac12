"""Engine helpers for the scenario events beyond a conversation turn.

- :class:`HookedClient` wraps the model under test so that an event with ``during`` runs
  while a model call is in progress (after it started, before its result is used).
- :class:`ScriptedReply` is the model of a scripted bad compaction.
- :func:`backup_states` checks that every kept backup restores, in a scratch directory.
- :func:`daily_log_days` pairs each day's log with that day's transcript, as ``daily_log`` records.
- :func:`restore_backup` restores a backup as the app's button does, and says whether the
  restored file is the backup's text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime

from evals.run._wrapped_client import WrappedClient
from evals.scenario import Burst, ManualEdit, Scenario, SearchProbeSpec
from evals.trace.records import (
    BackupState,
    DailyLog,
    ModelCallRecord,
    ProbeHit,
    ProbePreference,
    RecordBody,
    Reply,
    RestoreAttempt,
    SearchProbe,
    ToolCallRecord,
)
from memsys.agent import TurnResult
from memsys.compaction import CompactionOutcome, MemoryCompactor
from memsys.events import CompactionAttempted, CompactionTrigger
from memsys.llm import ChatRequest, ChatResponse, LLMClient, Message, ModelKind, Purpose, Role
from memsys.manager import MemoryManager
from memsys.policies import WritePolicy
from memsys.provenance import WriterKind, writing
from memsys.search.hits import SearchHit
from memsys.sessions import Session, SessionStore

__all__ = [
    "HookedClient",
    "ScriptedReply",
    "add_burst",
    "backup_states",
    "daily_log_days",
    "daily_log_records",
    "edited_text",
    "probe_record",
    "restore_backup",
    "scripted_compaction",
    "turn_records",
]

Hook = Callable[[], None]
# Tool results in the trace (and so in the report's transcripts); a save's result quotes the
# whole of MEMORY.md, which the transcript shows elsewhere.
TOOL_MESSAGE_CHARS = 1_000


class HookedClient(WrappedClient):
    """The model under test, with one-shot hooks run when a call of a purpose starts."""

    def __init__(self, inner: LLMClient) -> None:
        super().__init__(inner)
        self._hooks: list[tuple[Purpose, Hook]] = []

    @property
    def pending(self) -> int:
        """Hooks not yet run."""
        return len(self._hooks)

    def on_next(self, purpose: Purpose, hook: Hook) -> None:
        """Run ``hook`` once, when the next call for ``purpose`` starts."""
        self._hooks.append((purpose, hook))

    def complete(self, request: ChatRequest) -> ChatResponse:
        """Run the hooks waiting for this purpose, then answer with the wrapped model."""
        due = [h for p, h in self._hooks if p is request.purpose]
        self._hooks = [(p, h) for p, h in self._hooks if p is not request.purpose]
        for hook in due:
            hook()
        return self._inner.complete(request)


@dataclass(frozen=True)
class ScriptedReply:
    """A model that answers every request with one fixed text (a scripted compaction)."""

    reply: str
    """The text returned."""
    name: str = "scripted/compaction"
    """Shown in traces."""
    kind: ModelKind = ModelKind.SIMULATED
    """Scripted, so simulated."""

    def complete(self, request: ChatRequest) -> ChatResponse:
        """Return :attr:`reply`."""
        return ChatResponse(self.reply, model=self.name)


def scripted_compaction(
    manager: MemoryManager, policy: WritePolicy, reply: str
) -> CompactionAttempted:
    """The settings screen's compaction, answered by ``reply``: its event, marked
    ``scripted`` (no model was asked)."""
    if not policy.compacts:
        outcome = CompactionOutcome.NOT_SUPPORTED_BY_POLICY
        return CompactionAttempted(CompactionTrigger.MANUAL, outcome, scripted=True)
    result = MemoryCompactor(manager, ScriptedReply(reply)).force_compact()
    return CompactionAttempted.of(CompactionTrigger.MANUAL, result, model=None, scripted=True)


def turn_records(turn: TurnResult) -> Iterator[RecordBody]:
    """A conversation turn's trace records: its model calls, tool calls, then its reply."""
    for call in turn.model_calls:
        yield ModelCallRecord(
            purpose=call.purpose,
            input_tokens=call.usage.input_tokens,
            output_tokens=call.usage.output_tokens,
            latency_ms=round(call.latency_ms, 3),
            stop_reason=call.stop_reason,
        )
    for ex in turn.tool_executions:
        yield ToolCallRecord(
            name=ex.call.name,
            arguments=ex.call.arguments,
            ok=ex.result.ok,
            code=ex.result.code,
            message=ex.result.message[:TOOL_MESSAGE_CHARS],
            from_text=ex.call.from_text or None,
        )
    yield Reply(text=turn.final_text)


def probe_record(
    probe: SearchProbeSpec, hits: Sequence[SearchHit], latency_ms: float
) -> SearchProbe:
    """A search probe's trace record (hit texts cut to 300 characters)."""
    prefer = probe.prefer
    return SearchProbe(
        query=probe.query,
        k=probe.k,
        expected=probe.expect_sources,
        latency_ms=round(latency_ms, 3),
        hits=[
            ProbeHit(h.source, h.line_start, h.line_end, round(h.score, 4), h.text[:300])
            for h in hits
        ],
        prefer=ProbePreference(prefer.current, prefer.stale) if prefer else None,
    )


def backup_states(manager: MemoryManager) -> list[BackupState]:
    """Every backup on disk, newest first, each restored in a scratch directory (the real
    memory directory is not touched)."""
    return [BackupState(c.name, c.chars, c.restores) for c in manager.check_backups()]


def daily_log_days(
    manager: MemoryManager,
    sessions: Iterable[Session],
    dates: Sequence[date],
    wanted: Mapping[str, list[object]] | None = None,
) -> list[DailyLog]:
    """For each of ``dates`` and each date with a log: the ``daily_log`` record of the log,
    the day's transcript and the highlights ``wanted`` for that ISO date."""
    chars: dict[date, int] = {}
    count: dict[date, int] = {}
    for session in sessions:
        for logged in session.messages:
            if logged.message.role in (Role.USER, Role.ASSISTANT) and logged.message.content:
                day = logged.at.date()
                chars[day] = chars.get(day, 0) + len(logged.message.content)
                count[day] = count.get(day, 0) + 1
    logged_dates = {date.fromisoformat(p.stem) for p in manager.list_daily_logs()}
    return [
        DailyLog(
            date=day.isoformat(),
            log=manager.read_daily_log(day) or "",
            transcript_chars=chars.get(day, 0),
            messages=count.get(day, 0),
            expect_facts=(wanted or {}).get(day.isoformat(), []),
        )
        for day in sorted({*dates, *logged_dates, *chars})
    ]


def daily_log_records(
    scenario: Scenario, manager: MemoryManager, sessions: Iterable[Session]
) -> list[DailyLog]:
    """``daily_log`` trace records: each date's log and transcript, and the highlights the
    scenario's day asks that log to mention (``log_facts``)."""
    dates = scenario.day_dates()
    wanted: dict[str, list[object]] = {
        d.isoformat(): [f.model_dump() for f in day.log_facts]
        for d, day in zip(dates, scenario.days, strict=True)
    }
    return daily_log_days(manager, sessions, dates, wanted)


def add_burst(sessions: SessionStore, session: Session, burst: Burst, now: datetime) -> None:
    """``burst.turns`` user/assistant exchanges at ``now``, without model calls."""
    for n in range(1, burst.turns + 1):
        sessions.add(session, Message(Role.USER, burst.user.format(n=n)), now)
        sessions.add(session, Message(Role.ASSISTANT, burst.assistant.format(n=n)), now)


def edited_text(current: str, edit: ManualEdit) -> str:
    """MEMORY.md after the user's hand edit (``line_endings: crlf`` saves it with CRLF)."""
    if edit.text is not None:
        new = edit.text
    elif edit.append is not None:
        new = f"{current.rstrip()}\n{edit.append}\n" if current.strip() else edit.append + "\n"
    else:
        assert edit.replace is not None
        new = current.replace(edit.replace["old"], edit.replace["new"], 1)
    if edit.line_endings == "crlf":
        new = new.replace("\r\n", "\n").replace("\n", "\r\n")
    return new


def restore_backup(manager: MemoryManager, policy: WritePolicy, which: str) -> RestoreAttempt:
    """Restore backup ``which`` (a name, or ``latest``) as the settings screen does; the
    attempt, with whether MEMORY.md is now the backup's text."""
    backups = manager.list_backups()
    name = backups[0] if which == "latest" and backups else which
    if not name or name == "latest":
        return RestoreAttempt(name=None, ok=False, reason="no backups")
    path = manager.memory_dir / name  # a byte copy of a broken file: restore refuses it
    expected = path.read_text(encoding="utf-8", errors="replace") if name in backups else None
    with writing(WriterKind.RESTORE):
        ok = manager.restore_from_backup(name)
        policy.on_manual_edit()
    restored = manager.read_long_term_memory()
    return RestoreAttempt(name=name, ok=ok, round_trip=ok and restored == expected)
