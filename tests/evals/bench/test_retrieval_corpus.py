"""The retrieval benchmark's corpus generator: deterministic, months long, honest probes."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import pytest

from evals.bench._retrieval_corpus import (
    CorpusSpec,
    FramesError,
    ProbeKind,
    RetrievalCorpus,
    content_words,
    load_frames,
    write_corpus,
)
from tests.helpers.yaml_bombs import billion_laughs


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, RetrievalCorpus]:
    memory_dir = tmp_path_factory.mktemp("corpus")
    return memory_dir, write_corpus(memory_dir)


def line(memory_dir: Path, key: str) -> str:
    source, number = key.rsplit(":", 1)
    return (memory_dir / source).read_text(encoding="utf-8").splitlines()[int(number) - 1]


def test_same_seed_same_files_and_probes(
    tmp_path: Path, corpus: tuple[Path, RetrievalCorpus]
) -> None:
    memory_dir, first = corpus
    again = write_corpus(tmp_path)
    assert again == first
    for path in sorted((memory_dir / "daily").glob("*.md")):
        assert (tmp_path / "daily" / path.name).read_text() == path.read_text()
    other = write_corpus(tmp_path / "other", CorpusSpec(seed=14))
    assert other.probes != first.probes


def test_spans_six_months_with_300_probes_of_two_kinds(
    corpus: tuple[Path, RetrievalCorpus],
) -> None:
    memory_dir, made = corpus
    days = sorted(date.fromisoformat(p.stem) for p in (memory_dir / "daily").glob("*.md"))
    assert (days[-1] - days[0]).days >= 182 and days[-1] < made.spec.today
    kinds = [p.kind for p in made.probes]
    assert len(kinds) >= 300
    assert kinds.count(ProbeKind.RECALL) == 200 and kinds.count(ProbeKind.CURRENT) == 120


def test_recall_facts_are_30_to_180_days_old_and_updates_come_later(
    corpus: tuple[Path, RetrievalCorpus],
) -> None:
    _, made = corpus
    today = made.spec.today
    for probe in made.probes:
        target_day = date.fromisoformat(probe.target.split("/")[1][:10])
        assert (today - target_day).days == probe.target_age
        if probe.kind is ProbeKind.RECALL:
            assert 30 <= probe.target_age <= 180 and probe.stale is None
        else:
            assert probe.stale is not None
            stale_day = date.fromisoformat(probe.stale.split("/")[1][:10])
            assert (target_day - stale_day).days >= 14


def test_questions_are_paraphrases_and_point_at_their_fact(
    corpus: tuple[Path, RetrievalCorpus],
) -> None:
    memory_dir, made = corpus
    for probe in made.probes:
        fact = line(memory_dir, probe.target)
        person = re.findall(r"\b[A-Z][a-z]+\b", probe.query)
        assert any(name in fact for name in person), (probe.query, fact)
        names = set().union(*(content_words(name) for name in person))
        shared = content_words(probe.query) & content_words(fact)
        assert shared <= names, (probe.query, fact, shared)
        if probe.stale is not None:
            assert line(memory_dir, probe.stale) != fact


def test_every_probe_has_distractors_sharing_its_words(
    corpus: tuple[Path, RetrievalCorpus],
) -> None:
    memory_dir, made = corpus
    texts = [
        text
        for path in (memory_dir / "daily").glob("*.md")
        for text in path.read_text(encoding="utf-8").splitlines()[1:]
    ]
    words = [content_words(t) for t in texts]
    for probe in made.probes[::10]:
        fact = line(memory_dir, probe.target)
        overlapping = sum(
            1 for w, t in zip(words, texts, strict=True) if t != fact and w & content_words(fact)
        )
        assert overlapping >= 2


def test_a_question_that_reuses_the_fact_words_is_refused(tmp_path: Path) -> None:
    frames = tmp_path / "frames.yaml"
    frames.write_text(
        "frames:\n"
        "  - id: pet\n"
        "    values: [Luna, Mochi, Rocket]\n"
        '    facts: ["{p} adopted a dog named {v}."]\n'
        '    question: "What is the name of the dog {p} adopted?"\n'
        '    distractors: ["{q} walks dogs."]\n'
    )
    with pytest.raises(FramesError, match=r"frames.yaml: frame 'pet': the question reuses"):
        load_frames(frames)


def test_a_frames_file_is_read_with_the_yaml_limits(tmp_path: Path) -> None:
    frames = tmp_path / "frames.yaml"
    frames.write_text(billion_laughs() + "frames: *l7\n")
    with pytest.raises(FramesError, match="expands to more than 1,000,000 nodes"):
        load_frames(frames)


def test_the_shipped_frames_load() -> None:
    frames = load_frames()
    assert len(frames) >= 30 and sum(1 for f in frames if f.updates) >= 10
