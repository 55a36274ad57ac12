"""The simulated models' first-person -> third-person rewrite."""

from __future__ import annotations

import pytest

from memsys.llm.sim._rules import to_fact


@pytest.mark.parametrize(
    ("message", "fact"),
    [
        (
            "Hi! I'm a backend engineer at a logistics startup.",
            "Is a backend engineer at a logistics startup",
        ),
        ("Hello there, I prefer concise answers.", "Prefers concise answers"),
        ("Actually, I now prefer light mode.", "Prefers light mode"),
        ("I use Kotlin for my side projects", "Uses Kotlin for their side projects"),
        ("High availability matters to me", "High availability matters to them"),
    ],
)
def test_first_person_becomes_a_third_person_fact(message: str, fact: str) -> None:
    assert to_fact(message) == fact
