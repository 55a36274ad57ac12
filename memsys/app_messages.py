"""What the app itself writes into a conversation, defined once (a leaf: imports nothing).

A user message with a screenshot carries ``[Screenshot: <caption>]`` on its own line
(:func:`user_message`), a notice from the app starts with ``[App]``
(:func:`model_switch_notice`), and the chat's system prompt starts from :data:`BASE_PROMPT`
unless a variant replaces it. The app (:mod:`memsys.app`) writes these; the simulated
models (:mod:`memsys.llm.sim`) and the prompt contracts read them from here, so neither has
to import the app that imports them.
"""

from __future__ import annotations

__all__ = [
    "APP_NOTICE_PREFIX",
    "BASE_PROMPT",
    "SCREENSHOT_PREFIX",
    "model_switch_notice",
    "user_message",
]

BASE_PROMPT = (
    "You are OneClaw, a helpful personal assistant. You have a long-term memory: its "
    "content is below, and you can change it with the memory tools."
)
"""The chat system prompt's memory instructions when the variant gives none."""

APP_NOTICE_PREFIX = "[App]"
"""How a message the app (not the user) adds to the conversation starts."""
SCREENSHOT_PREFIX = "[Screenshot:"
"""How the caption of a screenshot attached to a user message starts."""


def user_message(text: str, screenshot: str | None = None) -> str:
    """A user message as the app sends it: the text, then the screenshot's caption if any."""
    return f"{text}\n{SCREENSHOT_PREFIX} {screenshot}]" if screenshot else text


def model_switch_notice(from_model: str, to_model: str) -> str:
    """The notice the app adds to the conversation when the user switches models."""
    return (
        f"{APP_NOTICE_PREFIX} The user switched the default model from {from_model} to {to_model}."
    )
