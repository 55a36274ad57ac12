"""Which listed fact a line states, if any: a name alone, a fact's subject named beside another
fact or a thing not to keep, an ending against a forbidden or stale fact, a framing word."""

from __future__ import annotations

from tests.evals.scorers.conftest import BuildRun
from tests.helpers.label_lines import label_lines as _labels


def test_a_name_alone_does_not_state_the_fact_that_names_it(build_run: BuildRun) -> None:
    """The protocol's bare word that does not say the fact: "Munich" for "lives in Munich"
    is junk; "Vegan" for "is vegan" is the fact."""
    munich = {"remember": [{"fact": "The user lives in Munich", "keywords": [["munich"]]}]}
    [line] = _labels(build_run, ["Munich"], ["I live in Munich."], munich)
    assert line.label == "junk"
    vegan = {"remember": [{"fact": "The user is vegan", "keywords": [["vegan"]]}]}
    [line] = _labels(build_run, ["Vegan"], ["I'm vegan."], vegan)
    assert line.label == "fact"


def test_a_line_stating_one_fact_and_naming_anothers_subject_credits_one(
    build_run: BuildRun,
) -> None:
    """ "Biscuit's vet is the Greenway clinic" says the vet and only names the puppy: the
    later line saying the puppy is that fact, not a repeat (file 554, both labellers)."""
    puppy = {
        "remember": [
            {"fact": "The user has a beagle puppy called Biscuit", "keywords": [["biscuit"]]},
            {"fact": "Biscuit's vet is the Greenway clinic", "keywords": [["greenway"]]},
        ]
    }
    said = ["I adopted Biscuit, a beagle puppy.", "Biscuit's vet is the Greenway clinic."]
    lines = ["Biscuit's vet is the Greenway clinic.", "Biscuit is a beagle puppy I adopted."]
    vet, dog = _labels(build_run, lines, said, puppy)
    assert vet.label == "fact" and vet.facts == ("Biscuit's vet is the Greenway clinic",)
    assert dog.label == "fact" and dog.facts == ("The user has a beagle puppy called Biscuit",)


def test_database_says_what_kind_of_thing_a_named_system_is(build_run: BuildRun) -> None:
    warehouse = {
        "remember": [
            {"fact": "The user's warehouse runs on Snowflake", "keywords": [["snowflake"]]}
        ]
    }
    said = ["Remember that our warehouse runs on Snowflake."]
    [line] = _labels(build_run, ["Works with Snowflake databases"], said, warehouse)
    assert line.label == "fact"
    [line] = _labels(build_run, ["Works with Snowflake pipelines daily"], said, warehouse)
    assert line.label == "invented"


def test_a_line_about_a_forbidden_thing_naming_only_a_facts_name_is_that_thing(
    build_run: BuildRun,
) -> None:
    """ "Biscuit woke them up three times last night" names the puppy of a listed fact and
    says the transient remark: noise. A line saying the fact too is the fact."""
    puppy = {
        "remember": [
            {"fact": "The user has a beagle puppy called Biscuit", "keywords": [["biscuit"]]}
        ],
        "forbid": [
            {
                "fact": "The user is exhausted after a broken night",
                "kind": "transient",
                "keywords": [["exhausted", "woke", "tired"]],
            }
        ],
    }
    said = ["We just adopted a beagle puppy called Biscuit!", "Biscuit woke us three times."]
    [line] = _labels(build_run, ["Biscuit woke them up three times last night"], said, puppy)
    assert line.label == "noise" and "forbidden (transient)" in line.evidence
    both = ["Has a beagle puppy called Biscuit, who woke them three times last night"]
    [line] = _labels(build_run, both, said, puppy)
    assert line.label == "fact"


def test_an_ending_is_not_the_forbidden_fact_it_negates(build_run: BuildRun) -> None:
    cat = {
        "remember": [],
        "forbid": [{"fact": "The user has a cat named Milo", "keywords": [["cat"]]}],
    }
    said = ["Remember that I have a cat named Milo.", "Milo died, I no longer have a cat."]
    [line] = _labels(build_run, ["No longer has a cat"], said, cat)
    assert line.label == "extra"
    [line] = _labels(build_run, ["Has a cat named Milo"], said, cat)
    assert line.label == "noise"


def test_a_line_that_only_ends_the_stale_side_is_not_stale(build_run: BuildRun) -> None:
    """ "HeatRight has closed down" says the old side is over (search-decay-buried, both
    labellers kept it); "still with HeatRight, never on time" claims it."""
    boiler = {
        "remember": [{"fact": "The service contract is with Warmwell", "keywords": [["warmwell"]]}],
        "contradictions": [
            {
                "stale": {
                    "fact": "The service contract is with HeatRight",
                    "keywords": [["heatright"]],
                },
                "current": {
                    "fact": "The service contract is with Warmwell",
                    "keywords": [["warmwell"]],
                },
                "kind": "temporal_change",
            }
        ],
    }
    said = [
        "The service contract is with HeatRight.",
        "It moved to Warmwell; HeatRight has closed down.",
    ]
    [line] = _labels(build_run, ["HeatRight has closed down"], said, boiler)
    assert line.label == "extra"
    [line] = _labels(
        build_run, ["Service contract still with HeatRight, never on time"], said, boiler
    )
    assert line.label == "stale"
