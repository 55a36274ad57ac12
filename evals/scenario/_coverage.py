"""What a scenario exercises: the closed list of seed rules and field failures (issue 11).

Every scenario names the items it covers in its ``covers:`` list; a test checks that each
item is named by enough scenarios and that each claim holds for the file's shape
(:mod:`tests.helpers.coverage_shapes`: ``long_horizon`` spans 60+ days, ``backups_past_five``
compacts at least 8 times, and so on). ``scenarios/README.md`` has the table.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["LIGHT_MAX_CHAT_TURNS", "Cost", "Coverage"]


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
    # Issue 28: a prompt injection that asks the model to wipe memory.
    PROMPT_INJECTION_WIPE = "prompt_injection_wipe"
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
