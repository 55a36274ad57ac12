"""What a scenario exercises: the closed list of seed rules and field failures (issue 11).

Every scenario names the items it covers in its ``covers:`` list; a test checks that each
item is named by at least one scenario (:data:`MIN_SCENARIOS` says where more are needed)
and, for the items a file can show by its shape (:data:`SHAPE_CHECKS`), that the scenario
really has that shape: ``long_horizon`` spans 60+ days, ``backups_past_five`` compacts at
least 8 times, and so on.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import StrEnum
from itertools import pairwise
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from evals.scenario import Scenario

__all__ = ["MIN_SCENARIOS", "SHAPE_CHECKS", "Cost", "Coverage"]


class Cost(StrEnum):
    """What recording a scenario with a real model costs (about 10 s per model call).

    ``light`` scenarios have at most :data:`LIGHT_MAX_CHAT_TURNS` chat turns; ``heavy`` ones
    (the 1,000-message day, the 60+ day runs) are recorded last, or skipped, by the recorder.
    """

    LIGHT = "light"
    HEAVY = "heavy"


LIGHT_MAX_CHAT_TURNS = 30
"""Chat turns (user messages and model-switch notices) a ``light`` scenario may have."""


class Coverage(StrEnum):
    """One seed rule or field failure a scenario exercises (values are the YAML names)."""

    # FEAT-049 pain points: transient state, one-time observations, chit-chat.
    MODEL_SWITCHES_WEEK = "model_switches_week"
    SCREENSHOT_DESK = "screenshot_desk"
    SCREENSHOT_HOME_SCREEN = "screenshot_home_screen"
    SCREENSHOT_ERROR_DIALOG = "screenshot_error_dialog"
    SCREENSHOT_DOCUMENT = "screenshot_document"
    CHITCHAT_WEATHER = "chitchat_weather"
    CHITCHAT_ONE_OFF_TRIP = "chitchat_one_off_trip"
    CHITCHAT_SMALL_TALK = "chitchat_small_talk"
    # FEAT-049 duplicate accumulation.
    PREFERENCE_FIVE_PHRASINGS = "preference_five_phrasings"
    EXACT_REPEATS = "exact_repeats"
    # FEAT-049 "no update mechanism" / RFC-049 update_memory; seed 004 contradictions.
    CONTRADICTION_PREFERENCE_FLIP = "contradiction_preference_flip"
    CONTRADICTION_JOB_CHANGE = "contradiction_job_change"
    CONTRADICTION_MOVE = "contradiction_move"
    CONTRADICTION_NEGATION = "contradiction_negation"
    CONTRADICTION_PARTIAL_UPDATE = "contradiction_partial_update"
    CONTRADICTION_ASSISTANT_CORRECTION = "contradiction_assistant_correction"
    CONTRADICTION_TEMPORAL_CHANGE = "contradiction_temporal_change"
    CONTRADICTION_HAND_EDIT = "contradiction_hand_edit"
    # Seed 004 Tier 3 decay/archive; RFC-049 backup retention over many compactions.
    LONG_HORIZON = "long_horizon"
    BACKUPS_PAST_FIVE = "backups_past_five"
    # RFC-049 compaction rules 6 and 9, FEAT-049 error scenarios 4-5.
    BAD_COMPACTION_JUNK = "bad_compaction_junk"
    BAD_COMPACTION_TOO_SHORT = "bad_compaction_too_short"
    BAD_COMPACTION_DROPS_USER_REQUESTED = "bad_compaction_drops_user_requested"
    RESTORE_AFTER_BAD_COMPACTION = "restore_after_bad_compaction"
    AUTO_COMPACTION_THRESHOLD = "auto_compaction_threshold"
    # Field failures of real models (issue 11): what the new scorers look for.
    MODEL_NAMES_IN_CONVERSATION = "model_names_in_conversation"
    SECTION_PLACEMENT = "section_placement"
    DAILY_LOG_HIGHLIGHTS = "daily_log_highlights"
    TOOL_ERRORS = "tool_errors"
    # FEAT-013 / FEAT-023 edge cases.
    THOUSAND_MESSAGE_DAY = "thousand_message_day"
    RAPID_SESSION_SWITCHES = "rapid_session_switches"
    MIDNIGHT_DAY_CHANGE = "midnight_day_change"
    BACKGROUND_DURING_WRITE = "background_during_write"
    EDIT_DURING_FLUSH = "edit_during_flush"
    # FEAT-013 "user manual editing" as users really edit.
    HAND_EDIT_MISSING_HEADER = "hand_edit_missing_header"
    HAND_EDIT_DUPLICATED_HEADER = "hand_edit_duplicated_header"
    HAND_EDIT_FREE_TEXT = "hand_edit_free_text"
    HAND_EDIT_CRLF = "hand_edit_crlf"
    NON_ENGLISH = "non_english"
    # FEAT-013 hybrid search with time decay.
    SEARCH_OLD_FACTS = "search_old_facts"
    SEARCH_CURRENT_OVER_STALE = "search_current_over_stale"


MIN_SCENARIOS: Mapping[Coverage, int] = {Coverage.LONG_HORIZON: 2}
"""Items that need more than one scenario (the issue asks for two 60+ day runs)."""


def _span_days(s: Scenario) -> int:
    dates = s.day_dates()
    return (dates[-1] - dates[0]).days + 1


def _events(s: Scenario, kind: str) -> int:
    return sum(1 for day in s.days for e in day.events if e.type == kind)


def _max_switches_in_a_week(s: Scenario) -> int:
    dated = [
        d
        for d, day in zip(s.day_dates(), s.days, strict=True)
        for e in day.events
        if e.type == "model_switch"
    ]
    return max((sum(1 for x in dated if 0 <= (x - d).days < 7) for d in dated), default=0)


def _max_messages_in_a_day(s: Scenario) -> int:
    return max(
        sum(
            2 * (e.burst.turns if e.burst else 1) for e in day.events if e.type in ("user", "burst")
        )
        for day in s.days
    )


def _screenshots(s: Scenario) -> int:
    return sum(1 for day in s.days for e in day.events if e.screenshot)


def _old_probes(s: Scenario) -> bool:
    dates = s.day_dates()
    return _span_days(s) >= 31 and any(
        e.type == "search"
        for d, day in zip(dates, s.days, strict=True)
        for e in day.events
        if (d - dates[0]).days >= 30
    )


def _prefer_probes(s: Scenario) -> int:
    return sum(1 for day in s.days for e in day.events if e.search and e.search.prefer)


def _contradictions(s: Scenario, kind: str) -> bool:
    return any(c.kind == kind for c in s.expect.contradictions)


def _contradiction_check(item: Coverage) -> tuple[str, Callable[[Scenario], bool]]:
    kind = item.value.removeprefix("contradiction_")
    return f"a contradiction of kind {kind}", lambda s: _contradictions(s, kind)


def _has_during(s: Scenario, kind: str) -> bool:
    return any(e.during is not None for day in s.days for e in day.events if e.type == kind)


def _edit_with(s: Scenario, crlf: bool) -> bool:
    return any(
        e.manual_edit is not None and (e.manual_edit.line_endings == "crlf") == crlf
        for day in s.days
        for e in day.events
    )


SHAPE_CHECKS: Mapping[Coverage, tuple[str, Callable[[Scenario], bool]]] = {
    Coverage.MODEL_SWITCHES_WEEK: (
        "at least 5 model switches within 7 days",
        lambda s: _max_switches_in_a_week(s) >= 5,
    ),
    Coverage.LONG_HORIZON: ("a span of at least 60 days", lambda s: _span_days(s) >= 60),
    Coverage.BACKUPS_PAST_FIVE: (
        "at least 8 compact events",
        lambda s: _events(s, "compact") >= 8,
    ),
    Coverage.THOUSAND_MESSAGE_DAY: (
        "a day with at least 1,000 messages",
        lambda s: _max_messages_in_a_day(s) >= 1000,
    ),
    Coverage.RAPID_SESSION_SWITCHES: (
        "at least 4 session switches in one day",
        lambda s: max(sum(1 for e in d.events if e.type == "session_switch") for d in s.days) >= 4,
    ),
    Coverage.MIDNIGHT_DAY_CHANGE: (
        "a day that runs past midnight (close_app: false, then open_app: false)",
        lambda s: any(not a.close_app and not b.open_app for a, b in pairwise(s.days)),
    ),
    Coverage.BACKGROUND_DURING_WRITE: (
        "an app_background with `during`",
        lambda s: _has_during(s, "app_background"),
    ),
    Coverage.EDIT_DURING_FLUSH: (
        "a manual_edit with `during`",
        lambda s: _has_during(s, "manual_edit"),
    ),
    Coverage.HAND_EDIT_CRLF: (
        "a manual edit with line_endings: crlf",
        lambda s: _edit_with(s, True),
    ),
    Coverage.SEARCH_OLD_FACTS: (
        "a search probe 30+ days after the start",
        _old_probes,
    ),
    Coverage.SEARCH_CURRENT_OVER_STALE: (
        "a search probe with `prefer`",
        lambda s: _prefer_probes(s) >= 1,
    ),
    Coverage.SCREENSHOT_DESK: ("a screenshot", lambda s: _screenshots(s) >= 1),
    Coverage.SCREENSHOT_HOME_SCREEN: ("a screenshot", lambda s: _screenshots(s) >= 1),
    Coverage.SCREENSHOT_ERROR_DIALOG: ("a screenshot", lambda s: _screenshots(s) >= 1),
    Coverage.SCREENSHOT_DOCUMENT: ("a screenshot", lambda s: _screenshots(s) >= 1),
    **{item: _contradiction_check(item) for item in Coverage if item.value.startswith("contra")},
}
"""Coverage items whose claim a scenario's shape can prove: (what is needed, the check)."""
