"""The engine's events beyond a chat turn: sparse days, a session past midnight, bursts,
``during``, scripted bad compactions, CRLF hand edits, a MEMORY.md broken between days, and
the records they leave."""

from __future__ import annotations

from pathlib import Path

from evals.grid.cell import Cell
from evals.run.engine import DayHook, RunSpec, no_day_hook, run_scenario
from evals.scenario.load import load_scenario
from evals.trace.jsonl import read_trace

HEAD = "name: t\ndescription: x\nstart_date: 2026-03-02\ncovers: [exact_repeats]\n"


def run(
    tmp_path: Path,
    body: str,
    model: str = "sim/careful",
    policy: str = "guardrails",
    between_days: DayHook = no_day_hook,
):
    path = tmp_path / "t.yaml"
    path.write_text(HEAD + body)
    scenario = load_scenario(path)
    cell = Cell(scenario.name, model, policy, "v049-guardrails")
    spec = RunSpec(cell, scenario, path, tmp_path / "out", between_days=between_days)
    return list(read_trace(run_scenario(spec, None)))


def kinds(records, kind: str):
    return [r for r in records if r["kind"] == kind]


def test_sparse_days_run_on_their_dates_and_fire_one_day_change_each(tmp_path: Path) -> None:
    body = (
        "days:\n  - events: [{at: '09:00', user: Hello}]\n"
        "  - date: 2026-05-10\n    events: [{at: '09:00', user: Hello again}]\n"
    )
    records = run(tmp_path, body)
    assert [r["date"] for r in kinds(records, "snapshot")] == ["2026-03-02", "2026-05-10"]
    changes = [r for r in kinds(records, "trigger") if r["trigger"] == "day_change"]
    assert [(c["previous"], c["date"]) for c in changes] == [("2026-03-02", "2026-05-10")]


def test_a_session_past_midnight_has_no_day_change_until_the_app_comes_back(
    tmp_path: Path,
) -> None:
    body = (
        "days:\n"
        "  - close_app: false\n    events:\n"
        "      - {at: '23:50', user: I'm reading about Roman aqueducts tonight.}\n"
        "  - open_app: false\n    events:\n"
        "      - {at: '00:10', user: Still reading about aqueducts.}\n"
        "      - {at: '00:30', app_background: true}\n"
        "      - {at: '09:00', app_foreground: true}\n"
    )
    records = run(tmp_path, body)
    users = [r for r in kinds(records, "event") if r["type"] == "user"]
    assert [u["at"][:16] for u in users] == ["2026-03-02T23:50", "2026-03-03T00:10"]
    steps = [r["step"] for r in kinds(records, "trigger") if r["trigger"] == "day_change"]
    assert steps == ["day 2 #3 app_foreground"]
    flushes = [f for f in kinds(records, "flush") if f["outcome"] == "written"]
    assert flushes[0]["step"] == "day 2 #2 app_background" and flushes[0]["messages"] == 4


def test_a_burst_adds_message_pairs_without_model_calls(tmp_path: Path) -> None:
    body = "days:\n  - events:\n      - {at: '09:00', burst: {turns: 600, user: 'Ping {n}'}}\n"
    records = run(tmp_path, body)
    chat_calls = [c for c in kinds(records, "model_call") if c["purpose"] == "chat"]
    assert chat_calls == []
    (log_day,) = [d for d in kinds(records, "daily_log") if d["date"] == "2026-03-02"]
    assert log_day["messages"] == 1200
    assert log_day["transcript_chars"] == sum(len(f"Ping {n}") + 3 for n in range(1, 601))


def test_during_runs_the_edit_inside_the_daily_summary_call(tmp_path: Path) -> None:
    body = (
        "days:\n  - events:\n"
        "      - {at: '09:00', user: Remember that I prefer tea.}\n"
        "      - {at: '09:05', manual_edit: {append: '- User requested: call me Sam'},"
        " during: daily_summary}\n"
        "      - {at: '09:10', user: Hello}\n"
    )
    records = run(tmp_path, body)
    edit = next(r for r in kinds(records, "event") if "hooked_from" in r)
    assert edit["step"] == "day 1 close app" and edit["hooked_from"] == "day 1 #2 manual_edit"
    flush = next(r for r in kinds(records, "flush") if r["outcome"] == "written")
    assert edit["seq"] < flush["seq"]  # the edit landed while the summary was being written
    assert "User requested: call me Sam" in records[-1]["memory_md"]


def test_a_during_event_that_never_happens_is_an_error_of_the_run(tmp_path: Path) -> None:
    body = "days:\n  - events:\n      - {app_background: true, during: daily_summary}\n"
    records = run(tmp_path, body)
    assert records[-1]["errors"] == ["1 `during` events never ran (no such model call)"]


def test_scripted_compactions_and_the_backup_state_after_each(tmp_path: Path) -> None:
    body = (
        "days:\n  - events:\n"
        '      - manual_edit: {text: "# Long-term Memory\\n\\n## Notes\\n'
        '- User requested: keep this\\n- Likes tea\\n"}\n'
        "      - compact: {reply: 'too short'}\n"
        '      - compact: {reply: "# Long-term Memory\\n\\n## Notes\\n- Likes tea and more tea'
        ' and a lot more tea\\n"}\n'
        '      - compact: {reply: "# Long-term Memory\\n\\n## Notes\\n- None\\n- None\\n'
        '- User requested: keep this\\n- As an AI I cannot remember things\\n"}\n'
        "      - restore_backup: latest\n"
    )
    records = run(tmp_path, body)
    outcomes = [c["outcome"] for c in kinds(records, "compaction") if c.get("scripted")]
    assert outcomes == ["rejected_short", "rejected_lost_user_requested", "compacted"]
    states = kinds(records, "backup_state")
    assert len(states) >= 3
    assert all(b["restorable"] for s in states for b in s["backups"])
    assert "None" not in records[-1]["memory_md"]  # the restore undid the junk


def test_scripted_compaction_under_a_policy_without_compaction(tmp_path: Path) -> None:
    body = "days:\n  - events:\n      - {user: Hello}\n      - compact: {reply: whatever}\n"
    records = run(tmp_path, body, policy="unified")
    (compaction,) = [c for c in kinds(records, "compaction") if c["trigger"] == "manual"]
    assert compaction["outcome"] == "not_supported_by_policy"


def test_a_crlf_hand_edit_is_saved_with_crlf(tmp_path: Path) -> None:
    body = (
        "days:\n  - events:\n"
        '      - manual_edit: {text: "# Long-term Memory\\n\\n## Notes\\n- Likes tea\\n",'
        " line_endings: crlf}\n"
    )
    run(tmp_path, body)
    raw = (tmp_path / "out" / "memory" / "MEMORY.md").read_bytes()
    assert raw == b"# Long-term Memory\r\n\r\n## Notes\r\n- Likes tea\r\n"


def test_a_probe_records_hit_texts_and_its_preference(tmp_path: Path) -> None:
    body = (
        "days:\n  - events:\n"
        '      - manual_edit: {text: "- Prefers green tea\\n\\n- Lives in Leeds\\n\\n'
        '- Works as a baker\\n\\n- Has two cats\\n"}\n'
        "      - search: {query: green tea, prefer: {current: tea, stale: coffee}}\n"
    )
    (probe,) = kinds(run(tmp_path, body), "search_probe")
    assert probe["prefer"] == {"current": "tea", "stale": "coffee"}
    assert probe["hits"] and all("text" in h for h in probe["hits"])


def test_a_memory_md_cut_mid_character_between_days_is_an_error_not_a_crash(
    tmp_path: Path,
) -> None:
    broken = "# Long-term Memory\n\n## Notes\n- Likes café".encode()[:-1]  # half of "é"

    def cut_mid_character(day: int, memory_dir: Path) -> None:
        if day == 1:
            (memory_dir / "MEMORY.md").write_bytes(broken)

    body = (
        "days:\n  - events:\n"
        '      - manual_edit: {text: "# Long-term Memory\\n\\n## Notes\\n- Likes tea\\n"}\n'
        "      - compact: {reply: too short}\n"  # rejected, but its backup is made
        "  - events:\n"
        "      - compact: true\n"
        "      - compact: {reply: whatever}\n"
        "      - manual_edit: {append: '- User requested: call me Sam'}\n"
        "      - {manual_edit: {append: '- Likes jam'}, during: chat}\n"
        "      - {at: '10:00', user: Hello}\n"
        "      - restore_backup: latest\n"
        "      - restore_backup: latest\n"  # now the byte copy of the broken file
    )
    records = run(tmp_path, body, between_days=cut_mid_character)
    *errors, refused = kinds(records, "error")
    # The user turn too: the deletion guard (issue 28) counts MEMORY.md's entries before a turn,
    # and an unreadable file is that turn's error, naming the file, not a crash; so the edit
    # hooked to the turn's chat call never runs (run_end says so).
    where = ["compact", "compact", "manual_edit", "user"]
    assert [e["where"] for e in errors] == where
    memory = tmp_path / "out" / "memory"
    assert all(str(memory / "MEMORY.md") in e["message"] for e in errors)
    assert all("not valid UTF-8" in e["message"] for e in [*errors, refused])
    assert refused["where"] == "restore_backup" and "MEMORY_backup_" in refused["message"]
    assert len(records[-1]["errors"]) >= len(errors) + 1
    # Nothing was lost: the restore kept the broken file byte for byte as a backup.
    (restore,) = kinds(records, "restore")
    assert restore["ok"] and restore["round_trip"]
    assert records[-1]["memory_md"] == "# Long-term Memory\n\n## Notes\n- Likes tea\n"
    assert broken in [p.read_bytes() for p in memory.glob("MEMORY_backup_*.md")]
