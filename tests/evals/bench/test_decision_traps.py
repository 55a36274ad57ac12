"""The repairs on the new decision cases without a model: each memory a case labels
``unrelated`` gets a scripted UPDATE and DELETE, each throwaway case a scripted DELETE of
every memory shown, through the policy's own subject judge (MiniLM)."""

from __future__ import annotations

import pytest

from evals.bench._decision_cases import CASES_FILE, Pattern, load_cases
from evals.bench.decision_traps import ScriptedTrap, render_traps, scripted_traps
from evals.run import shared_embedder
from memsys.decisions import Operation
from memsys.subject import SubjectJudge

_, CASES = load_cases(CASES_FILE)
NEW = [c for c in CASES if c.group != "tuned"]  # the new and the fresh cases

# Measured when the cases were written (issue 36 item 3), before any change to the judge, 7
# UPDATEs got through: close texts (MiniLM cosine >= 0.35) or a shared word that names no
# subject (a weekday, "named", "lives", "works"). Two word classes added after reading those
# 7 (so these cases are no longer held out for them: memsys.subject's docstring) catch 5:
# a weekday or "named" is no key term, and a fact about another party (a sister, a wife, a
# dog) is another subject. Left: two pairs that share no word but sit close by cosine.
UPDATES_LEFT = {
    "n-add-book-club",  # another weekly activity (cosine 0.37, nothing shared)
    "n-upd-team-sync",  # football on the same weekday (cosine 0.44 without the weekday)
}
# A negation about today beside the habit it names ("Not in the mood to cook tonight") got
# through until the passing-remark rule (memsys.subject.is_passing): now none does.
THROWAWAY_DELETES_LEFT: set[str] = set()


@pytest.fixture(scope="module")
def traps() -> list[ScriptedTrap]:
    embedder = shared_embedder()
    if embedder is None:
        pytest.fail("the embedding model must load: the policy judges subjects with it")
    return scripted_traps(NEW, SubjectJudge(embedder.embed))


def test_every_labelled_unrelated_memory_gets_a_scripted_update_and_delete(
    traps: list[ScriptedTrap],
) -> None:
    scripted = {(t.case.name, t.op, t.memory) for t in traps if t.memory in t.case.unrelated}
    wanted = {
        (c.name, op, m)
        for c in NEW
        for m in c.unrelated
        for op in (Operation.UPDATE, Operation.DELETE)
    }
    assert scripted == wanted and len(wanted) >= 20


def test_a_scripted_delete_of_an_unrelated_memory_is_always_caught(
    traps: list[ScriptedTrap],
) -> None:
    deletes = [t for t in traps if t.op is Operation.DELETE and t.memory in t.case.unrelated]
    assert deletes and all(t.caught for t in deletes), [t for t in deletes if not t.caught]
    assert all(t.repair_kind in ("unrelated_target", "not_an_ending") for t in deletes)


def test_scripted_updates_of_an_unrelated_memory_the_repair_catches_and_those_it_does_not(
    traps: list[ScriptedTrap],
) -> None:
    updates = [t for t in traps if t.op is Operation.UPDATE]
    left = {t.case.name for t in updates if not t.caught}
    assert left == UPDATES_LEFT
    caught = [t for t in updates if t.caught]
    assert caught  # the other traps: the fact is added, the memory kept
    assert all(t.decided is Operation.ADD and t.repair_kind == "unrelated_target" for t in caught)


def test_a_scripted_delete_beside_a_throwaway_remark_removes_nothing(
    traps: list[ScriptedTrap],
) -> None:
    throwaways = [t for t in traps if t.case.pattern is Pattern.THROWAWAY]
    assert {t.case.name for t in throwaways} == {
        c.name for c in NEW if c.pattern is Pattern.THROWAWAY
    }
    assert {t.case.name for t in throwaways if not t.caught} == THROWAWAY_DELETES_LEFT
    # "DELETE stores the new fact" stores no throwaway remark (issue 36 item 2).
    assert not [t.case.name for t in throwaways if t.stored]
    # "Long shift, off to bed." against the paramedic's shifts: same subject, no ending:
    # refused and nothing stored (the rule issue 36 item 2 asks for).
    bed = next(t for t in throwaways if t.case.name == "n-noop-off-to-bed")
    assert (bed.decided, bed.repair_kind, bed.stored) == (Operation.NOOP, "not_an_ending", False)


def test_the_report_lists_every_scripted_decision_left_standing(
    traps: list[ScriptedTrap],
) -> None:
    text = render_traps(traps)
    for t in traps:
        line = f"- `{t.case.name}` ({t.case.group}): {t.op.value} of memory {t.memory} stands"
        assert (line in text) is (not t.caught)
