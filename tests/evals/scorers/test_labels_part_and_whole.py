"""A first line stating a listed fact for one of the things it names, then a line stating
the whole (docs/reader-protocol.md, "A reworded repeat", the reading since the
twenty-fourth session): the part is ``extra``, the whole the ``fact``, later lines repeats.
Each case holds the rule's other side: the whole first, a part alone, a fact that names
nothing it covers."""

from __future__ import annotations

import pytest

from evals.scenario import FactSpec
from evals.scorers._stating import completes_part
from tests.evals.scorers.conftest import BuildRun
from tests.helpers.label_lines import MADRID_MOVE, label_lines

CAFFEINE: dict[str, object] = {
    "remember": [
        {
            "fact": "The user avoids caffeine (coffee, energy drinks)",
            "keywords": [["caffeine", "coffee", "energy drink"]],
        }
    ]
}
SAID = [
    "I avoid caffeine completely, so no coffee and no energy drinks for me.",
    "Please never suggest a coffee place when we plan a meeting.",
]


@pytest.mark.parametrize(
    ("lines", "labels"),
    [
        (
            ["Never suggest a coffee place for meetings", "Avoids caffeine completely"],
            ["extra", "fact"],
        ),
        (
            ["Avoids caffeine completely", "Never suggest a coffee place for meetings"],
            ["fact", "repeat"],
        ),
        (["Never suggest a coffee place for meetings"], ["fact"]),  # no whole: the part holds
        (
            ["Never suggest a coffee place for meetings", "No coffee and no energy drinks"],
            ["extra", "fact"],  # every thing the fact names is the whole too
        ),
        (
            [
                "Never suggest a coffee place for meetings",
                "Avoids caffeine completely",
                "No coffee at all",
            ],
            ["extra", "fact", "repeat"],
        ),
    ],
    ids=["part then whole", "whole then part", "part alone", "all things", "part after whole"],
)
def test_a_part_before_the_whole_is_kept_as_extra_and_the_whole_is_the_fact(
    build_run: BuildRun, lines: list[str], labels: list[str]
) -> None:
    got = label_lines(build_run, lines, SAID, CAFFEINE)
    assert [line.label for line in got] == labels, [line.evidence for line in got]
    credited = [line for line in got if line.label == "fact"]
    assert len(credited) == 1 and credited[0].fact == CAFFEINE["remember"][0]["fact"]  # type: ignore[index]


def test_a_fact_that_names_nothing_it_covers_keeps_its_first_line() -> None:
    madrid = FactSpec.model_validate(MADRID_MOVE["remember"][0])  # type: ignore[index]
    assert not completes_part("Moving to Madrid in May", madrid, ["Madrid in May"])
    # A bracketed translation is no list of things: its fact has no parts.
    translated = FactSpec(
        fact="Prefiere respuestas cortas (prefers short answers)", keywords=[["cort", "short"]]
    )
    assert not completes_part("Prefers short answers", translated, ["Respuestas cortas"])
    spec = FactSpec.model_validate(CAFFEINE["remember"][0])  # type: ignore[index]
    assert completes_part("Avoids caffeine", spec, ["Skips coffee"])
    assert not completes_part("Avoids caffeine", spec, ["No caffeine"])
    assert not completes_part("Skips energy drinks", spec, ["Skips coffee"])
