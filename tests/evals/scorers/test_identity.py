"""A line that gives the user a role must have it from the user (issue 25: "[profession:
pharmacist]" after the user asked what to tell a pharmacist; "Software Engineer" for a
structural engineer)."""

from __future__ import annotations

from evals.scorers._identity import claimed_role, self_description_keys, unclaimed_role
from evals.scorers.labels import label_target
from tests.evals.scorers.conftest import BuildRun
from tests.helpers.traces import WEEK_EXPECT


def test_the_role_a_line_gives_the_user() -> None:
    assert claimed_role("Profession: ML engineer") == "ML engineer"
    assert claimed_role("[profession: data engineer]") == "data engineer"
    assert claimed_role("Works as a translator (Italian and Spanish)") == "translator"
    assert claimed_role("New career: ML engineer at Globex") == "ML engineer"
    assert claimed_role("Prefers short answers") is None
    assert claimed_role("New job, professional development") is None


def test_a_role_needs_the_users_own_self_description() -> None:
    said = self_description_keys(
        ["I'm a structural engineer at a bridge firm.", "What should I tell the pharmacist?",
         "I taught the new nurse today.", "I'm planning a balcony garden."]
    )  # fmt: skip
    assert unclaimed_role("Profession: Software Engineer", said) == "Software Engineer"
    assert unclaimed_role("[profession: pharmacist]", said) == "pharmacist"
    assert unclaimed_role("[profession: nurse]", said) == "nurse"
    assert unclaimed_role("[profession: gardener]", said) == "gardener"  # not "garden"
    assert unclaimed_role("Profession: structural engineer", said) is None
    assert unclaimed_role("Works as an engineer", said) is None
    # An expected fact vouches for its own role (the user wrote it into a hand edit).
    assert unclaimed_role("Works as a translator", said, "The user works as a translator") is None


def test_an_unclaimed_role_is_invented_and_a_claimed_one_kept(build_run: BuildRun) -> None:
    memory = (
        "# Long-term Memory\n\n## User Profile\n- Profession: Software Engineer\n"
        "- Profession: backend engineer\n"
    )
    said = [("event", {"type": "user", "user": "I'm a backend engineer at a logistics startup."})]
    run = build_run(memory, WEEK_EXPECT, records=said)
    labels = {line.entry.text: line for line in label_target(run.final, run).lines}
    invented = labels["Profession: Software Engineer"]
    assert invented.label == "invented" and "never claimed: Software Engineer" in invented.evidence
    assert labels["Profession: backend engineer"].label in ("fact", "extra")
