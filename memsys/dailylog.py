"""DailyLogWriter (FEAT-013): summarise a session's new messages into ``daily/DATE.md``.

Only messages after the session's ``last_logged_message_id`` are sent; the pointer moves
only after the log is written. If the model fails or answers out of format, nothing is
written and the messages are picked up by the next trigger (FEAT-013 error scenario 2).
If the daily log file cannot be written (disk full, permissions), the error is logged, the
pointer stays, and the caller goes on (FEAT-013 reliability: "log the error and continue";
FEAT-023: a failed session-switch flush is logged and the switch proceeds).

A very long session (FEAT-013's edge case: 1,000+ messages) is summarised in segments of at
most :data:`SEGMENT_CHARS` characters of transcript, each its own heading in the log, with the
pointer moved after each: one request for all of it would not fit a small model's context
(8,192 tokens on our llama-server), fail every time, and never be logged.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from memsys.errors import MemEvalError, MemoryFileError
from memsys.llm.base import ChatRequest, LLMClient, LLMError, Message, Purpose, Role
from memsys.manager import MemoryManager
from memsys.outcomes import FlushOutcome
from memsys.policies.base import WritePolicy
from memsys.prompts import (
    MalformedOutput,
    daily_summary_prompt,
    parse_daily_summary,
    render_transcript,
)
from memsys.provenance import WriterKind, writing
from memsys.sessions import LoggedMessage, Session

__all__ = ["SEGMENT_CHARS", "DailyLogWriter", "FlushResult", "segments"]

SEGMENT_CHARS = 16_000
"""Transcript characters per summary request (about 4,000 tokens: with the prompt and the
800-token answer it fits an 8,192-token context; every recorded scenario's flush but the
1,000-message day's is under 8,000)."""

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class FlushResult:
    """What one flush did."""

    outcome: FlushOutcome
    """How it ended."""
    session_id: str
    """The session flushed."""
    messages: int = 0
    """Messages summarised (or attempted)."""
    log_date: str | None = None
    """The daily log written to."""
    promoted: int = 0
    """Facts handed to the write policy."""
    error: str | None = None
    """Why it was skipped."""


class DailyLogWriter:
    """Summarises sessions into daily logs and promotes flagged facts via the policy."""

    def __init__(
        self,
        manager: MemoryManager,
        client: LLMClient,
        policy: WritePolicy,
        prompt: str | None = None,
    ) -> None:
        self._manager = manager
        self._client = client
        self._policy = policy
        self._prompt = prompt  # a variant's summary template, or None for the built-in one

    @property
    def model(self) -> str:
        """The model that summarises: the session's (FEAT-013: "the active AI model")."""
        return self._client.name

    def flush(self, session: Session) -> FlushResult:
        """Log the session's unlogged messages, segment by segment (:func:`segments`).

        A segment that fails ends the flush with its outcome; the segments before it stay
        logged (the pointer is after them), and the next trigger resumes from there.
        """
        pending = session.unlogged()
        if not pending:
            return FlushResult(FlushOutcome.NOTHING_NEW, session.id)
        written = []
        for segment in segments(pending, SEGMENT_CHARS):
            result = self._flush_segment(session, segment)
            if result.outcome is not FlushOutcome.WRITTEN:
                return result
            written.append(result)
        return FlushResult(
            FlushOutcome.WRITTEN,
            session.id,
            sum(r.messages for r in written),
            written[-1].log_date,
            sum(r.promoted for r in written),
            # A segment whose promotion failed is still logged; say so, whichever it was.
            next((r.error for r in written if r.error), None),
        )

    def _flush_segment(self, session: Session, pending: list[LoggedMessage]) -> FlushResult:
        request = ChatRequest(
            (Message(Role.USER, daily_summary_prompt([m.message for m in pending], self._prompt)),),
            purpose=Purpose.DAILY_SUMMARY,
            max_tokens=800,
        )
        try:
            summary = parse_daily_summary(self._client.complete(request).text)
        except MalformedOutput as exc:
            log.info("daily log skipped for %s: %s", session.id, exc)
            return FlushResult(FlushOutcome.MALFORMED, session.id, len(pending), error=str(exc))
        except LLMError as exc:  # FEAT-013: model unavailable -> skip silently, retry later
            log.info("daily log skipped for %s: %s", session.id, exc)
            return FlushResult(FlushOutcome.MODEL_FAILED, session.id, len(pending), error=str(exc))
        last = pending[-1]
        day = last.at.date()
        heading = f"## {pending[0].at:%H:%M}-{last.at:%H:%M} session {session.id}"
        body = "\n".join(f"- {b}" for b in summary.bullets)
        try:
            self._manager.append_daily_log(day, f"{heading}\n{body}\n")  # re-indexes it
        except (OSError, MemoryFileError) as exc:  # the pointer stays: the next trigger retries
            log.warning("daily log for %s not written: %s", session.id, exc)
            return FlushResult(FlushOutcome.WRITE_FAILED, session.id, len(pending), error=str(exc))
        session.last_logged_message_id = last.id
        try:
            with writing(WriterKind.DAILY_SUMMARY):
                self._policy.promote(summary.facts)
        except (OSError, MemEvalError) as exc:  # the log is written; never re-log it
            log.warning("promotion after daily log of %s failed: %s", session.id, exc)
            return FlushResult(
                FlushOutcome.WRITTEN,
                session.id,
                len(pending),
                day.isoformat(),
                0,
                error=f"promotion failed: {exc}",
            )
        return FlushResult(
            FlushOutcome.WRITTEN, session.id, len(pending), day.isoformat(), len(summary.facts)
        )


def segments(pending: list[LoggedMessage], budget: int) -> list[list[LoggedMessage]]:
    """``pending`` in order, cut into runs whose transcript is at most ``budget`` characters
    (a message longer than that alone is a run of its own)."""
    runs: list[list[LoggedMessage]] = []
    size = 0
    for message in pending:
        length = len(render_transcript([message.message])) + 1
        if runs and size + length <= budget:
            runs[-1].append(message)
            size += length
        else:
            runs.append([message])
            size = length
    return runs
