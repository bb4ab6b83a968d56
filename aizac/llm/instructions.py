"""The fixed lines the LLM layer adds around a structured request, in the prompt's language (pure).

A structured call adds its own words to the writer's prompt: "reply with one JSON object only",
the schema's lead-in, and the repair follow-up after a rejected reply. In a Korean or Chinese
project those lines must be Korean or Chinese like the rest of the prompt (a small model answers
in the language it is addressed in). The LLM layer does not know the project, so the language is
read from the conversation the lines join: the script most of its system and user letters are
written in (:func:`prompt_language`). Prompts are rendered per project language, so this is the
project's language.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
from importlib import resources

from langchain_core.messages import AIMessage, BaseMessage

LANGUAGES = ("en", "ko", "zh")
_HANGUL = re.compile(r"[\uac00-\ud7af\u1100-\u11ff\u3130-\u318f]")
_HAN = re.compile(r"[\u4e00-\u9fff\u3400-\u4dbf]")
_LETTER = re.compile(r"[^\W\d_]")
SCRIPT_SHARE = 0.3
"""A prompt is Korean (Chinese) when at least this share of its letters is Hangul (Han):
Korean and Chinese prompts carry English data too (names, the schema's field names)."""

def _texts() -> dict[str, dict[str, str]]:
    with (resources.files("aizac.llm") / "instructions.toml").open("rb") as handle:
        return {lang: dict(lines) for lang, lines in tomllib.load(handle).items()}


TEXTS: dict[str, dict[str, str]] = _texts()
"""Every fixed line of a structured request, by language."""


def text(key: str, language: str) -> str:
    """The fixed line ``key`` in ``language`` (English for any other language)."""
    return TEXTS.get(language, TEXTS["en"])[key]


def prompt_language(messages: Sequence[BaseMessage]) -> str:
    """The language the writer's part of ``messages`` is written in: ``ko``, ``zh`` or ``en``.

    Only system and user turns count (a model's own replies may be in the wrong language)."""
    letters = hangul = han = 0
    for message in messages:
        if isinstance(message, AIMessage):
            continue
        body = message.text
        letters += len(_LETTER.findall(body))
        hangul += len(_HANGUL.findall(body))
        han += len(_HAN.findall(body))
    if not letters:
        return "en"
    if hangul >= SCRIPT_SHARE * letters:
        return "ko"
    if han >= SCRIPT_SHARE * letters:
        return "zh"
    return "en"
