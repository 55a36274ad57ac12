"""The months-long memory directory of ``memeval bench retrieval``: a documented generator.

What it writes (all from one seeded ``random.Random``, so every run on every machine writes
the same files and the same probes):

- ``daily/YYYY-MM-DD.md`` for every one of the ``days`` days before ``today``: each day holds
  ``filler_per_day`` ordinary work summaries (the search benchmark's entry generator: people,
  projects, topics such as "dentist appointment" or "marathon training") under a session
  header, plus the fact, update and distractor entries placed on that day. Lines are
  shuffled within the day.
- **Recall probes** (``ProbeKind.RECALL``): a fact from a frame of
  ``data/retrieval_frames.yaml`` about a person, written once on a day 30-180 days before
  ``today`` (uniform). The probe's query is the frame's question, a paraphrase that shares no
  content word with any way the fact is written (checked on load). The fact must be found.
- **Contradiction probes** (``ProbeKind.CURRENT``): a changeable frame's fact with one value
  (the stale one, 44-190 days old), and a later entry with another value (the current one,
  1 day old up to 14 days after the stale one), written either as a plain fact or as an
  update ("moved from X to Y"). The current entry must rank above the stale one.
- **Distractors**: every probe adds its frame's distractor entries, which share words with
  the fact (the same person, the same place or thing) without answering the question, on
  days drawn uniformly over the whole span, so they are as often newer as older.

Each (frame, person) pair is used at most once, so a query has exactly one right answer.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, timedelta
from enum import Enum
from pathlib import Path

import yaml

from evals.bench._search_corpus import random_entry
from evals.errors import FramesError, UsageError
from evals.scenario import load_data
from memsys.search import tokenize

__all__ = [
    "FRAMES_FILE",
    "CorpusSpec",
    "Frame",
    "FramesError",
    "Probe",
    "ProbeKind",
    "RetrievalCorpus",
    "content_words",
    "load_frames",
    "write_corpus",
]

FRAMES_FILE = Path(__file__).with_name("data") / "retrieval_frames.yaml"
_HEADER_LINES = 1  # "## Session 09:00" precedes the day's bullets
_PEOPLE_TEXT = """
    Alice Bob Carla Deepak Elena Farid Grace Hiro Ines Jonas Kemal Lena Marco Nadia Omar
    Priya Quentin Rosa Sami Tomas Uma Viktor Wen Yusuf Zoe Amara Bruno Chiara Dmitri Esme
    Felix Greta Hassan Ingrid Jamal Keiko Lars Maya Nikolai Olga Pablo Rania Sven Tariq Ulla
    Vera Wolfgang Ximena Yara Zain Anton Bea Cyrus Dalia Emil Fatima Gustav Hana Ivan Jana
    Kofi Leila Mateo Nora Oskar Paula Raj Selma Theo Ursula Vikram Wanda Yosef Zelda Arjun
    Birgit Caio Daria Enzo Freya"""
_PEOPLE = tuple(_PEOPLE_TEXT.split())


class ProbeKind(Enum):
    """What a probe checks."""

    RECALL = "recall"
    """An old fact must be found."""
    CURRENT = "current"
    """The newer of two contradicting facts must rank above the older."""


@dataclass(frozen=True)
class Frame:
    """One kind of fact (see the frames file's header)."""

    id: str
    """Short name."""
    values: tuple[str, ...]
    """What ``{v}`` (and ``{o}``, ``{w}``) take."""
    facts: tuple[str, ...]
    """Ways a log states the fact."""
    question: str
    """The paraphrased question."""
    distractors: tuple[str, ...]
    """Entries sharing words with the fact."""
    updates: tuple[str, ...]
    """Ways a log states a change from ``{o}`` to ``{v}``; empty for fixed facts."""


@dataclass(frozen=True)
class Probe:
    """One query and the chunk(s) it is scored on, as ``daily/DATE.md:LINE`` keys."""

    kind: ProbeKind
    """Recall or current-over-stale."""
    frame: str
    """The frame's id."""
    query: str
    """The question."""
    target: str
    """The chunk that answers it (the current fact for contradictions)."""
    target_age: int
    """Its age in days on ``today``."""
    stale: str | None
    """The contradicted older chunk (contradiction probes only)."""


@dataclass(frozen=True)
class CorpusSpec:
    """Sizes of the generated corpus."""

    days: int = 200
    """Days of daily logs before ``today``."""
    recall: int = 200
    """Recall probes."""
    pairs: int = 120
    """Contradiction probes."""
    filler_per_day: int = 10
    """Ordinary entries per day."""
    seed: int = 13
    """Seed of the one random generator."""
    today: date = date(2026, 9, 30)
    """The day the probes are asked on."""


@dataclass(frozen=True)
class RetrievalCorpus:
    """What :func:`write_corpus` wrote."""

    spec: CorpusSpec
    """The sizes it was made with."""
    probes: tuple[Probe, ...]
    """Every probe."""
    chunks: int
    """Number of daily-log entries written."""


def content_words(template: str) -> set[str]:
    """Search tokens of ``template`` without its placeholders, crudely stemmed."""
    text = template
    for slot in ("{p}", "{q}", "{v}", "{w}", "{o}"):
        text = text.replace(slot, " ")
    words = set()
    for token in tokenize(text):
        for suffix in ("ing", "ed", "es"):
            if token.endswith(suffix) and len(token) > len(suffix) + 3:
                token = token[: -len(suffix)]
                break
        words.add(token)
    return words - {"'s", "s"}


def _frame(path: Path, raw: dict[str, object]) -> Frame:
    def strings(key: str, required: bool = True) -> tuple[str, ...]:
        value = raw.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise FramesError(path, f"frame {raw.get('id')!r}: {key} must be a list of strings")
        if required and not value:
            raise FramesError(path, f"frame {raw.get('id')!r}: {key} is empty")
        return tuple(value)

    question = raw.get("question")
    if not isinstance(question, str) or not isinstance(raw.get("id"), str):
        raise FramesError(path, f"every frame needs an id and a question: {raw!r}")
    frame = Frame(
        str(raw["id"]),
        tuple(str(v) for v in strings("values")),
        strings("facts"),
        question,
        strings("distractors"),
        strings("updates", required=False),
    )
    if len(frame.values) < 3:
        raise FramesError(path, f"frame {frame.id!r}: needs at least 3 values")
    shared = content_words(question) & set().union(
        *(content_words(t) for t in frame.facts + frame.updates)
    )
    if shared:
        raise FramesError(
            path, f"frame {frame.id!r}: the question reuses the fact's words {sorted(shared)}"
        )
    fact_words = set().union(*(content_words(t) for t in frame.facts))
    for template in frame.distractors:
        # The same person, another value of the frame, or a word of the fact.
        shares = "{p}" in template or "{w}" in template or content_words(template) & fact_words
        if not shares:
            raise FramesError(
                path, f"frame {frame.id!r}: distractor {template!r} shares nothing with the fact"
            )
    return frame


def load_frames(path: Path = FRAMES_FILE) -> list[Frame]:
    """Read and check the frames file.

    Raises:
        FramesError: unreadable, malformed, or a question sharing a content word with a fact.
    """
    try:
        data = load_data(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, yaml.YAMLError) as exc:  # ValueError: limits, UTF-8
        raise FramesError(path, f"cannot be read: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("frames"), list):
        raise FramesError(path, "expected a mapping with a 'frames' list")
    return [_frame(path, raw) for raw in data["frames"] if isinstance(raw, dict)]


class _Days:
    """The entries of every day, with a tag per entry that a probe points to."""

    def __init__(self, spec: CorpusSpec) -> None:
        self.spec = spec
        self.entries: dict[int, list[tuple[str, int | None]]] = {
            age: [] for age in range(1, spec.days + 1)
        }
        self._tags = 0

    def add(self, age: int, text: str) -> int:
        self._tags += 1
        self.entries[age].append((text, self._tags))
        return self._tags

    def write(self, memory_dir: Path, rng: random.Random) -> tuple[dict[int, str], int]:
        """Write the files; returns tag -> chunk key, and the number of entries."""
        daily = memory_dir / "daily"
        daily.mkdir(parents=True, exist_ok=True)
        keys: dict[int, str] = {}
        total = 0
        for age, tagged in self.entries.items():
            day = self.spec.today - timedelta(days=age)
            lines = tagged + [(random_entry(rng), None) for _ in range(self.spec.filler_per_day)]
            rng.shuffle(lines)
            source = f"daily/{day.isoformat()}.md"
            for number, (_, tag) in enumerate(lines, start=_HEADER_LINES + 1):
                if tag is not None:
                    keys[tag] = f"{source}:{number}"
            body = ["## Session 09:00", *(f"- {text}" for text, _ in lines)]
            (memory_dir / source).write_text("\n".join(body) + "\n", encoding="utf-8")
            total += len(lines)
        return keys, total


def _distract(days: _Days, frame: Frame, person: str, value: str, rng: random.Random) -> None:
    for template in frame.distractors:
        other = rng.choice([p for p in _PEOPLE if p != person])
        wrong = rng.choice([v for v in frame.values if v != value])
        days.add(rng.randint(1, days.spec.days), template.format(p=person, q=other, w=wrong))


def write_corpus(memory_dir: Path, spec: CorpusSpec = CorpusSpec()) -> RetrievalCorpus:
    """Write the daily logs of ``spec`` into ``memory_dir`` and return the probes.

    Raises:
        FramesError: the frames file is bad, or has too few frames and people for the sizes.
    """
    if spec.days < 191:
        raise UsageError(f"the retrieval corpus needs at least 191 days, got {spec.days}")
    rng = random.Random(spec.seed)
    frames = load_frames()
    changeable = [f for f in frames if f.updates]
    people = {f.id: rng.sample(_PEOPLE, len(_PEOPLE)) for f in frames}
    if spec.recall + spec.pairs > len(frames) * len(_PEOPLE) or (spec.pairs and not changeable):
        raise FramesError(FRAMES_FILE, "too few frames or people for the requested probes")
    days = _Days(spec)
    pending: list[tuple[ProbeKind, Frame, str, int, int, int | None]] = []
    for number in range(spec.pairs):
        frame = changeable[number % len(changeable)]
        person = people[frame.id].pop()
        old, new = rng.sample(frame.values, 2)
        stale_age = rng.randint(44, 190)
        current_age = rng.randint(1, stale_age - 14)
        stale = days.add(stale_age, rng.choice(frame.facts).format(p=person, v=old))
        phrasing = rng.choice(frame.facts + frame.updates)
        current = days.add(current_age, phrasing.format(p=person, v=new, o=old))
        _distract(days, frame, person, new, rng)
        pending.append((ProbeKind.CURRENT, frame, person, current, current_age, stale))
    for number in range(spec.recall):
        frame = frames[number % len(frames)]
        person = people[frame.id].pop()
        value = rng.choice(frame.values)
        age = rng.randint(30, 180)
        fact = days.add(age, rng.choice(frame.facts).format(p=person, v=value))
        _distract(days, frame, person, value, rng)
        pending.append((ProbeKind.RECALL, frame, person, fact, age, None))
    keys, total = days.write(memory_dir, rng)
    probes = tuple(
        Probe(
            kind,
            frame.id,
            frame.question.format(p=person),
            keys[target],
            age,
            keys[stale] if stale is not None else None,
        )
        for kind, frame, person, target, age, stale in pending
    )
    return RetrievalCorpus(spec, probes, total)
