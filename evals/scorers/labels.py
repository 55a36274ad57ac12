"""One label per MEMORY.md line: the single judgement every file metric counts over.

:func:`label_target` gives every entry of a MEMORY.md state (and every bullet that parses to
nothing) exactly one :class:`LineLabel`, with its evidence. The first rule that holds wins:

1. ``junk``: a placeholder, a template slot, pasted prompt or tool text, the assistant's own
   words, a question, a log (:func:`~evals.scorers._detect.junk_reason`), an empty bullet,
   a log of what the assistant made (:func:`._doing.assistants_work`: "Created recipes for
   three people", the verb never the user's);
2. ``model_name``: names a model or AI product;
3. ``stale``: states the stale side of an expected contradiction (which one is the evidence);
4. ``fact``: states an expected current fact (a ``remember`` fact or a contradiction's current
   side) *and carries its values* (every number, weekday and month the fact states) and
   makes nothing up beside it (the invented rule below, the fact's own words counting as
   said); a line stating several credits each; the first line stating a fact in full is
   credited, a later one is a ``repeat`` of it (``docs/reader-protocol.md``); a fragment
   states a fact only made of the fact's own words, when the fact has no values and the
   fragment is not a name alone ("Teacher" is the fact, "Leeds" for "lives in Leeds" is not)
   nor the topic of a fact saying what the user does or has ("Poetry" for "writes poetry"),
   nor a line about a ``forbid`` item that only names what the fact is about, nor (of a
   "The user is a ..." fact) one without the role's noun ("Chemistry teaching" for "is a
   chemistry teacher", :func:`._stating.role_missed`); a role line
   ("[profession: QA engineer]") states a "The user is a ..." fact whose words it holds;
   of a fact about something of the user's ("The user's blood type is O negative") a line
   must say more than what that thing is ("User requested: blood type", "Considering their
   blood type": ``junk``, naming the topic), and a later line giving the name the credited
   line left out and nothing it said ("New company: Globex" after "Profession: ML
   engineer") is ``extra``, not a repeat, as is a first line stating a part of a fact that
   names what it covers once a later line states the whole, the ``fact`` (:mod:`._stating`);
5. ``repeat``: says again what an earlier, not junk or stale, line says (its start, cut; the
   same words or claim words, or reworded, :func:`._matching.repeat_of`: "Night shift" /
   "Night shifts");
6. ``noise``: matches a ``forbid`` fact, repeats a screenshot's details, or derives from
   transient turns: the user said its claim words (at least half) only in turns the scenario
   marks ``transient`` (:data:`TRANSIENT_SHARE`), or (tried after ``invented``, so only for a
   line said together somewhere) no lasting message holds half its claim words, as the
   protocol grounds an ``extra`` line in a message that is not transient, or (last, for a
   line that would be ``extra``) it is a remark about the moment
   (:func:`memsys.subject.is_passing`: today, this morning, a meal, a mood);
7. ``junk`` (states nothing, :func:`._reading.states_nothing`; or a role slot of topic
   words, "Job: Ambulance, Graz", :func:`._identity.topic_slot`): a fragment of at most
   :data:`FRAGMENT_WORDS` words and no number ("plumber", "Exam preparation"), or a topic
   label of a few content words without a single function word ("Kitchen lights repair"),
   made of the user's words, unless its first word is one the user used as a verb
   (:func:`._doing.said_as_verb`: "Check rota before night shift" states a habit); made up
   (rule 8's words test), it is ``invented``;
8. ``invented``: fewer than half of its claim words said by the user (or of one of its
   clauses: :func:`._support.unsaid_clause`), or a name or number they never used
   (:data:`._support.INVENTED_SHARE`), a role they never gave themselves (:mod:`._identity`),
   a liking or advice no message says (:mod:`._reading`), how often where no message says
   it ("Daily backups" for "every second Sunday"), or (not a listed fact) no one
   message holds half its claim words (:func:`._support.together_share`);
9. ``extra``: grounded in what the user said, not expected and not noise: a reader keeps it,
   unless it loops (a run of words said twice, :func:`._detect.loops`: ``junk``) or its
   meaning is near nothing the user said outside transient turns (cosine below
   :data:`._stating.GROUNDED_COSINE`: ``invented``, its words taken and not its sense).

A line is judged without the commentary after it (:func:`._reading.without_commentary`),
without a logged memory action's frame before the value it carries
(:func:`._reading.without_action_frame`),
without a question saved with a statement, and without a save stamp of a day of the
conversation ("[2026-07-13] ...", "... (added 13 July 2026)": :mod:`._stamps`). ``fact``
and ``extra`` lines are *kept*, the others struck; a kept line may be ``misfiled`` (outside
its spec's sections, or by its own words).
"""

from __future__ import annotations

import re
from dataclasses import replace

from evals.scenario import FactSpec, ForbidSpec
from evals.scorers._detect import (
    junk_lines,
    junk_reason,
    loops,
    model_name_in,
    screenshot_overlap,
)
from evals.scorers._doing import assistants_work, first_word, said_as_verb
from evals.scorers._identity import topic_slot
from evals.scorers._matching import (
    CHANGE_MARKER,
    REWORDED_COSINE,
    SHARED_COSINE,
    expected_facts,
    match_entries,
    name_alone,
    names_only,
    normalise,
    repeat_of,
    requests_held,
    topic_alone,
)
from evals.scorers._reading import (
    FRAGMENT_WORDS,
    READ_PAST,
    TOPIC,
    Said,
    said_by_user,
    someone_elses_news,
    states_nothing,
    without_action_frame,
    without_commentary,
)
from evals.scorers._sections import misfiled_where
from evals.scorers._stamps import without_stamp
from evals.scorers._stating import (
    UNMEANT,
    as_part,
    completes_part,
    facts_stated,
    invented_why,
    meaning_unsaid,
    names_left_out,
    role_missed,
    topic_only,
    unsaid_why,
)
from evals.scorers._support import (
    INVENTED_SHARE,
    claim_words,
    support,
    together_share,
    user_keys,
    values_in,
    word_key,
)
from evals.scorers._types import KEPT, LABELS, FileLabels, LineLabel, RunData, Target
from memsys.sections import MemoryEntry, parse_entries
from memsys.subject import is_ending, is_passing, only_ends

__all__ = [
    "FRAGMENT_WORDS",
    "KEPT",
    "LABELS",
    "MOMENT",
    "REWORDED_COSINE",
    "SHARED_COSINE",
    "TRANSIENT_SHARE",
    "FileLabels",
    "LineLabel",
    "expected_facts",
    "label_target",
    "labelled_lines",
]

MOMENT = "a remark about the moment"
"""How a ``noise`` line's evidence opens when the line is a remark about the moment."""
SLOT_OF_TOPICS = "a role slot filled with topic words, not a role the user gave themselves"
GARBLED = "garbled: a run of words said twice within the line"
"""A ``junk`` line's evidence when it would be kept but loops (:func:`._detect.loops`)."""

TRANSIENT_SHARE = 0.5
"""A line derives from transient turns when at least this share of its claim words was said
by the user, but less than this share in turns not marked transient."""


_SCREENSHOT = re.compile(
    r"\bscreen[\s-]?(?:shot|grab|capture)s?(?:\s+(?:shows?|showed|of))?\b", re.I
)
_SHOT = word_key("screenshot")


def _forbidden(entry: MemoryEntry, target: Target, run: RunData) -> ForbidSpec | None:
    """The forbidden fact the entry states, or None."""
    ending = is_ending(entry.text)
    for spec in target.expect.forbid:
        if ending and not is_ending(spec.fact):
            continue  # "No longer has a cat" says the opposite of "has a cat"
        if match_entries(
            spec, [entry], run.vectors, threshold=run.settings.fact_threshold, same_values=False
        ):
            return spec
    return None


def _noise(entry: MemoryEntry, target: Target, run: RunData, said: Said) -> str | None:
    forbidden = _forbidden(entry, target, run)
    if forbidden is not None:
        return f"forbidden ({forbidden.kind}): {forbidden.fact}"
    caption = screenshot_overlap(entry.text, run.screenshots)
    if caption:
        return f"screenshot details: {caption[:80]}"
    if run.screenshots and _SCREENSHOT.search(entry.text):
        # What it says it shows must be shown or said (a worked example's tray is not).
        shown = support(_SCREENSHOT.sub("", entry.text), said.every | user_keys(run.screenshots))
        if shown.share >= INVENTED_SHARE:
            return "about a screenshot"
    if said.transient:
        everywhere = support(entry.text, said.every)
        lasting = support(entry.text, said.lasting)
        if everywhere.share >= TRANSIENT_SHARE and lasting.share < TRANSIENT_SHARE:
            return "said only in transient turns: " + ", ".join(lasting.unsupported[:4])
    return None


def _stale(entry: MemoryEntry, target: Target, run: RunData) -> FactSpec | None:
    """The stale side of a contradiction the entry states, or None."""
    ends = only_ends(entry.text)
    for pair in target.expect.contradictions:
        if ends and not is_ending(pair.stale.fact):
            continue  # "HeatRight has closed down" ends the stale side: no claim of it
        if match_entries(
            pair.stale,
            [entry],
            run.vectors,
            pair.current,
            yield_keywords_to_rival=True,
            threshold=run.settings.fact_threshold,
        ):
            return pair.stale
    return None


def _reads_past(text: str, core: str) -> bool:
    """``core`` (``text`` less its commentary) is a line of its own to judge: shorter, with a
    word in it ("1." before a pasted prompt line has none) and not junk itself."""
    worded = any(w.isalpha() for w in claim_words(core))
    return core != text and worded and not junk_reason(core)


def _label(
    entry: MemoryEntry, target: Target, run: RunData, said: Said, done: list[LineLabel]
) -> LineLabel:
    reason = junk_reason(entry.text)
    unstamped = without_stamp(entry.text, run.dates)
    unframed = without_action_frame(unstamped)
    core = without_commentary(unframed)
    if reason and (reason not in READ_PAST or not _reads_past(entry.text, core)):
        return LineLabel(entry, "junk", reason)
    text = normalise(entry.text)
    if core != entry.text and not any(normalise(d.entry.text) == text for d in done):
        # Judged without them (texts_to_embed embeds the shortened text too).
        judged = _label(replace(entry, text=core), target, run, said, done)
        past = [
            what
            for what, gone in (
                ("save stamp", unstamped != entry.text),
                ("memory action's frame", unframed != unstamped),
                ("commentary after it", core != unframed),
            )
            if gone
        ]
        return replace(
            judged, entry=entry, evidence=f"{judged.evidence} ({' and '.join(past)} read past)"
        )
    made = assistants_work(entry.text, run.user_texts) if run.user_texts else None
    if made:  # "Created recipes for three people": what was done, not the standing wish
        return LineLabel(entry, "junk", made)
    name = model_name_in(entry.text, run.model_names)
    if name:
        return LineLabel(entry, "model_name", f"names {name!r}")
    stale = _stale(entry, target, run)
    if stale is not None:
        return LineLabel(entry, "stale", f"states the stale fact: {stale.fact}", stale.fact)
    facts = facts_stated(entry, target, run)
    # A fact whose subject the line only names is not stated by it when the line states
    # another ("Biscuit's vet is the Greenway clinic" names the puppy, says the vet) or is
    # about what is not to be kept (then it is the forbidden thing, not the fact).
    said_more = [(spec, how) for spec, how in facts if not names_only(entry.text, spec)]
    if said_more or (facts and _forbidden(entry, target, run) is not None):
        facts = said_more
    stateless = states_nothing(entry.text)
    if stateless == TOPIC and said_as_verb(first_word(entry.text), said.lasting_texts):
        stateless = None  # "Check rota before night shift": a habit in the imperative
    slot = topic_slot(entry.text, said.lasting_texts) if stateless is None else None
    if slot is not None and states_nothing(slot):
        stateless = SLOT_OF_TOPICS  # "Job: Ambulance, Graz" names things
        facts = []
    if (stateless or "").startswith("fragment"):  # "Leeds" for "lives in Leeds" says nothing
        topic = not CHANGE_MARKER.search(entry.text)  # "Lisbon -> Porto" records a move
        facts = [
            f
            for f in facts
            if not name_alone(entry.text, f[0])
            and not (topic and topic_alone(f[0]))
            and not role_missed(entry.text, f[0])
        ]
    elif stateless == TOPIC and "," in entry.text:
        facts = []  # "ML engineering, Globex, Porto" names things, it says nothing of them
    if run.user_texts:
        # Naming a fact and making up the rest ("Porto is Portugal's capital") credits none;
        # the words of every fact the line states are vouched for (a line of two facts).
        vouched = " ".join(spec.fact for spec, _ in facts)
        facts = [(spec, how) for spec, how in facts if not invented_why(entry, said, vouched)]
    credited = {fact: d for d in done for fact in d.facts}
    new = [(spec, how) for spec, how in facts if spec.fact not in credited]
    if new:
        spec, how = new[0]
        more = tuple(other.fact for other, _ in new[1:])
        if more:
            how = f"{how}; also states: " + "; ".join(more)
        return LineLabel(
            entry,
            "fact",
            how,
            spec.fact,
            misfiled=misfiled_where(entry.text, entry.section, spec.section),
            also=more,
        )
    if facts:
        spec = facts[0][0]
        first = credited[spec.fact]
        stating = [d.entry.text for d in done if spec.fact in (d.fact, *d.also)]
        if completes_part(entry.text, spec, stating):  # the whole after a part: the fact
            where = misfiled_where(entry.text, entry.section, spec.section)
            return LineLabel(entry, "fact", f"{facts[0][1]}; the whole", spec.fact, misfiled=where)
        if names_left_out(entry.text, spec.fact, stating):
            # The protocol's "a later line that adds only the employer": kept, as extra.
            where = misfiled_where(entry.text, entry.section, spec.section)
            left_out = f"states what line {first.entry.line_start} left out of {spec.fact!r}"
            return LineLabel(entry, "extra", left_out, spec.fact, misfiled=where)
        if not values_in(entry.text) - values_in(". ".join(stating)):
            return LineLabel(
                entry,
                "repeat",
                f"states {spec.fact!r} again",
                spec.fact,
                repeat_of=first.entry.line_start,
            )
        # A number, day, month or how often the stating lines lack ("The footbridge opens in
        # October" after "... is the main project"): the protocol's fuller line, judged alone.
    named = topic_only(entry.text, target)
    if named is not None:
        return LineLabel(entry, "junk", f"names what {named!r} is about, not what is true of it")
    repeat = repeat_of(entry, done, run)
    if repeat is not None:
        return LineLabel(entry, "repeat", repeat[1], repeat_of=repeat[0].entry.line_start)
    noise = _noise(entry, target, run, said)
    if noise:
        return LineLabel(entry, "noise", noise)
    if stateless:
        unsaid = unsaid_why(entry, said) if run.user_texts else None
        if unsaid:  # a made-up topic list: the protocol's invented, not a fragment of theirs
            return LineLabel(entry, "invented", f"states nothing the user said: {unsaid}")
        return LineLabel(entry, "junk", stateless)
    if _SCREENSHOT.search(entry.text) and not run.screenshots and _SHOT not in said.every:
        return LineLabel(entry, "invented", "speaks of a screenshot; none was shared")
    if run.user_texts:
        invented = invented_why(entry, said)
        if invented:
            return LineLabel(entry, "invented", invented)
        if said.transient and together_share(entry.text, said.each_lasting) < INVENTED_SHARE:
            return LineLabel(entry, "noise", "said together only in transient turns")  # no extra
        if together_share(entry.text, said.each_settled) < INVENTED_SHARE:
            return LineLabel(entry, "noise", "said together only in remarks of the moment")
    if is_passing(entry.text):
        return LineLabel(entry, "noise", f"{MOMENT} (the seeds' DO NOT save)")
    if someone_elses_news(entry.text):
        return LineLabel(entry, "junk", "someone else's news: states nothing about the user")
    if loops(entry.text):
        return LineLabel(entry, "junk", GARBLED)
    unmeant = meaning_unsaid(entry, run, said)
    if unmeant is not None:
        return LineLabel(entry, "invented", f"{UNMEANT}: nearest at cosine {unmeant:.2f}")
    return LineLabel(
        entry, "extra", "grounded, not expected", misfiled=misfiled_where(entry.text, entry.section)
    )


_LABELLED: dict[tuple[int, int], tuple[Target, RunData, FileLabels]] = {}
"""The last labellings, by object identity: every file scorer labels the final file, and
both arguments are frozen, so the second ask returns the first answer (issue 29)."""


def labelled_lines(memory_md: str) -> list[int]:
    """The line numbers :func:`label_target` labels: each entry's first line and each empty
    bullet (what a reader labels too, ``docs/reader-protocol.md``)."""
    starts = {entry.line_start for entry in parse_entries(memory_md)}
    return sorted(starts | {number for number, _ in junk_lines(memory_md)})


def label_target(target: Target, run: RunData) -> FileLabels:
    """Label every line of ``target`` (a pure function of the target and the run)."""
    key = (id(target), id(run))
    hit = _LABELLED.get(key)
    if hit is not None and hit[0] is target and hit[1] is run:
        return hit[2]
    labels = _label_target(target, run)
    if len(_LABELLED) >= 8:
        _LABELLED.pop(next(iter(_LABELLED)))
    _LABELLED[key] = (target, run, labels)
    return labels


def _label_target(target: Target, run: RunData) -> FileLabels:
    said = said_by_user(run)
    done: list[LineLabel] = []
    for entry in target.entries:
        label = _label(entry, target, run, said, done)
        if label.label == "fact":  # a whole may take a part's credit (as_part)
            done = [as_part(line, label) for line in done]
        done.append(label)
    for number, line in junk_lines(target.memory_md):
        empty = MemoryEntry("", None, number, number)
        done.append(LineLabel(empty, "junk", f"empty bullet: {line!r}"))
    done.sort(key=lambda line: line.entry.line_start)
    expected = tuple(spec.fact for spec, _ in expected_facts(target))
    return FileLabels(tuple(done), expected, requests_held(run, target, done))
