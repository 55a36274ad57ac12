"""Detectors of what a reader of MEMORY.md calls noise, whatever the scenario lists.

Pure functions over entry texts (and the raw file, for bullets that parse to nothing):

- :func:`junk_reason`: an entry that states no fact about the user, by the rules of
  :data:`JUNK_RULES`: ``None``/empty/placeholder entries (``[none]``, "No interests listed",
  "Notes: None", a section's name, a template slot like ``<bullet>``), the assistant's own
  chatter ("As an AI ...", "I'll remember that", "Sure! Here is ..."), a tool call or tool
  response written out as text (``{"name": "weather", "arguments": ...}``, ``old_text: ...``,
  ``<tool_response>``, ``search_memory``), a line of memsys's own prompts ("## Projects
  (ongoing projects, tech stack details)"), a raw data literal (``{"mood": "good"}``), a
  question or a request for help ("What should I pack?", "The user is looking for tips for
  their commute"), a log of the conversation ("User asked about penicillin", "The
  conversation segment mentions ...") or of an edit to the memory ("The user changed the
  memory entry about ...") and the name of a task the assistant was given
  (``plan_first_week``);
- :func:`loops`: a line saying a run of words twice (garbled);
- :func:`junk_lines`: bullets that parse to no entry at all (``-``, ``- (empty)``);
- :func:`model_name_in` (from :mod:`._identity`): a model or AI-product name;
- :func:`screenshot_overlap`: an entry made of a screenshot's details (most of its content
  words appear in one caption and its message, at least two of them).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from evals.scorers._identity import is_prompt_text, model_name_in

__all__ = [
    "CHATTER_PATTERNS",
    "JUNK_RULES",
    "PLACEHOLDER_TEXTS",
    "content_words",
    "junk_lines",
    "junk_reason",
    "loops",
    "model_name_in",
    "screenshot_overlap",
]

PLACEHOLDER_TEXTS = frozenset(
    {
        "none",
        "null",
        "nil",
        "n/a",
        "na",
        "tbd",
        "todo",
        "empty",
        "nothing",
        "unknown",
        "placeholder",
        "no information",
        "no info",
        "not specified",
        "...",
        "-",
        "…",
    }
)
"""Entry texts (lower case, stripped of brackets, quotes, ``.:*`` and spaces) that carry no
information."""

_PLACEHOLDER_PHRASE = re.compile(
    r"^(?:there (?:are|is) )?(?:no|none|nothing)\b(?:\s+[\w-]+){0,3}?"
    r"(?:\s+(?:is|are|was|were|has been|have been))?\s+"
    r"(?:mentioned|listed|specified|provided|given|recorded|noted|shared|identified|yet|so far)$"
    r"|^(?:no|none|nothing)\s+(?:specific\s+|particular\s+|other\s+)?(?:user profile|profile|"
    r"preferences|interests|hobbies|workflow|projects|notes|details|info|information)$"
)
"""A section filled with a sentence that says it is empty: "No interests listed", "no specific
projects mentioned", "There are no specific interests mentioned.", "no notes yet" (what a
real model writes under an empty header), or that names the section's kind as absent: "No
preferences", "no specific interests"."""

_EMPTY_SECTION = re.compile(
    r"^(?:we|i|the user|user)\s+(?:don't|do not|doesn't|does not|has no|have no)\s+(?:have\s+)?"
    r"(?:any\s+)?(?:specific\s+|particular\s+|other\s+)?(?:user profile|profile|preferences|"
    r"interests|hobbies|workflow(?: patterns)?|projects|notes|tasks|personal context|details|"
    r"information)(?:\s+(?:or|and)\s+[\w-]+(?:\s+[\w-]+)?)?(?:\s+yet)?$"
)
"""The same said of the user: "We don't have any specific interests or hobbies", "The user has
no personal context yet" (not "I don't have any allergies": that is a fact)."""
_FIELD = re.compile(r"^([\w][\w\s]{0,30}):\s*(.*)$")
"""One ``label: value`` field of a template line ("profession: None")."""

_CONTAINER_LABEL = re.compile(
    r"^(?:(?:key|current|other|my|user)\s+)?(?:user profile|profile|preferences|interests|"
    r"workflow|projects?|notes?|tasks?|details|info|information|items?|entries|facts?)\s*:\s*"
)
"""A label that names a container, not an attribute ("Notes: None", "Key projects: Project X";
not "Allergies: none", which says something)."""

_SECTION_WORDS = frozenset(
    {"user profile", "profile", "preferences", "interests", "workflow", "projects", "notes"}
)
"""Section names: an entry made only of them ("Workflow", "workflow, projects") says nothing."""

_CODE_FENCE = re.compile(r"^\s*(?:```|~~~)[\w-]*\s*$")
"""A Markdown code fence (```` ```markdown ````) the model wrapped its answer in."""
_TEMPLATE_SLOT = re.compile(r"^\s*(?:<[\w -]{1,30}>|\{\{?[\w -]{1,30}\}?\})\s*$")
"""A slot of a template the model echoed instead of filling: ``<bullet>``, ``{fact}``."""

_PLACEHOLDER_NAME = re.compile(
    r"^(?:project|company|client|task|item|person|product|app|tool|name)\s+[a-z]$"
    r"|^(?:foo|bar|baz|example|sample)$"
)
"""Names that stand for any name: "Project X", "Company Y", "Project A", "example"."""

_SECTION_QUALIFIER = re.compile(r"^(?:(?:key|ongoing|current|upcoming|other|recent|new)\s+)+")
"""Words the template puts before a section's kind ("key ongoing projects"): "ongoing
projects, upcoming projects" names the kind of thing, not one."""

_TOOL_CALL_TEXT = re.compile(
    r'^\W*\{.*"(?:name|function|tool)"\s*:.*"(?:arguments|parameters)"\s*:', re.S
)
"""A tool call the model wrote out as JSON text instead of calling the tool."""

_TOOL_TEXT = re.compile(
    r"</?(?:tool_response|tool_call|tools?|function_call|function)\b[^>]*>"
    r"|\b(?:old|new)_text\b|\b(?:old|new) text\b.*\bmemory\b"
    r"|\bcurrent memory\.md content\b|\bavoid saving duplicates\b"
    r"|\b(?:save|update|read|search|delete)_memory\b"
    r"|^\W*(?:(?:the )?user (?:\w+ )?asked to remember to |to )?"
    r"(?:save|update|read|search) (?:the )?memory\W*$",
    re.I,
)
"""The memory tools' own words in an entry: their tags, their names (``search_memory``; "to
save memory", "Save memory." alone: the tool asked for, not a fact), ``update_memory``'s
``old_text`` and ``new_text`` arguments (spelt with a space, only beside "memory": "proofread
new text" is an ordinary phrase), or the system prompt's wording about MEMORY.md."""

_DATA_LITERAL = re.compile(r'^\s*[\[{]\s*".*["\d\]}]\s*[\]}]\s*$', re.S)
"""An entry that is a JSON object, array or set of quoted strings: data, not a sentence."""

_QUESTION = re.compile(
    # not a standing rule asked politely: "Could you stick to grams and litres?"
    r"^(?!\W*(?:could|can|would|will)\s+you\s+(?:please\s+)?(?:always|never|only|stick\s+to|"
    r"keep\s+to|stop\b|from\s+now\s+on))(?s:.)*\?\s*[)\]]*\s*$"
    r"|^\W*(?:how|what|which|when|where|why|who)(?:'s\b|\s+(?:is|are|was|were|do|does|did|can|"
    r"could|should|would|will|many|much|far|long|often)\b)(?!.*:)"
    # a request for help of the moment, saved as a line ("User requested: tips for commute")
    r"|^\W*(?:tips|advice|help|ideas|suggestions|recommend(?:ed|ations?)?)\s+"
    r"(?:for|on|with|to|about|a|an|the)\b"
    # the same told of the user: "The user is looking for tips for their commute"
    r"|^\W*(?:the\s+)?user\s+(?:is\s+|was\s+)?(?:looking|asking|asked|searching)\s+for\s+"
    r"(?:some\s+|more\s+)?(?:tips|advice|help|ideas|suggestions|recommendations)\b"
    # ideas asked for by their topic: "Fish recipe ideas under 30 minutes"
    r"|^\W*(?!(?:the\s+)?user\b|(?:prefers?|likes?|loves?|wants?|needs?|enjoys?|avoids?|"
    r"hates?|always|never|only|no)\b)(?:[a-z][\w-]*\s+){1,3}"
    r"(?:ideas|tips|suggestions|recommendations)\b(?:\s+(?:for|under|with|on|about|to|in)\b.*)?"
    r"[\s.!]*$"
    # a task given to the assistant: "Plan a balcony garden with cherry tomatoes"
    # (not a standing one: "Write a report every Friday")
    r"|^(?!.*\b(?:every|each|daily|weekly|monthly|always|never|whenever|usually)\b)"
    r"\W*(?:plan|suggest|draft|write|create|find|help|generate|recommend|calculate|convert|"
    r"compare|summari[sz]e|explain|search|list|send|book|schedule|give|outline|brainstorm)"
    r"\s+(?:a|an|the|some|me|my|her|his|their|our|us)\b",
    re.I,
)
"""An entry that ends in a question mark (not a standing rule asked as one: "Could you
stick to grams and litres?"), opens as a question ("how far is a half marathon",
"What is VACUUM FULL") or asks for help ("tips for commute", "Help with campaign brief",
"Fish recipe ideas under 30 minutes", "Plan a balcony garden", a task verb before its
object) asks; it does not state, nor does "The user is looking for tips for their commute".
(Not a label: "What is on the shopping list: milk"; not a liking: "Prefers recipe ideas
with fish"; not a standing rule: "Always give the metric units".)"""

_TASK_NAME = re.compile(
    r"^\W*(?:plan|suggest|draft|write|create|make|find|get|check|help|generate|recommend|"
    r"calculate|convert|compare|summari[sz]e|explain|search|list|set|send|book|schedule)"
    r"(?:_[a-z0-9]+)+\W*$",
    re.I,
)
"""An identifier naming a task the assistant was given (``plan_first_week``,
``suggest_fish_recipe``): a verb first, words joined by underscores, nothing else. A setting
written the same way (``dark_mode``, ``metric_units``) names no verb and stays."""

_CONVERSATION_LOG = re.compile(
    r"^(?:the )?user (?:asked|inquired|enquired|wondered|wanted to know)\s+"
    r"(?:about|whether|if|how|what|which|when|where|why|a question)\b"
    r"|^(?:the |this )?(?:conversation|chat|discussion|session)(?: segment)?\s+"
    r"(?:discusses|discussed|mentions|mentioned|covers|covered|includes|included|focuses|"
    r"focused|is about|was about)\b"
    r"|^.*\b(?:is|was) using (?:the|this|an?) (?:ai )?assistant\b"
    # what the assistant did, or the user's courtesies: "Helped the user outline the report"
    r"|^(?:the\s+)?assistant\s+(?:\w+ed|gave|made|found|wrote|said|told|took)\b"
    r"|^(?:helped|assisted|explained|answered|found results|questioned|discussed)\b"
    r"|^(?:the\s+user|they)\s+(?:thanked|wished|wishes|greeted)\b"
    r"|(?:^|\[)\s*(?:assistant|user)\s*\]?\s*:\s.*\bassistant\s*\]?\s*:"
    # the memory's own edits logged: "Corrected name in profile", "X added to notes"
    r"|^.*\b(?:added|saved|stored|moved|recorded|noted|updated|corrected|removed|deleted)\s+"
    r"(?:\w+\s+){0,2}?(?:to|in|into|from|under)\s+(?:the\s+|their\s+)?(?:user'?s?\s+)?"
    r"(?:profile|notes|preferences|projects|interests|workflow|memory|memories)\s*\W*$"
    r"|^(?:the\s+)?(?:user'?s?\s+)?(?:profile|memory|notes|preferences)\s+(?:was\s+|has been\s+)?"
    r"(?:updated|changed|corrected|cleared)\b"
    # a complaint about the memory with nothing of what is right: "You saved it wrong."
    r"|^\W*(?:[\w']+\s+){0,2}?(?:saved?|saves|saving|got|gotten|stored|wrote|written|noted)\s+"
    r"(?:it|that|this)\s+(?:all\s+)?wrong\W*$"
    # an edit of the memory told as news: "The user changed the memory entry about tennis ..."
    r"|^.*\bmemory\s+(?:entry|entries|file|item|items|record|records)\b",
    re.I,
)
"""A log of the conversation, not what is true: what was asked ("User asked about
penicillin"; not "asked to ...", which is a request to keep), what the assistant did ("The
assistant provided the answer", "Helped the user outline the report"; not "Suggested ...",
which a reader may read as the user's wish), the user's courtesies ("The user wishes me
luck"), what a segment of it covered
("The conversation segment mentions the user's preferences"), what was done to the memory
("Corrected name in profile", "Profile updated with new recipe information") or that it was
wrong without what is right ("She saves it wrong."), that the user
is using the assistant, or the turns themselves pasted ("user: ... [assistant]: ...")."""


_LOGGED: tuple[re.Pattern[str], ...] = (
    # a request to keep something ("The user has requested to remember the rotation schedule")
    re.compile(
        r"^\W*(?:the\s+)?user\s+(?:has\s+|had\s+)?(?:\w+ly\s+)?(?:asked|wanted|requested)\s+"
        r"(?:me\s+|the assistant\s+)?to\s+(?:remember|note)\s+"
        r"(?:the|their|his|her|its|a|an)\s+(?P<what>[^\d]+)$",
        re.I,
    ),
    # what was kept ("remembered Biscuit's vet clinic", "The user saved the shift pattern",
    # "The user remembers their gym schedule"; not "Saves their receipts": a habit)
    re.compile(
        r"^\W*(?i:(?:the\s+)?user\s+)?(?i:remembered|remembers|saved|noted|stored)\s+"
        r"(?:(?:the|their|his|her|its|my|your)\s+|[A-Z][\w-]*['’]s\s+)(?P<what>[^\d]+?)\W*$"
    ),
    # that something was decided ("Decision made on framework for billing service")
    re.compile(
        r"^\W*(?:a\s+)?decision\s+(?:was\s+)?(?:made|taken|reached)\s+(?:on|about|regarding)\s+"
        r"(?:(?:the|a|an|their|his|her|its|my)\s+)?(?P<what>[^\d]+?)\W*$",
        re.I,
    ),
    # that something changed ("The user changed the standup time for next week")
    re.compile(
        r"^\W*(?:(?:the\s+)?user\s+|i\s+)?(?:has\s+|have\s+)?(?:changed|updated|modified|adjusted)"
        r"\s+(?:the|their|his|her|its|my)\s+(?P<what>(?:(?!\b(?:to|from|into|with|as)\b)[^\d])+?)\W*$",
        re.I,
    ),
)
"""A request to keep something, what was kept, what was decided or that something changed,
logged without the value: no number and, after an owner's name ("Biscuit's"), no name.
"Remembered Milo, my cat", "Remembered the venue is Aston Hall" and "Changed the default
model to Claude Haiku" name theirs."""


def _logged_request(text: str) -> bool:
    found = next((m for pattern in _LOGGED if (m := pattern.match(text))), None)
    return found is not None and not any(w[:1].isupper() for w in found["what"].split())


_REQUEST_PREFIX = re.compile(r"^\W*(?:the\s+)?user requested\s*(?::|to\b)?\s*", re.I)

CHATTER_PATTERNS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, re.I)
    for p in (
        r"\bas an ai\b",
        r"\bi(?:'ll| will) (?:remember|save|keep|note)\b",
        r"\bi(?:'ve| have) (?:saved|remembered|noted|stored|updated)\b",
        r"\b(?:memory|it) (?:has been |was )?(?:saved|updated)(?: successfully)?\b",
        r"^(?:sure|certainly|of course|absolutely)\b[!,.]",
        r"\bhere(?: is|'s) (?:the|your)\b",
        r"^\W*(?:[\w ]+:\s*)?here are (?:some|a few|the|your)\b",
        r"\bi(?:'m| am) looking forward to (?:learning|hearing|working|helping|seeing) more\b",
        r"\blet me know\b",
        r"\bi hope this helps\b",
        r"\bis there anything else\b",
        r"\bi (?:can(?:no|')t|do not|don't) (?:remember|access|assist|help)\b",
        # "I don't have access to ...", not the user's "I don't have any allergies"
        r"\bi (?:can(?:no|')t|do not|don't) have (?:access|the ability|any (?:personal|memory|"
        r"information|record|way))\b",
        r"^\W*i(?:'m| am) sorry\b",
        # "I'm here to help (you)", not the user's "I am here to help patients"
        r"\bi(?:'m| am) here to (?:help|assist)\b"
        r"(?!\s+(?!you\b|with\b|if\b|whenever\b|in\b)\w)",
        # The assistant describing itself as the user ("User is an AI assistant").
        r"\b(?:is|am) an? (?:ai|virtual|digital) assistant(?:\W*$|[,.;])",
    )
)
"""The assistant talking, not a fact about the user."""

_EMPTY_BULLET = re.compile(r"^\s*[-*+]\s*(\(.*\))?\s*$")
_WORD = re.compile(r"[^\W_]+", re.U)
_STOP = frozenset(
    re.findall(
        r"\S+",
        "a an the and or of to in on at for with by from as is are was were be it its this "
        "that my your their his her our user user's has have had i me you they them there "
        "here what do does did can could would should will just very so not no yes",
    )
)


def _bare(text: str) -> str:
    return text.strip().strip("*.:;,[](){}<>`'\" ").lower()


def _is_placeholder(text: str) -> bool:
    bare = _bare(text)
    if not bare or bare in PLACEHOLDER_TEXTS or not any(c.isalnum() for c in bare):
        return True
    if _CODE_FENCE.match(text):
        return True
    if _PLACEHOLDER_PHRASE.match(bare) or _EMPTY_SECTION.match(bare) or _TEMPLATE_SLOT.match(text):
        return True
    fields = [_FIELD.match(_bare(item)) for item in bare.split(",")]
    if len(fields) > 1 and all(  # "[name: User, profession: None, key projects: None]"
        f and (_is_placeholder(f[2]) or _bare(f[2]) == "user") for f in fields
    ):
        return True
    items = [_bare(item) for item in re.split(r",|\band\b", bare)]
    kinds = [_SECTION_QUALIFIER.sub("", i) for i in items]
    if all(k in _SECTION_WORDS or f"{k}s" in _SECTION_WORDS for k in kinds) or all(
        _PLACEHOLDER_NAME.match(i) for i in items
    ):
        return True
    valued = _CONTAINER_LABEL.sub("", bare, count=1)
    return valued != bare and _is_placeholder(valued)


LOOP_WORDS = 4
"""A run of this many words said twice in one line is the model looping ("On-call rotation
changes when the user requests: User requested: On-call rotation changes when ...")."""


def loops(text: str) -> bool:
    """The line says a run of :data:`LOOP_WORDS` words twice: garbled (checked last, for a
    line that would be kept: a looping fact, stale line or repeat is still what it says)."""
    words = [word.lower() for word in _WORD.findall(text)]
    first: dict[tuple[str, ...], int] = {}
    for i in range(len(words) - LOOP_WORDS + 1):
        run = tuple(words[i : i + LOOP_WORDS])
        if i - first.setdefault(run, i) >= LOOP_WORDS:
            return True
    return False


def _is_chatter(text: str) -> bool:
    return any(p.search(text) for p in CHATTER_PATTERNS)


JUNK_RULES: tuple[tuple[str, Callable[[str], object]], ...] = (
    ("tool call text", _TOOL_CALL_TEXT.match),
    ("tool call text", _TOOL_TEXT.search),
    ("placeholder", _is_placeholder),
    ("prompt text", is_prompt_text),
    ("data literal", _DATA_LITERAL.match),
    ("assistant chatter", _is_chatter),
    ("question", _QUESTION.search),
    ("conversation log", _CONVERSATION_LOG.match),
    ("conversation log", _logged_request),
    ("task name", _TASK_NAME.match),
)
"""``(reason, test)`` in the order they are tried; an entry is junk for the first that holds.
Each test sees the entry without its "User requested:" prefix (a request for a placeholder
or a question is still junk)."""


def junk_reason(text: str) -> str | None:
    """Why an entry text is junk (a reason of :data:`JUNK_RULES`), or None."""
    content = _REQUEST_PREFIX.sub("", text, count=1)
    for reason, test in JUNK_RULES:
        if test(content):
            return reason
    # "User requested to remember the date of ..." is a logged request before it is content.
    return "conversation log" if _logged_request(text) else None


def junk_lines(memory_md: str) -> list[tuple[int, str]]:
    """``(line number, line)`` of bullets that parse to no entry: ``-``, ``- (empty)``."""
    return [
        (number, line.strip())
        for number, line in enumerate(memory_md.splitlines(), start=1)
        if _EMPTY_BULLET.match(line)
    ]


def content_words(text: str) -> set[str]:
    """Lower-case words of ``text`` without stop words (plural ``s`` dropped)."""
    words = (w.lower() for w in _WORD.findall(text))
    return {w[:-1] if len(w) > 3 and w.endswith("s") else w for w in words if w not in _STOP}


def screenshot_overlap(text: str, captions: Sequence[str]) -> str | None:
    """The caption whose details ``text`` repeats (>= 2 shared words, >= half of the
    entry's content words), or None."""
    words = content_words(text)
    if len(words) < 2:
        return None
    for caption in captions:
        shared = words & content_words(caption)
        if len(shared) >= 2 and len(shared) * 2 >= len(words):
            return caption
    return None
