"""Where an entry belongs by its own words, and which standard section a header names."""

from __future__ import annotations

import pytest

from evals.scorers._sections import cues_of, misfiled_by, standard_section
from memsys.sections import Section


@pytest.mark.parametrize(
    ("header", "section"),
    [
        ("User Profile", Section.USER_PROFILE),
        ("User Profile (profession, background, personality)", Section.USER_PROFILE),
        ("preferences", Section.PREFERENCES),
        ("Notes: anything else", Section.NOTES),
        ("Projects and ideas", None),  # another section, not Projects with a description
        ("Misc", None),
        (None, None),
    ],
)
def test_standard_section(header: str | None, section: Section | None) -> None:
    assert standard_section(header) == section


@pytest.mark.parametrize(
    ("text", "section", "kinds"),
    [
        # The user's profile filed as a preference (what real models wrote in the audit).
        ("I work at Initrode as a site reliability engineer.", Section.PREFERENCES, ["profession"]),
        ("I am a data analyst at Acme Insurance.", Section.PREFERENCES, ["profession"]),
        ("[I am a paramedic working twelve-hour shifts.]", Section.PREFERENCES, ["profession"]),
        ("User requested: Works as a translator", Section.NOTES, ["profession"]),
        ("New career: ML engineer", Section.PREFERENCES, ["profession"]),
        ("I live in Munich.", Section.PREFERENCES, ["residence"]),
        ("New location: Porto", Section.PREFERENCES, ["residence"]),
        ("We moved to Porto last month", Section.PROJECTS, ["residence"]),
        ("penicillin allergy", Section.PREFERENCES, ["health"]),
        ("Blood type is O negative", Section.INTERESTS, ["health"]),
        (
            "Project uses PostgreSQL 16 and runs on Ubuntu 22.04",
            Section.PREFERENCES,
            ["tech stack"],
        ),
        ("Preferred distance unit set to kilometers.", Section.USER_PROFILE, ["preference"]),
        ("personal preference for metric units", Section.PROJECTS, ["preference"]),
        # Where each belongs, or where no cue decides.
        ("Works as a translator (Italian and Spanish)", Section.USER_PROFILE, []),
        ("Lives in Glasgow", Section.USER_PROFILE, []),
        ("Is allergic to shellfish", Section.NOTES, []),
        ("Project uses PostgreSQL 16", Section.WORKFLOW, []),
        ("Prefers dashboards in Grafana over Kibana", Section.WORKFLOW, []),
        ("Prefers oat milk: lactose intolerant", Section.PREFERENCES, []),
        ("User's laptop is a ThinkPad", Section.PREFERENCES, []),
        ("Likes Sushi Go as a card game", Section.INTERESTS, []),
        # Preferences without the word "prefer", stack details, efforts (second audit pass).
        ("User likes Sushi Go as a card game.", Section.USER_PROFILE, ["preference"]),
        ("metric_units: km, kg", Section.USER_PROFILE, ["preference"]),
        ("dark_mode", Section.PROJECTS, ["preference"]),
        ("User requested: Always answer in British English", Section.PROJECTS, ["preference"]),
        ("PostgreSQL 16, Ubuntu 22.04", Section.PREFERENCES, ["tech stack"]),
        (
            "I'm training for the Berlin marathon in September.",
            Section.PREFERENCES,
            ["ongoing effort"],
        ),
        ("Studying for the CPA exam in November", Section.PROJECTS, []),
        ("Prefers Python 3.12 for scripts", Section.PREFERENCES, []),
        ("I'm planning a trip to Lisbon next month.", Section.PREFERENCES, []),  # noise's
        ("Always works night shifts", Section.USER_PROFILE, []),
        ("Mia is a 5-year-old girl", Section.PREFERENCES, []),
    ],
)
def test_misfiled_by(text: str, section: Section, kinds: list[str]) -> None:
    assert [cue.kind for cue in misfiled_by(text, section)] == kinds


def test_an_entry_with_several_cues_may_sit_where_any_accepts_it() -> None:
    text = "Prefers late shifts; works as a nurse at the Royal Infirmary"
    assert [cue.kind for cue in cues_of(text)] == ["profession", "preference"]
    assert misfiled_by(text, Section.PREFERENCES) == ()
    assert misfiled_by(text, Section.USER_PROFILE) == ()
    assert [cue.kind for cue in misfiled_by(text, Section.PROJECTS)] == ["profession", "preference"]
