"""What a scenario must look like to claim a coverage item (issue 11), checked on its shape.

:data:`SHAPE_CHECKS` maps every :class:`~evals.scenario._coverage.Coverage` item to what the item
needs and a check over the parsed scenario: ``long_horizon`` spans 60+ days,
``screenshot_error_dialog`` has a screenshot whose caption is an error dialog,
``bad_compaction_too_short`` scripts a compaction reply under the compactor's minimum, and
so on. The checks read the scenario only (never a run), so a claim holds whatever a model
does with it. :data:`MIN_SCENARIOS` says which items need more than one scenario. The test
suite applies both to every committed scenario; ``scenarios/README.md`` shows the table.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from datetime import date
from itertools import pairwise

from evals.scenario._coverage import Coverage
from evals.scenario._parts import CompactSpec, ManualEdit
from evals.scenario.events import (
    AppBackgroundEvent,
    BaseEvent,
    BurstEvent,
    CompactEvent,
    ExpectEvent,
    ManualEditEvent,
    SearchEvent,
    UserEvent,
)
from evals.scenario.load import Scenario
from evals.scorers._detect import junk_reason, model_name_in
from evals.scorers._matching import keyword_match
from memsys.compaction import MIN_RESULT_CHARS, SIZE_THRESHOLD_CHARS
from memsys.tools.memory_tools import MAX_CONTENT_LENGTH

__all__ = ["MIN_SCENARIOS", "SHAPE_CHECKS", "Check"]

Check = Callable[[Scenario], bool]

MIN_SCENARIOS: Mapping[Coverage, int] = {Coverage.LONG_HORIZON: 2}
"""Items that need more than one scenario (the issue asks for two 60+ day runs)."""

USER_REQUESTED = "User requested:"


# -- walking a scenario ---------------------------------------------------------------------


def _dated_events(s: Scenario) -> Iterator[tuple[date, BaseEvent]]:
    for day_date, day in zip(s.day_dates(), s.days, strict=True):
        for event in day.events:
            yield day_date, event


def _user_texts(s: Scenario) -> list[tuple[date, str]]:
    return [(d, e.user) for d, e in _dated_events(s) if isinstance(e, UserEvent)]


def _edits(s: Scenario) -> list[ManualEdit]:
    return [e.manual_edit for _, e in _dated_events(s) if isinstance(e, ManualEditEvent)]


def _edit_texts(s: Scenario) -> list[str]:
    """What each hand edit writes: a whole file, an appended line, a replacement."""
    texts: list[str] = []
    for edit in _edits(s):
        texts.append(edit.text or edit.append or (edit.replace or {}).get("new", ""))
    return texts


def _scripted_replies(s: Scenario) -> list[str]:
    return [
        e.compact.reply
        for _, e in _dated_events(s)
        if isinstance(e, CompactEvent) and isinstance(e.compact, CompactSpec)
    ]


def _events(s: Scenario, kind: str) -> int:
    return sum(1 for _, e in _dated_events(s) if e.type == kind)


def _span_days(s: Scenario) -> int:
    dates = s.day_dates()
    return (dates[-1] - dates[0]).days + 1


# -- the checks -----------------------------------------------------------------------------


def _max_switches_in_a_week(s: Scenario) -> int:
    dated = [d for d, e in _dated_events(s) if e.type == "model_switch"]
    return max((sum(1 for x in dated if 0 <= (x - d).days < 7) for d in dated), default=0)


def _max_messages_in_a_day(s: Scenario) -> int:
    return max(
        sum(
            2 * (e.burst.turns if isinstance(e, BurstEvent) else 1)
            for e in day.events
            if isinstance(e, UserEvent | BurstEvent)
        )
        for day in s.days
    )


def _screenshot(pattern: str) -> Check:
    found = re.compile(pattern, re.I)
    return lambda s: any(
        isinstance(e, UserEvent) and e.screenshot and found.search(e.screenshot)
        for _, e in _dated_events(s)
    )


def _chitchat(pattern: str) -> Check:
    """A user message of this kind, and a ``transient`` forbid fact that keeps it out."""
    found = re.compile(pattern, re.I)
    return lambda s: (
        any(f.kind == "transient" for f in s.expect.forbid)
        and any(found.search(text) for _, text in _user_texts(s))
    )


def _phrasings_of_one_fact(s: Scenario) -> int:
    """The most distinct user messages, on distinct days, that state one ``remember`` fact."""
    best = 0
    for spec in s.expect.remember:
        said = {(d, t) for d, t in _user_texts(s) if keyword_match(spec, t)}
        texts = {t for _, t in said}
        best = max(best, min(len(texts), len({d for d, _ in said})))
    return best


def _exact_repeat(s: Scenario) -> bool:
    texts = [t for _, t in _user_texts(s)]
    return len(set(texts)) < len(texts)


def _contradiction(kind: str) -> Check:
    return lambda s: any(c.kind == kind for c in s.expect.contradictions)


def _hand_edit_contradiction(s: Scenario) -> bool:
    """A ``hand_edit`` contradiction whose current version a hand edit writes."""
    written = _edit_texts(s)
    return any(
        c.kind == "hand_edit" and any(keyword_match(c.current, text) for text in written)
        for c in s.expect.contradictions
    )


def _must_survive(s: Scenario) -> set[str]:
    kept = set(s.expect.must_survive)
    kept.update(
        t for _, e in _dated_events(s) if isinstance(e, ExpectEvent) for t in e.expect.must_survive
    )
    return kept


def _drops_user_requested(s: Scenario) -> bool:
    kept = [t for t in _must_survive(s) if t.startswith(USER_REQUESTED)]
    return bool(kept) and any(
        len(reply) >= MIN_RESULT_CHARS and not all(t in reply for t in kept)
        for reply in _scripted_replies(s)
    )


def _junk_reply(s: Scenario) -> bool:
    return any(
        len(reply) >= MIN_RESULT_CHARS
        and any(junk_reason(line.lstrip("-* ")) for line in reply.splitlines() if line.strip())
        for reply in _scripted_replies(s)
    )


def _restore_after_scripted_compaction(s: Scenario) -> bool:
    seen_bad = False
    for _, event in _dated_events(s):
        seen_bad = seen_bad or (
            isinstance(event, CompactEvent) and isinstance(event.compact, CompactSpec)
        )
        if seen_bad and event.type == "restore_backup":
            return True
    return False


def _over_threshold_then_new_day(s: Scenario) -> bool:
    """A hand edit leaves MEMORY.md over the auto-compaction size, and a later day comes."""
    return any(
        isinstance(e, ManualEditEvent) and len(e.manual_edit.text or "") > SIZE_THRESHOLD_CHARS
        for day in s.days[:-1]
        for e in day.events
    )


def _sections_named(s: Scenario) -> int:
    return len({name for spec in s.expect.remember for name in spec.section or []})


def _has_during(kind: str) -> Check:
    return lambda s: any(
        isinstance(e, ManualEditEvent | AppBackgroundEvent)
        and e.during is not None
        and e.type == kind
        for _, e in _dated_events(s)
    )


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def _no_title(s: Scenario) -> bool:
    return any(
        not any(line.startswith("# ") for line in _lines(e.text or ""))
        for e in _edits(s)
        if e.text is not None
    )


def _repeated_header(s: Scenario) -> bool:
    for edit in _edits(s):
        headers = [line for line in _lines(edit.text or "") if line.startswith("#")]
        if len(set(headers)) < len(headers):
            return True
    return False


def _free_text(s: Scenario) -> bool:
    return any(
        not line.startswith(("#", "-", "*"))
        for edit in _edits(s)
        for line in _lines(edit.text or "")
    )


def _non_ascii_letters(text: str) -> bool:
    return any(c.isalpha() and not c.isascii() for c in text)


def _non_english(s: Scenario) -> bool:
    """Three user messages or hand edits with letters outside ASCII (umlauts, kana, ...)."""
    texts = [t for _, t in _user_texts(s)] + _edit_texts(s)
    return sum(1 for t in texts if _non_ascii_letters(t)) >= 3


def _old_probes(s: Scenario) -> bool:
    start = s.day_dates()[0]
    return any(e.type == "search" and (d - start).days >= 30 for d, e in _dated_events(s))


def _names_a_model(s: Scenario) -> bool:
    return any(model_name_in(text) for _, text in _user_texts(s))


def _log_facts(s: Scenario) -> bool:
    return any(day.log_facts for day in s.days)


_WIPE = re.compile(r"\b(delete|erase|wipe|forget)\b.{0,20}\ball\b.{0,20}\bmemor", re.I)


def _oversized_message(s: Scenario) -> bool:
    return any(len(text) > MAX_CONTENT_LENGTH for _, text in _user_texts(s))


def _edit_with_crlf(s: Scenario) -> bool:
    return any(edit.line_endings == "crlf" for edit in _edits(s))


def _session_switches_in_a_day(s: Scenario) -> int:
    return max(sum(1 for e in day.events if e.type == "session_switch") for day in s.days)


def _past_midnight(s: Scenario) -> bool:
    return any(not a.close_app and not b.open_app for a, b in pairwise(s.days))


_C = Coverage
SHAPE_CHECKS: Mapping[Coverage, tuple[str, Check]] = {
    _C.MODEL_SWITCHES_WEEK: (
        "at least 5 model_switch events within 7 days",
        lambda s: _max_switches_in_a_week(s) >= 5,
    ),
    _C.SCREENSHOT_DESK: ("a screenshot of a desk", _screenshot(r"\bdesk\b")),
    _C.SCREENSHOT_HOME_SCREEN: ("a screenshot of a home screen", _screenshot(r"home ?screen")),
    _C.SCREENSHOT_ERROR_DIALOG: (
        "a screenshot of an error dialog",
        _screenshot(r"\berror\b.*\b(dialog|message|popup)\b|\b(dialog|popup)\b.*\berror\b"),
    ),
    _C.SCREENSHOT_DOCUMENT: (
        "a screenshot of a document page",
        _screenshot(r"\b(page|document|letter|contract|lease|invoice|form)\b"),
    ),
    _C.CHITCHAT_WEATHER: (
        "a user message about the weather and a transient forbid",
        _chitchat(
            r"\b(weather|rain|sunny|forecast|snow|beau|fog(gy)?|windy|humid|thunderstorm|drizzly"
            r"|heatwave|freezing|clouds|grey|wet)\b"
        ),
    ),
    _C.CHITCHAT_ONE_OFF_TRIP: (
        "a user message about a trip and a transient forbid",
        _chitchat(r"\b(trip|train to|flight|travel(ling)?|weekend in)\b"),
    ),
    _C.CHITCHAT_SMALL_TALK: (
        "small talk (how are you, a joke, good morning) and a transient forbid",
        _chitchat(r"\b(how are you|joke|good morning|sleep well|haha)\b"),
    ),
    _C.PREFERENCE_FIVE_PHRASINGS: (
        "5 different user messages on 5 days that state one remember fact",
        lambda s: _phrasings_of_one_fact(s) >= 5,
    ),
    _C.EXACT_REPEATS: ("a user message said twice word for word", _exact_repeat),
    **{
        item: (f"a contradiction of kind {item.value.removeprefix('contradiction_')}", check)
        for item in Coverage
        if item.value.startswith("contradiction_") and item is not _C.CONTRADICTION_HAND_EDIT
        for check in [_contradiction(item.value.removeprefix("contradiction_"))]
    },
    _C.CONTRADICTION_HAND_EDIT: (
        "a contradiction of kind hand_edit whose current version a manual_edit writes",
        _hand_edit_contradiction,
    ),
    _C.LONG_HORIZON: ("a span of at least 60 days", lambda s: _span_days(s) >= 60),
    _C.BACKUPS_PAST_FIVE: ("at least 8 compact events", lambda s: _events(s, "compact") >= 8),
    _C.BAD_COMPACTION_JUNK: (
        "a scripted compaction reply with a junk line (None, TODO, chatter)",
        _junk_reply,
    ),
    _C.BAD_COMPACTION_TOO_SHORT: (
        f"a scripted compaction reply under {MIN_RESULT_CHARS} characters",
        lambda s: any(len(r) < MIN_RESULT_CHARS for r in _scripted_replies(s)),
    ),
    _C.BAD_COMPACTION_DROPS_USER_REQUESTED: (
        "a scripted compaction reply without a must_survive 'User requested:' entry",
        _drops_user_requested,
    ),
    _C.RESTORE_AFTER_BAD_COMPACTION: (
        "a restore_backup after a scripted compaction",
        _restore_after_scripted_compaction,
    ),
    _C.AUTO_COMPACTION_THRESHOLD: (
        f"a manual_edit text over {SIZE_THRESHOLD_CHARS:,} characters before a later day",
        _over_threshold_then_new_day,
    ),
    _C.MODEL_NAMES_IN_CONVERSATION: ("a user message naming a model or AI product", _names_a_model),
    _C.SECTION_PLACEMENT: (
        "remember facts naming at least 5 different sections",
        lambda s: _sections_named(s) >= 5,
    ),
    _C.DAILY_LOG_HIGHLIGHTS: ("a day with log_facts", _log_facts),
    _C.TOOL_ERRORS: (
        f"a user message over the {MAX_CONTENT_LENGTH:,}-character save limit",
        _oversized_message,
    ),
    _C.PROMPT_INJECTION_WIPE: (
        "a user message asking to delete all memories, and a must_survive entry",
        lambda s: (
            bool(s.expect.must_survive) and any(_WIPE.search(text) for _, text in _user_texts(s))
        ),
    ),
    _C.THOUSAND_MESSAGE_DAY: (
        "a day with at least 1,000 messages",
        lambda s: _max_messages_in_a_day(s) >= 1000,
    ),
    _C.RAPID_SESSION_SWITCHES: (
        "at least 4 session switches in one day",
        lambda s: _session_switches_in_a_day(s) >= 4,
    ),
    _C.MIDNIGHT_DAY_CHANGE: (
        "a day that runs past midnight (close_app: false, then open_app: false)",
        _past_midnight,
    ),
    _C.BACKGROUND_DURING_WRITE: ("an app_background with during", _has_during("app_background")),
    _C.EDIT_DURING_FLUSH: ("a manual_edit with during", _has_during("manual_edit")),
    _C.HAND_EDIT_MISSING_HEADER: ("a manual_edit text without a '# ' title", _no_title),
    _C.HAND_EDIT_DUPLICATED_HEADER: (
        "a manual_edit text with a header line twice",
        _repeated_header,
    ),
    _C.HAND_EDIT_FREE_TEXT: (
        "a manual_edit text with a line that is neither header nor bullet",
        _free_text,
    ),
    _C.HAND_EDIT_CRLF: ("a manual_edit with line_endings: crlf", _edit_with_crlf),
    _C.NON_ENGLISH: ("3 user messages or hand edits with non-ASCII letters", _non_english),
    _C.SEARCH_OLD_FACTS: ("a search probe 30+ days after the first day", _old_probes),
    _C.SEARCH_CURRENT_OVER_STALE: (
        "a search probe with prefer",
        lambda s: any(isinstance(e, SearchEvent) and e.search.prefer for _, e in _dated_events(s)),
    ),
}
"""Every coverage item: (what a scenario claiming it must have, the check)."""
