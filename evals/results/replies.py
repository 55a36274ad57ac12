"""Background replies a run asked for and how many its parsers could not read.

A daily summary, a compaction or a unified decision whose reply ignores its prompt's format
is a logged no-op (:class:`~memsys.errors.MalformedOutput`): nothing fails, and a run whose
every summary was unparsed ends with an empty MEMORY.md and quality 0 that look like a bad
prompt, not a broken one. Each run's results carry, per prompt slot, how many replies were
asked for and how many went unparsed (:class:`ReplyTally`, read from the trace's typed
records), with the slot's contract words (:mod:`memsys.tools.descriptions.contracts`), so the
terminal and the report can say "9 of 9 daily summaries unparsed: MEMORY.md got nothing from
them" beside the cell from ``results.json`` alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from evals.trace import TraceLine, TraceRecord
from memsys.compaction import CompactionOutcome
from memsys.events import CompactionAttempted, Decided, Flushed
from memsys.outcomes import FlushOutcome

__all__ = ["ReplyTally", "reply_tallies", "unparsed_notes"]


@dataclass(frozen=True)
class ReplyTally:
    """One prompt slot's replies in one run."""

    slot: str
    """The prompt slot whose replies these are (``daily_summary``)."""
    asked: int
    """Replies the model gave (calls that failed before a reply are not counted)."""
    unparsed: int
    """Of those, replies the parser rejected: nothing was written from them."""
    plural: str
    """What they are, counted: ``daily summaries`` (from the slot's contract)."""
    lost: str
    """What an unparsed one cost: ``MEMORY.md got nothing from them``."""
    first_problem: str = ""
    """The first unparsed reply's problem, as the trace recorded it."""


_COMPACTION_ANSWERED = frozenset(
    {
        CompactionOutcome.COMPACTED,
        CompactionOutcome.REJECTED_SHORT,
        CompactionOutcome.REJECTED_LOST_USER_REQUESTED,
        CompactionOutcome.REJECTED_MALFORMED,
    }
)
_FLUSH_ANSWERED = frozenset(
    {FlushOutcome.WRITTEN, FlushOutcome.MALFORMED, FlushOutcome.WRITE_FAILED}
)

Reading = Callable[[TraceRecord], tuple[bool, str | None]]
"""A record -> (the model replied, the problem when the reply was unparsed)."""


def _flush(record: TraceRecord) -> tuple[bool, str | None]:
    assert isinstance(record, Flushed)
    malformed = record.outcome is FlushOutcome.MALFORMED
    return record.outcome in _FLUSH_ANSWERED, (record.error or "malformed") if malformed else None


def _compaction(record: TraceRecord) -> tuple[bool, str | None]:
    assert isinstance(record, CompactionAttempted)
    bad = record.outcome is CompactionOutcome.REJECTED_MALFORMED
    return record.outcome in _COMPACTION_ANSWERED, "repeats a section header" if bad else None


def _decision(record: TraceRecord) -> tuple[bool, str | None]:
    assert isinstance(record, Decided)
    return record.error is None, record.malformed


_READERS: dict[type, tuple[str, Reading]] = {
    Flushed: ("daily_summary", _flush),
    CompactionAttempted: ("compaction", _compaction),
    Decided: ("decision_system", _decision),
}
"""Record type -> the prompt slot whose reply it reports, and how to read it."""


def reply_tallies(lines: Iterable[TraceLine[TraceRecord]]) -> tuple[ReplyTally, ...]:
    """Per prompt slot that got replies in the run, in slot order, the replies and how many
    went unparsed."""
    from memsys.tools.descriptions.contracts import CONTRACTS

    asked: dict[str, int] = {}
    unparsed: dict[str, list[str]] = {}
    for line in lines:
        found = _READERS.get(type(line.record))
        if found is None:
            continue
        slot, read = found
        replied, problem = read(line.record)
        if replied:
            asked[slot] = asked.get(slot, 0) + 1
        if problem is not None:
            unparsed.setdefault(slot, []).append(problem)
    tallies = []
    for contract in CONTRACTS:
        if contract.slot in asked:
            problems = unparsed.get(contract.slot, [])
            tallies.append(
                ReplyTally(
                    contract.slot,
                    asked[contract.slot],
                    len(problems),
                    contract.plural,
                    contract.lost,
                    problems[0] if problems else "",
                )
            )
    return tuple(tallies)


def unparsed_notes(tallies: Sequence[ReplyTally]) -> list[str]:
    """``9 of 9 daily summaries unparsed: MEMORY.md got nothing from them`` per slot with an
    unparsed reply, the tallies of several runs (a cell's scenarios and repeats) summed."""
    summed: dict[str, list[ReplyTally]] = {}
    for tally in tallies:
        summed.setdefault(tally.slot, []).append(tally)
    notes = []
    for slot_tallies in summed.values():
        bad = sum(t.unparsed for t in slot_tallies)
        if not bad:
            continue
        first = slot_tallies[0]
        total = sum(t.asked for t in slot_tallies)
        notes.append(f"{bad} of {total} {first.plural} unparsed: {first.lost}")
    return notes
