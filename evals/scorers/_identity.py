"""Who the user is: a line that gives the user a profession must have it from the user.

Small models fill a ``[profession: ...]`` slot whatever the user said: "software engineer"
for a structural engineer, "pharmacist" after the user asked what to tell a pharmacist,
"nurse" after "I taught the new nurse". A reader strikes such a line as invented even when
most of its words were said somewhere, so the share rule
(:data:`~evals.scorers._support.INVENTED_SHARE`) lets it through. The rule here is narrower and
stricter: a line that *assigns a role* (``Profession: X``, ``[job: X]``, ``works as X``)
is invented unless every claim word of X appears in one of the user's own self-descriptions
("I'm a ...", "I work as ...", "my job is ...").

A model's name is not the user's either: :func:`model_name_in` finds a model or AI-product
name (Claude, GPT-4o, Qwen, OneClaw, or a name the run's model-switch notices used). Names
that are also ordinary words (Gemini the star sign, a llama, the mistral wind, an O-1 visa, a
haiku, a sonnet, an opus) count only as a model: beside "model", "LLM", "AI", "Claude" or
"GPT", or followed by a version, size or tier ("Gemini 2.5 Pro", "Llama 3", "Mistral 7B").

A name is the same kind of claim: ``[name: Biscuit]`` fills the template's name slot with
the puppy's name. It is invented unless the user gave the name as theirs ("my name is ...",
"call me ...", "I'm ..."); a listed fact does not vouch for it, since the fact names the
puppy and the line names the user.

Nor are memsys's own prompts: a line of them pasted as an entry (:func:`is_prompt_text`,
:func:`echoes_prompt`) is "the template's or the prompt's own words" (rule 1, ``junk``). A
line of a prompt's worked example (a made-up user's "User requested: allergic to wasps")
copied as an entry, when the user never said all its words, is what the user never said
(:func:`copied_example`, rule 7, ``invented``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

from evals.scorers._support import claim_words, support
from memsys.prompts import compaction_prompt, daily_summary_prompt
from memsys.subject import is_passing
from memsys.tools.descriptions import available_variants, load_variant

__all__ = [
    "AI_PRODUCT_WORDS",
    "ECHO_WORDS",
    "claimed_name",
    "claimed_role",
    "copied_example",
    "echoes_prompt",
    "is_prompt_text",
    "model_name_in",
    "role_nouns",
    "self_description_keys",
    "topic_slot",
    "unclaimed_name",
    "unclaimed_role",
]

_ROLE = re.compile(
    r"\b(?:(?:profession|occupation|job(?:\s+title)?|role|career|professional)\s*:"
    r"|(?:works?|working|employed)\s+as|(?:profession|occupation|job|career)\s+is"
    r"|^\W*(?:i'?m|i\s+am|(?:the\s+)?user\s+is)(?=\s+an?\s+[\w\s-]{0,30}?(?:er|or|ist|ian|ant|ent)\b))"
    r"\s*(?:an?\s+)?(?P<role>[^\W\d_][^,;:\[\]().]{0,60})",
    re.I,
)
_ROLE_END = re.compile(
    r"\s+(?:at|for|in|on|with|since|and|but|who|which)\s+.*$|\s*—.*$|\s+[-–]\s+.*$", re.I
)
"""Where the role ends: a preposition or clause word, or a dash ("illustrator — said in May")."""
_SELF = re.compile(
    r"\b(?:i'?m|i\s+am|i\s+work(?:ed)?\s+as|i'?ve\s+been(?:\s+working\s+as)?|i\s+became"
    r"|i\s+started\s+as|i\s+was\s+hired\s+as|my\s+(?:new\s+)?(?:job|profession|occupation"
    r"|career|role)\s+is|(?:new\s+)?job\s+as|working\s+as)"
    r"\s+(?:now\s+|also\s+|still\s+)?(?:an?\s+|the\s+)?(?P<desc>[^.,;!?]{1,60})",
    re.I,
)
_NAME = re.compile(
    r"^\W*(?:the\s+)?(?:user'?s?\s+)?(?:full\s+)?name\s*:\s*(?P<name>[^,;:\[\]()]{1,60})"
    r"|\b(?:the\s+)?user'?s\s+name\s+is\s+(?P<named>[^,;:.\[\]()]{1,60})",
    re.I,
)
"""A line that names the user: a leading ``name:`` slot ("[name: Biscuit]", "Name: Priya";
not "App name: PillPal") or "the user's name is X"."""
_OWN_NAME = re.compile(
    r"\b(?:my\s+name\s+is|call\s+me|i'?m\s+called)\s+(?P<name>[^.,;!?]{1,40})", re.I
)
_DESC_WORDS = 6
"""Words of a self-description kept: "I'm a structural engineer at a bridge firm"."""


def claimed_role(text: str) -> str | None:
    """The role a memory line gives the user ("ML engineer"), or None."""
    found = _ROLE.search(text)
    if found is None:
        return None
    role = _ROLE_END.sub("", found["role"]).strip()
    return role or None


_ROLE_SLOT = re.compile(
    r"^\W*(?:profession|occupation|job(?:\s+title)?|role|career|professional)\s*:\s*"
    r"(?P<value>[^:\[\]()]+?)\W*$",
    re.I,
)
_ROLE_NOUN = re.compile(
    r"\b(?:i'?m|i\s+am|i\s+work(?:ed)?\s+as|working\s+as|job\s+as|i\s+became)\s+(?:an?)\s+"
    r"(?P<role>(?:[\w-]+\s+){0,3}?[\w-]+?)(?=\s+(?:at|in|for|with|who|and|from|on)\b|[.,;!?]|$)",
    re.I,
)


@cache
def role_nouns(user_texts: tuple[str, ...]) -> frozenset[str]:
    """What the user called themselves, the noun ("I'm a backend engineer at ...":
    "engineer"), by :func:`_key`."""
    return frozenset(
        _key(found["role"].split()[-1])
        for text in user_texts
        for found in _ROLE_NOUN.finditer(text)
    )


def topic_slot(text: str, user_texts: tuple[str, ...]) -> str | None:
    """The list a role slot holds when its first item is no role the user gave themselves
    ("Job: Ambulance, Graz", not "Job: Paramedic, Graz"), or None."""
    found = _ROLE_SLOT.match(text)
    if found is None:
        return None
    items = [i.strip() for i in found["value"].split(",")]
    if len(items) < 2 or not items[0].split():
        return None
    return None if _key(items[0].split()[-1]) in role_nouns(user_texts) else found["value"]


def claimed_name(text: str) -> str | None:
    """The name a memory line gives the user ("Biscuit" of "[name: Biscuit]"), or None."""
    found = _NAME.search(text)
    if found is None:
        return None
    return (found["name"] or found["named"] or "").strip() or None


def self_description_keys(user_texts: Iterable[str]) -> frozenset[str]:
    """Word keys of what the user said they are ("I'm an ML engineer at Globex")."""
    keys: set[str] = set()
    for text in user_texts:
        for found in _SELF.finditer(text):
            words = found["desc"].split()[:_DESC_WORDS]
            keys.update(_key(w) for w in words)
        for found in _OWN_NAME.finditer(text):
            keys.update(_key(w) for w in found["name"].split()[:_DESC_WORDS])
        for line in text.splitlines():  # a hand edit's "Works as a nurse" is the user's word
            for given in (claimed_role(line), claimed_name(line)):
                keys.update(_key(w) for w in (given or "").split())
    return frozenset(keys)


def _key(word: str) -> str:
    # Whole words less a plural or verb ending, not word_key's 5-letter stems: "garden" must
    # not vouch for "gardener"; "training" does for "train", "nurses" for "nurse".
    word = word.lower().strip("'\"").removesuffix("'s")
    if word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    for ending in ("ing", "ed"):
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            return word[: -len(ending)]
    return word


def unclaimed_role(text: str, self_keys: frozenset[str], vouched: str = "") -> str | None:
    """The role the line gives the user that the user never gave themselves (nor
    ``vouched``, an expected fact's text, gives them), or None."""
    role = claimed_role(text)
    if role is None:
        return None
    words = {_key(w) for w in claim_words(role)}
    if vouched:
        self_keys = self_keys | {_key(w) for w in claim_words(vouched)}
    if words and not words <= self_keys:
        return role
    return None


def unclaimed_name(text: str, self_keys: frozenset[str]) -> str | None:
    """The name the line gives the user that the user never gave as theirs ("[name: Biscuit]"
    when Biscuit is the puppy), or None. Unlike a role, a listed fact does not vouch for it:
    the fact names the puppy, the line names the user."""
    name = claimed_name(text)
    if name is None:
        return None
    words = {_key(w) for w in claim_words(name)}
    return name if words and not words <= self_keys else None


AI_PRODUCT_WORDS = re.compile(
    r"\b(claude|chatgpt|gpt-?\d[\w.-]*|o[134]-mini|mixtral|qwen[\w.-]*|deepseek|oneclaw)\b", re.I
)
"""Names that are models or AI products in any sentence. (Not "Gemma", a first name, nor
tools the user may really use, such as Copilot: a run's own switch notices add the names it
used.)"""

_AMBIGUOUS_FAMILY = re.compile(r"\b(gemini|llama|mistral|o[134])\b", re.I)
"""Model families whose names are also words: models with :data:`_MODEL_CONTEXT` or a
:data:`_MODEL_SUFFIX`."""
_TIER = re.compile(r"\b(haiku|sonnet|opus)\b", re.I)
"""Claude's tiers, also poetry and music words: models only with :data:`_MODEL_CONTEXT`
("Sonnet 18" and "opus 21" are a poem and a catalogue number)."""
_MODEL_CONTEXT = re.compile(r"\b(?:models?|llms?|ai|claude|gpt-?\d[\w.-]*|chatbot)\b", re.I)
_MODEL_SUFFIX = re.compile(
    r"^[\s-]*(?:\d[\w.]*|pro|flash|ultra|nano|mini|instruct|turbo|large|small)\b", re.I
)
"""What follows a model family's name and not the word: a version, a size or a tier."""


def model_name_in(text: str, run_names: Iterable[str] = ()) -> str | None:
    """The model or AI-product name ``text`` mentions, or None."""
    lowered = text.lower()
    for name in run_names:
        if name and re.search(rf"\b{re.escape(name.lower())}\b", lowered):
            return name
    found = AI_PRODUCT_WORDS.search(text)
    if found:
        return found.group(0)
    in_context = _MODEL_CONTEXT.search(text) is not None
    for family in _AMBIGUOUS_FAMILY.finditer(text):
        if in_context or _MODEL_SUFFIX.match(text[family.end() :]):
            return family.group(0)
    tier = _TIER.search(text)
    if tier and in_context:
        return tier.group(0)
    return None


_INSTRUCTION_WORDS = 4
"""A line of memsys's own instructions is recognised from this many words on."""


ECHO_WORDS = 5
"""A sentence holding a run of this many words of one of the tool descriptions' lines echoes
the prompt ("This is a new stable user preference confirmed across 2+ conversations")."""

_QUOTED = re.compile(r"\"[^\"]*\"")
"""A quoted example inside an instruction ('for example "User requested: Always answer in
British English"'): a fact a real user may share, so never prompt text."""


@cache
def _shipped_texts() -> tuple[tuple[str, str], ...]:
    """``(slot, text)`` of every shipped variant (``save_memory``, ``prompts.daily_summary``...),
    each variant file read once for both uses below."""
    return tuple(
        item for name in available_variants() for item in load_variant(name).texts().items()
    )


@cache
def _instruction_lines() -> frozenset[str]:
    """The compaction and daily-summary prompts' own lines (their instructions and the
    standard sections' descriptions, which hold no fact about a user), and every line of the
    shipped tool descriptions ("Important personal context: profession, domain expertise,
    key ongoing projects", their quoted examples taken out), as :func:`_line_key`. Not the variants'
    own background prompts: a worked example's lines are facts about a made-up user."""
    tool_texts = (text for slot, text in _shipped_texts() if not slot.startswith("prompts."))
    text = "\n".join([compaction_prompt(""), daily_summary_prompt([])])
    lines = map(
        _line_key, [*text.splitlines(), *_QUOTED.sub(" ", "\n".join(tool_texts)).splitlines()]
    )
    return frozenset(k for k in lines if len(k.split()) >= _INSTRUCTION_WORDS)


@cache
def _headings() -> frozenset[str]:
    """The headings of the shipped tool descriptions' guardrail texts ("SAVE when:", "DO NOT
    save:"): pasted alone they say nothing. Only headings, not every line: a worked example's
    lines are facts about a made-up user, which a real user may share."""
    return frozenset(
        _line_key(line)
        for _, text in _shipped_texts()
        for line in text.splitlines()
        if line.strip().endswith(":")
    )


def _line_key(text: str) -> str:
    return re.sub(r"^[\s\-*\d.)#]+", "", text).strip().lower()


def is_prompt_text(text: str) -> bool:
    """The entry is one of memsys's prompt lines, or a run of one ("## Projects (ongoing
    projects, tech stack details)", "1. MERGE duplicate entries -- ..."): the template's or
    the prompt's own words, or a heading of a tool description's guardrails ("SAVE when:")."""
    key = _line_key(text)
    if key in _headings():
        return True
    if len(key.split()) < _INSTRUCTION_WORDS:
        return False
    return any(key in line or line in key for line in _instruction_lines())


_RUN_WORD = re.compile(r"[\w+]+")


def _runs(text: str) -> set[tuple[str, ...]]:
    words = _RUN_WORD.findall(text.lower())
    return {tuple(words[i : i + ECHO_WORDS]) for i in range(len(words) - ECHO_WORDS + 1)}


@cache
def _instruction_runs() -> frozenset[tuple[str, ...]]:
    return frozenset(run for line in _instruction_lines() for run in _runs(line))


def echoes_prompt(sentence: str) -> bool:
    """``sentence`` holds a run of :data:`ECHO_WORDS` words of memsys's own instructions: the
    model pasting or paraphrasing its prompt after a line (commentary a reader reads past)."""
    return not _runs(sentence).isdisjoint(_instruction_runs())


_CATEGORY_TAG = re.compile(r"^\[[^\]]*\]\s*")
"""A worked example's category tag ("[profile] "), not part of what its line says."""


def _example_key(text: str) -> str:
    """:func:`_line_key` (no bullet, lower case) without the category tag or a final stop."""
    return _CATEGORY_TAG.sub("", _line_key(text)).rstrip(".")


@cache
def _example_lines() -> frozenset[str]:
    """The bullets of the shipped prompts' worked examples (the daily-summary prompts of the
    ``summary-*`` variants: "- [interests] Grows beans on an allotment every summer"), as
    :func:`_example_key`."""
    return frozenset(
        _example_key(line)
        for slot, text in _shipped_texts()
        if slot.startswith("prompts.")
        for line in text.splitlines()
        if line.lstrip().startswith("- ")
    ) - {""}


def copied_example(text: str, said: frozenset[str]) -> str | None:
    """Why the entry is a worked example's line copied from a prompt (``said``: the keys of
    everything the user said), or None: the line is one of the example's bullets and the
    user never said all of its claim words. A word or two that the user happened to say
    ("allergic" meeting a German "allergisch" by its key) does not make the example theirs.
    The example's remarks of the moment ("The user switched to another model today") are left
    to the passing-remark rule: a user may have made that remark."""
    if _example_key(text) not in _example_lines() or is_passing(text):
        return None
    unsaid = support(text, said).unsupported
    if not unsaid:
        return None
    return f"copied from a prompt's worked example (never said: {', '.join(unsaid[:4])})"
