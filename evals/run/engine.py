"""The scenario engine: replays a scenario's days and events against the memory system.

Each day the simulated clock moves to the day's date; the app comes to the foreground
(day-change check), the events run in order, and the app goes to the background at the end
of the day. Trigger jobs queue on a :class:`DeferredRunner` and run right after the event
that fired them, so a run is deterministic. Everything is written to a JSONL trace.
"""

from __future__ import annotations

import contextlib
import shutil
import time
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime, timedelta
from datetime import time as dtime
from pathlib import Path
from typing import Any

from evals.cassettes import step as cassette_step
from evals.run._engine_extras import (
    HookedClient,
    add_burst,
    backup_states,
    daily_log_records,
    edited_text,
    probe_record,
    restore_backup,
    scripted_compaction,
    turn_records,
)
from evals.run._scripted_decision import ScriptedDecisions, arm_decision
from evals.run._write_recorder import WriteRecorder
from evals.run.spec import DayHook, RunSpec, no_day_hook
from evals.scenario import CompactSpec, check_complete
from evals.scenario import events as ev
from evals.trace import TRACE_FILE_NAME, TRACE_SCHEMA_VERSION, TraceRecord, TraceWriter
from evals.trace import records as rec
from memsys.app import Runtime, RuntimeConfig, build_runtime, model_switch_notice, user_message
from memsys.clock import ManualClock
from memsys.errors import MemoryFileError
from memsys.events import CompactionAttempted, DeletionGuarded, MemoryEvent, TriggerFired
from memsys.llm import LLMClient, LLMError, Message, Purpose, Role, make_client
from memsys.provenance import WriterKind, writing
from memsys.safe_io import check_output_dir
from memsys.search.embedder import Embedder
from memsys.triggers import Trigger, should_fire_switch

__all__ = ["DAY_START", "HANDLERS", "DayHook", "RunSpec", "no_day_hook", "run_scenario"]

DAY_START = dtime(8, 0)
DAY_END = dtime(23, 0)
DEFAULT_SESSION = "main"


class _Run:
    def __init__(
        self,
        spec: RunSpec,
        trace: TraceWriter,
        config: RuntimeConfig,
        hooks: HookedClient,
        scripted: ScriptedDecisions,
    ) -> None:
        self.spec, self.trace, self.hooks, self.clock = spec, trace, hooks, config.clock
        self.scripted = scripted
        self.day = 0
        self.step = "setup"
        # The run builds its memory system and is the one it reports to: no late binding.
        self.rt: Runtime = build_runtime(config, self.emit)
        rt = self.rt
        rt.manager.add_listener(WriteRecorder(rt.manager, self.write))  # who wrote each line
        self._run_client = rt.client.current
        # Models a scenario switches to are built before the run: a bad name fails early.
        self._switch_models = {
            e.model_switch.use: make_client(e.model_switch.use)
            for day in spec.scenario.days
            for e in day.events
            if isinstance(e, ev.ModelSwitchEvent) and e.model_switch.use not in (None, "run")
        }
        self.errors: list[str] = []

    # -- tracing -------------------------------------------------------------------------------

    def write(self, record: TraceRecord) -> None:
        now = self.clock.now().isoformat(timespec="seconds")
        self.trace.write_record(record, now, self.day, self.step)

    def emit(self, event: MemoryEvent) -> None:
        self.write(event)  # a memory event is the trace record of its kind
        if isinstance(event, CompactionAttempted):
            self._backup_state()

    def _backup_state(self) -> None:
        # Retention is measured where it can fail: after every compaction attempt.
        states = backup_states(self.rt.manager)
        self.write(rec.BackupStateRecord(backups=states))

    @contextlib.contextmanager
    def at_step(self, label: str) -> Iterator[None]:
        self.step = label
        with cassette_step(f"{self.spec.scenario.name}: {label}"):
            yield

    # -- the run -------------------------------------------------------------------------------

    def run(self) -> None:
        scenario = self.spec.scenario
        for index, (day, today) in enumerate(zip(scenario.days, scenario.day_dates(), strict=True)):
            self.day = index + 1
            start = datetime.combine(today, DAY_START if day.open_app else dtime(0, 0))
            self.rt.clock.set(max(self.rt.clock.now(), start))
            if day.open_app:
                with self.at_step(f"day {self.day} open app"):
                    self.write(rec.EventRecord.implicit("app_foreground"))
                    self._foreground()
            for number, event in enumerate(day.events, start=1):
                self._advance(event)
                with self.at_step(f"day {self.day} #{number} {event.type}"):
                    self.write(rec.EventRecord.of(event))
                    self._guarded(event.type, HANDLERS[type(event)], self, event)
                    self.rt.runner.drain()
            if not day.close_app:
                with self.at_step(f"day {self.day} app left open"):
                    self._snapshot()
            else:
                self._advance(None, DAY_END)
                with self.at_step(f"day {self.day} close app"):
                    self.write(rec.EventRecord.implicit("app_background"))
                    self.rt.triggers.on_app_background()
                    self.rt.runner.drain()
                    self._snapshot()
            self.spec.between_days(self.day, self.rt.manager.memory_dir)
        self._daily_logs()

    def _daily_logs(self) -> None:
        """Each date's log beside its transcript, with the highlights it should mention."""
        self.step = "end"
        manager, sessions = self.rt.manager, self.rt.sessions.sessions.values()
        for record in daily_log_records(self.spec.scenario, manager, sessions):
            self.write(record)

    def _advance(self, event: ev.BaseEvent | None, at: dtime | None = None) -> None:
        wanted = at or (event.time_of_day() if event else None)
        now = self.rt.clock.now()
        target = datetime.combine(now.date(), wanted) if wanted else now + timedelta(minutes=1)
        self.rt.clock.set(max(target, now + timedelta(seconds=1)))

    def _foreground(self) -> None:
        self.rt.triggers.on_app_foreground()
        self.rt.runner.drain()

    def memory_md(self) -> str:
        # A file broken behind the run's back (an edit cut mid-character, over the size limit)
        # is an error of the run, not a crash: the memory system refuses it and the run goes on.
        try:
            return self.rt.manager.read_long_term_memory()
        except MemoryFileError as exc:
            self.errors.append(f"{self.step}: {exc}")
            return ""

    def _guarded(self, where: str, action: Callable[..., None], *args: object) -> None:
        try:  # as in memory_md: the event that met the refused file fails, the run goes on
            action(*args)
        except MemoryFileError as exc:
            self.errors.append(f"{self.step}: {exc}")
            self.write(rec.ErrorRecord(where=where, message=str(exc)))

    def _snapshot(self) -> None:
        manager = self.rt.manager
        memory = self.memory_md()
        self.write(
            rec.Snapshot(
                date=self.rt.clock.now().date().isoformat(),
                memory_md=memory,
                chars=len(memory),
                backups=manager.list_backups(),
                daily_logs=[p.name for p in manager.list_daily_logs()],
            )
        )

    # -- events --------------------------------------------------------------------------------

    def _user(self, event: ev.UserEvent) -> None:
        self._turn(user_message(event.user, event.screenshot))

    def _burst(self, event: ev.BurstEvent) -> None:
        sessions = self.rt.sessions
        session = sessions.active() or sessions.open(self._new_session_id())
        add_burst(sessions, session, event.burst, self.rt.clock.now())

    def _app_background(self, event: ev.AppBackgroundEvent) -> None:
        self._now_or_during(event, self.rt.triggers.on_app_background)

    def _now_or_during(
        self, event: ev.AppBackgroundEvent | ev.ManualEditEvent, action: Callable[[], None]
    ) -> None:
        """Run ``action`` now, or while the next model call of ``event.during`` runs."""
        if event.during is None:
            action()
            return
        step = self.step

        def hook() -> None:
            self.write(rec.EventRecord.hooked(event, step))
            self._guarded(event.type, action)

        self.hooks.on_next(Purpose(event.during), hook)

    def _compact(self, event: ev.CompactEvent) -> None:
        if isinstance(event.compact, CompactSpec):
            self.emit(scripted_compaction(self.rt.manager, self.rt.policy, event.compact.reply))
        else:
            self.rt.triggers.force_compact()

    def _script_decision(self, event: ev.ScriptDecisionEvent) -> None:
        fail = lambda problem: self.errors.append(f"{self.step}: {problem}")  # noqa: E731
        arm_decision(
            self.scripted, event.script_decision, self.rt.policy, self.step, self.write, fail
        )

    def _model_switch(self, event: ev.ModelSwitchEvent) -> None:
        switch = event.model_switch
        if switch.use is not None:
            # The session's model really changes: chat, daily logs, compaction, decisions.
            target = self._run_client if switch.use == "run" else self._switch_models[switch.use]
            previous = self.rt.client.switch(target)
            self.write(rec.ModelSwitched(previous=previous.name, model=target.name))
        # The app shows the switch in the conversation (answered by the new model).
        self._turn(model_switch_notice(switch.from_model, switch.to_model))

    def _turn(self, text: str) -> None:
        rt = self.rt
        session = rt.sessions.active() or rt.sessions.open(self._new_session_id())
        injection = rt.injector.build_system_prompt(rt.base_prompt, text, rt.clock.now().date())
        self.write(
            rec.InjectionRecord(
                tokens=injection.tokens,
                hits=len(injection.hits),
                dropped=len(injection.dropped),
                memory_lines_cut=injection.memory_lines_cut,
                error=injection.error,
                memory=injection.prompt.removeprefix(rt.base_prompt).strip(),
            )
        )
        history = session.recent()
        rt.manager.begin_turn(text)
        try:
            turn = rt.loop.run_turn(injection.prompt, history, text)
        except LLMError as exc:
            self.errors.append(f"{self.step}: {exc}")
            self.write(rec.ErrorRecord(where="chat", message=str(exc)))
            rt.sessions.add(session, Message(Role.USER, text), rt.clock.now())
            return
        finally:
            guarded = rt.manager.end_turn()
            if guarded is not None and guarded.acted:
                self.emit(DeletionGuarded.of(guarded))
        for record in turn_records(turn):
            self.write(record)
        for message in turn.messages:
            rt.sessions.add(session, message, rt.clock.now())

    def _new_session_id(self) -> str:
        if DEFAULT_SESSION not in self.rt.sessions.sessions:
            return DEFAULT_SESSION
        return f"session-{len(self.rt.sessions.sessions) + 1}"

    def _session_switch(self, event: ev.SessionSwitchEvent) -> None:
        sessions = self.rt.sessions
        target, previous = event.session_switch, sessions.active_id
        sessions.open(target)  # initialize(target): creates it when new
        if should_fire_switch(previous, target, set(sessions.sessions)):
            assert previous is not None
            self.rt.triggers.on_session_switch(previous)
        else:
            self.write(TriggerFired(Trigger.SESSION_SWITCH, session=previous, fired=False))

    def _new_session(self, event: ev.NewSessionEvent) -> None:
        # initialize(None): a fresh conversation, never a session-switch trigger (FEAT-023).
        self.rt.sessions.active_id = None
        self.write(TriggerFired(Trigger.SESSION_SWITCH, fired=False, reason="initialize(None)"))

    def _manual_edit(self, event: ev.ManualEditEvent) -> None:
        self._now_or_during(event, lambda: self._apply_edit(event))

    def _apply_edit(self, event: ev.ManualEditEvent) -> None:
        manager = self.rt.manager
        with writing(WriterKind.HAND_EDIT):
            manager.write_long_term_memory(
                edited_text(manager.read_long_term_memory(), event.manual_edit)
            )
            self.rt.policy.on_manual_edit()

    def _restore(self, event: ev.RestoreBackupEvent) -> None:
        self.write(restore_backup(self.rt.manager, self.rt.policy, event.restore_backup))

    def _search(self, event: ev.SearchEvent) -> None:
        probe = event.search
        self.rt.search.catch_up()  # the writes since the last search: not the probe's latency
        started = time.perf_counter()
        hits = self.rt.search.search(probe.query, self.rt.clock.now().date(), k=probe.k)
        latency = (time.perf_counter() - started) * 1000
        self.write(probe_record(probe, hits, latency))

    def _expect(self, event: ev.ExpectEvent) -> None:
        self.write(
            rec.Checkpoint(
                label=event.expect.label,
                expect=event.expect.model_dump(by_alias=True, exclude={"label"}),
                memory_md=self.memory_md(),
            )
        )


HANDLERS: Mapping[type[ev.BaseEvent], Callable[[_Run, Any], None]] = {
    ev.UserEvent: _Run._user,
    ev.BurstEvent: _Run._burst,
    ev.ModelSwitchEvent: _Run._model_switch,
    ev.SessionSwitchEvent: _Run._session_switch,
    ev.NewSessionEvent: _Run._new_session,
    ev.AppBackgroundEvent: _Run._app_background,
    ev.AppForegroundEvent: lambda run, event: run._foreground(),
    ev.ManualEditEvent: _Run._manual_edit,
    ev.CompactEvent: _Run._compact,
    ev.ScriptDecisionEvent: _Run._script_decision,
    ev.RestoreBackupEvent: _Run._restore,
    ev.SearchEvent: _Run._search,
    ev.ExpectEvent: _Run._expect,
}
"""What the engine does for each event class (the event is of the key's class)."""
check_complete(HANDLERS, "evals.run.engine.HANDLERS")  # a new event type needs its handler


def run_scenario(spec: RunSpec, embedder: Embedder | None, client: LLMClient | None = None) -> Path:
    """Run one cell; returns the trace path. ``out_dir`` is replaced."""
    check_output_dir(spec.out_dir, spec.cell.run_dir(Path()))  # no link followed (issue 28)
    if spec.out_dir.exists():
        shutil.rmtree(spec.out_dir)
    spec.out_dir.mkdir(parents=True)
    scenario, cell = spec.scenario, spec.cell
    start = datetime.combine(scenario.start_date, DAY_START)
    trace_path = spec.out_dir / TRACE_FILE_NAME
    with TraceWriter(trace_path) as trace:
        scripted = ScriptedDecisions(client or make_client(cell.model))
        hooks = HookedClient(scripted)
        variant = spec.variant  # loaded once where the run was planned
        config = RuntimeConfig(
            memory_dir=spec.out_dir / "memory",
            clock=ManualClock(start),
            client=hooks,
            policy=cell.policy,
            variant=variant,
            embedder=embedder,
            search=scenario.search.config(),
        )
        run = _Run(spec, trace, config, hooks, scripted)
        rt = run.rt
        run.write(
            rec.RunStart(
                schema_version=TRACE_SCHEMA_VERSION,
                scenario=scenario.name,
                scenario_file=str(spec.scenario_file),
                description=scenario.description,
                model=cell.model,
                model_kind=rt.client.kind,
                policy=cell.policy,
                variant=cell.variant,
                variant_digest=variant.digest(),
                variant_text=rec.RunVariant.of(variant),
                repeat=cell.repeat_number,
                start_date=scenario.start_date.isoformat(),
                cassette=spec.cassette,
                expect=scenario.expect.model_dump(by_alias=True),
            )
        )
        with rt.policy:  # closes what the policy holds open (the unified store)
            run.run()
            run.step = "end"
            if hooks.pending:
                run.errors.append(f"{hooks.pending} `during` events never ran (no such model call)")
            never_asked = scripted.finish()
            if never_asked:
                run.errors.append(f"{never_asked} scripted decisions never asked for")
            manager = rt.manager
            run.write(
                rec.RunEnd(
                    memory_md=run.memory_md(),
                    backups=manager.list_backups(),
                    daily_logs=[p.name for p in manager.list_daily_logs()],
                    counters=dict(rt.policy.counters),
                    policy_stats=dict(rt.policy.stats()),
                    errors=run.errors,
                )
            )
    return trace_path
