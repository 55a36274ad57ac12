"""memsys.app: the memory system assembled from the same parts by every caller, and the
app's message conventions written once."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path

from memsys.app import (
    APP_NOTICE_PREFIX,
    SCREENSHOT_PREFIX,
    memory_tool,
    model_switch_notice,
    open_memory,
    open_search,
    user_message,
)
from memsys.clock import ManualClock
from memsys.llm.sim._rules import Kind, classify


def test_a_saved_entry_is_read_back_and_found_by_search(tmp_path: Path) -> None:
    manager = open_memory(tmp_path, ManualClock(datetime(2026, 3, 2, 9)))
    save = memory_tool("save", manager)
    for fact in ("The user's sister lives in Porto", "Prefers tea to coffee", "Works at Acme"):
        assert save.execute({"content": fact}).ok
    shown = memory_tool("read", manager).execute({})
    assert "sister lives in Porto" in shown.message
    search = open_search(tmp_path, None)
    assert search.refresh() >= 1
    hits = search.search("sister Porto", today=date(2026, 3, 2))
    assert hits and "Porto" in hits[0].text


def test_an_unsectioned_save_appends_at_the_end(tmp_path: Path) -> None:
    manager = open_memory(tmp_path, ManualClock(datetime(2026, 3, 2, 9)))
    memory_tool("save", manager, sectioned=False).execute({"content": "Likes tea"})
    assert manager.read_long_term_memory().rstrip().endswith("Likes tea")


def test_the_app_conventions_are_the_ones_the_models_read() -> None:
    message = user_message("look at this", "a receipt for 12 EUR")
    assert message == "look at this\n[Screenshot: a receipt for 12 EUR]"
    assert message.split("\n")[1].startswith(SCREENSHOT_PREFIX)
    assert user_message("hi", None) == "hi"
    notice = model_switch_notice("gpt-4o", "claude")
    assert notice == "[App] The user switched the default model from gpt-4o to claude."
    assert notice.startswith(APP_NOTICE_PREFIX)
    # The simulated models tell an app notice from something the user said.
    assert classify(notice) is not classify("I switched jobs to Acme")
    assert isinstance(classify(notice), Kind)
