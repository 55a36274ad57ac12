"""Detectors of what a reader of MEMORY.md calls noise, whatever the scenario lists.

Pure functions over entry texts (and the raw file, for bullets that parse to nothing):

- :func:`junk_reason`: ``None``/empty/placeholder entries (``[none]``, "No interests
  listed"), the assistant's own chatter ("As an AI ...", "I'll remember that", "Sure! Here
  is ...") and a tool call written out as text (``{"name": "weather", "arguments": ...}``);
- :func:`junk_lines`: bullets that parse to no entry at all (``-``, ``- (empty)``);
- :func:`model_name_in`: a model or AI-product name (Claude, GPT-4o, Gemini, OneClaw, or a
  name the run's model-switch notices used). "haiku", "sonnet" and "opus" are also poetry
  and music words, so alone they count only beside "model" or "Claude";
- :func:`screenshot_overlap`: an entry made of a screenshot's details (most of its content
  words appear in one caption and its message, at least two of them).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

__all__ = [
    "AI_PRODUCT_WORDS",
    "CHATTER_PATTERNS",
    "PLACEHOLDER_TEXTS",
    "content_words",
    "junk_lines",
    "junk_reason",
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
    r"^(?:no|none|nothing)\b(?:\s+[\w-]+){0,3}\s+"
    r"(?:mentioned|listed|specified|provided|given|recorded|noted|shared|identified)$"
)
"""A section filled with a sentence that says it is empty: "No interests listed", "no specific
projects mentioned", "None mentioned" (what a real model writes under an empty header)."""

_TOOL_CALL_TEXT = re.compile(
    r'^\W*\{.*"(?:name|function|tool)"\s*:.*"(?:arguments|parameters)"\s*:', re.S
)
"""A tool call the model wrote out as JSON text instead of calling the tool."""

CHATTER_PATTERNS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, re.I)
    for p in (
        r"\bas an ai\b",
        r"\bi(?:'ll| will) (?:remember|save|keep|note)\b",
        r"\bi(?:'ve| have) (?:saved|remembered|noted|stored|updated)\b",
        r"\b(?:memory|it) (?:has been |was )?(?:saved|updated)(?: successfully)?\b",
        r"^(?:sure|certainly|of course|absolutely)\b[!,.]",
        r"\bhere(?: is|'s) (?:the|your)\b",
        r"\blet me know\b",
        r"\bi hope this helps\b",
        r"\bis there anything else\b",
        r"\bi (?:can(?:no|')t|do not|don't) (?:have|remember|access)\b",
        # The assistant describing itself as the user ("User is an AI assistant").
        r"\b(?:is|am) an? (?:ai|virtual|digital) assistant(?:\W*$|[,.;])",
    )
)
"""The assistant talking, not a fact about the user."""

AI_PRODUCT_WORDS = re.compile(
    r"\b(claude|gpt-?\d[\w.-]*|gemini|llama|mistral|mixtral|qwen|deepseek|oneclaw|"
    r"o[134](?:-mini)?)\b",
    re.I,
)
"""Model families of a model picker, and the app itself: names that are models or AI
products in any sentence. (Not "Gemma", a first name, nor tools the user may really use,
such as Copilot: a run's own switch notices add the names it used.)"""

_AMBIGUOUS = re.compile(r"\b(haiku|sonnet|opus)\b", re.I)
_MODEL_CONTEXT = re.compile(r"\b(model|claude|llm)\b", re.I)
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


def junk_reason(text: str) -> str | None:
    """Why an entry text is junk (``placeholder``, ``assistant chatter`` or ``tool call
    text``), or None."""
    if _TOOL_CALL_TEXT.match(text):
        return "tool call text"
    bare = text.strip().strip("*.:[](){}<>`'\" ").lower()
    if not bare or bare in PLACEHOLDER_TEXTS or not any(c.isalnum() for c in bare):
        return "placeholder"
    if _PLACEHOLDER_PHRASE.match(bare):
        return "placeholder"
    if any(p.search(text) for p in CHATTER_PATTERNS):
        return "assistant chatter"
    return None


def junk_lines(memory_md: str) -> list[tuple[int, str]]:
    """``(line number, line)`` of bullets that parse to no entry: ``-``, ``- (empty)``."""
    return [
        (number, line.strip())
        for number, line in enumerate(memory_md.splitlines(), start=1)
        if _EMPTY_BULLET.match(line)
    ]


def model_name_in(text: str, run_names: Iterable[str] = ()) -> str | None:
    """The model or AI-product name ``text`` mentions, or None."""
    lowered = text.lower()
    for name in run_names:
        if name and re.search(rf"\b{re.escape(name.lower())}\b", lowered):
            return name
    found = AI_PRODUCT_WORDS.search(text)
    if found:
        return found.group(0)
    ambiguous = _AMBIGUOUS.search(text)
    if ambiguous and _MODEL_CONTEXT.search(text):
        return ambiguous.group(0)
    return None


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
