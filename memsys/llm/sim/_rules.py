"""Text rules shared by the simulated models: what a user message is, and the fact in it.

These are deliberately simple keyword rules. They exist to calibrate the scores (a model
that follows the guardrails as well as rules can, and one that saves everything), not to
stand in for a real model's judgement.
"""

from __future__ import annotations

import re
from enum import StrEnum

from memsys.app_messages import APP_NOTICE_PREFIX, SCREENSHOT_PREFIX

__all__ = [
    "Kind",
    "category_of",
    "classify",
    "content_words",
    "jaccard",
    "to_fact",
]


class Kind(StrEnum):
    """What a user message is, for memory purposes."""

    MODEL_SWITCH = "model_switch"
    EXPLICIT = "explicit"
    CORRECTION = "correction"
    PREFERENCE = "preference"
    PROFILE = "profile"
    OTHER = "other"


_EXPLICIT = re.compile(
    r"\b(remember (?:that|this|:)?|don't forget(?: that)?|please note(?: that)?"
    r"|save (?:this|that))\s*",
    re.I,
)
_CORRECTION = re.compile(
    r"\b(actually|no longer|not anymore|changed my mind|switched back|instead of|now prefer|"
    r"from now on)\b",
    re.I,
)
_PREFERENCE = re.compile(r"\b(I (?:really )?(?:prefer|like|love|hate|always|usually|want))\b", re.I)
_PROFILE = re.compile(
    r"\b(I(?:'m| am) an? |I work (?:as|at|on)|my (?:project|job|team|company))", re.I
)
_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "i",
        "me",
        "my",
        "to",
        "of",
        "in",
        "on",
        "for",
        "and",
        "or",
        "is",
        "are",
        "am",
        "be",
        "it",
        "this",
        "that",
        "with",
        "at",
        "by",
        "from",
        "as",
        "user",
        "user's",
        "now",
        "actually",
        "please",
        "remember",
        "really",
        "all",
        "any",
        "so",
        "do",
        "not",
        "don't",
        "just",
        "also",
        "requested",
        "prefers",
        "prefer",
    ]
)


def classify(text: str) -> Kind:
    """Classify one user message (without its screenshot caption)."""
    if text.startswith(APP_NOTICE_PREFIX):
        return Kind.MODEL_SWITCH
    if _EXPLICIT.search(text):
        return Kind.CORRECTION if _CORRECTION.search(text) else Kind.EXPLICIT
    if _CORRECTION.search(text):
        return Kind.CORRECTION
    if _PROFILE.search(text):
        return Kind.PROFILE
    if _PREFERENCE.search(text):
        return Kind.PREFERENCE
    return Kind.OTHER


_REWRITES: tuple[tuple[str, str], ...] = (
    (r"^(?:hi|hello|hey)(?: there)?[!,.]*\s+", ""),  # a greeting is not part of the fact
    (r"^(?:actually|so|ok|okay|also|and),?\s+", ""),
    (r"\bI now prefer\b", "prefers"),
    (r"\bI(?:'m| am)\b", "is"),
    (r"\bI (prefer|like|love|hate|use|want|work|run|always|usually)\b", r"\1s"),
    (r"\balwayss\b", "always"),
    (r"\busuallys\b", "usually"),
    (r"\bmy\b", "their"),
    (r"\bme\b", "them"),
    (r"\bI\b", "they"),
)


def to_fact(text: str) -> str:
    """A concise third-person fact from a first-person message: "I prefer X." -> "Prefers X"."""
    fact = _EXPLICIT.sub("", text.split(SCREENSHOT_PREFIX)[0]).strip()
    for pattern, replacement in _REWRITES:
        fact = re.sub(pattern, replacement, fact, flags=re.I)
    fact = re.sub(r"\s+now\b", "", fact).strip(" .!")
    return fact[:1].upper() + fact[1:]


def content_words(text: str) -> set[str]:
    """Lower-case content words, crude plural/verb -s stripped."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    return {w[:-1] if len(w) > 3 and w.endswith("s") else w for w in words if w not in _STOP}


def jaccard(a: str, b: str) -> float:
    """Word-set overlap of two texts."""
    wa, wb = content_words(a), content_words(b)
    return len(wa & wb) / len(wa | wb) if wa and wb else 0.0


_CATEGORY_WORDS: tuple[tuple[str, frozenset[str]], ...] = (
    (
        "profile",
        frozenset(
            [
                "engineer",
                "developer",
                "designer",
                "job",
                "work",
                "team",
                "company",
                "live",
                "born",
                "name",
                "profession",
                "role",
            ]
        ),
    ),
    (
        "projects",
        frozenset(
            [
                "project",
                "repo",
                "app",
                "codebase",
                "stack",
                "database",
                "postgresql",
            ]
        ),
    ),
    (
        "workflow",
        frozenset(
            [
                "email",
                "gmail",
                "inbox",
                "every",
                "weekly",
                "daily",
                "automate",
                "automation",
                "screenshot",
                "workflow",
                "review",
            ]
        ),
    ),
    (
        "interests",
        frozenset(
            [
                "game",
                "hobby",
                "play",
                "music",
                "book",
                "reading",
                "climbing",
                "hiking",
            ]
        ),
    ),
    (
        "preferences",
        frozenset(
            [
                "prefer",
                "like",
                "mode",
                "theme",
                "answer",
                "concise",
                "dark",
                "light",
                "font",
            ]
        ),
    ),
)


def category_of(text: str) -> str:
    """The category whose cue words the text shares most (default notes)."""
    words = content_words(text) | set(re.findall(r"[a-z]+", text.lower()))
    best, best_hits = "notes", 0
    for category, cues in _CATEGORY_WORDS:
        hits = len(words & cues)
        if hits > best_hits:
            best, best_hits = category, hits
    return best
