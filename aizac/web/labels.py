"""The page's words in the interface language: catalogue keys (``ui.*``) rendered once, here at
the edge (:mod:`aizac.text`).

Only the page chrome is the interface's; the story itself is written in the project's language.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from aizac.text import LANGUAGES, Text, Verbatim, known, render
from aizac.text.message import Clauses

__all__ = ["TAG_KEYS", "UNIT_KEYS", "UNIT_NAME_KEYS", "Labels", "headers", "labels"]

UNIT_KEYS = {"characters": "ui.unit.characters", "words": "ui.unit.words"}
"""How an episode's length is counted, after a number (``5,000자``, ``3,000 words``)."""
UNIT_NAME_KEYS = {"characters": "ui.unit.name_characters", "words": "ui.unit.name_words"}
"""How an episode's length is counted, as a name (``글자 수``)."""
TAG_KEYS = {"Story": "tag.Story", "Character": "tag.Character",
            "CharacterRelation": "tag.CharacterRelation", "NovelSetting": "tag.NovelSetting"}
"""The four memory tags as the interface names them."""


class Labels(Mapping[str, str]):
    """The interface's words in one language: ``L["ui.tab.start"]`` is the label as it reads,
    :meth:`t` fills a template (``L.t("ui.created", name=...)``), :meth:`say` renders any text
    (an error's, a progress event's)."""

    def __init__(self, language: str = "en") -> None:
        self.language = language if language in LANGUAGES else "en"

    def __getitem__(self, key: str) -> str:
        if not known(key):  # a page's word is always a literal key of the catalogue
            raise KeyError(key)
        return render(Text(key), self.language)

    def __iter__(self) -> Iterator[str]:  # a view over keys, not a table: nothing to list
        return iter(())

    def __len__(self) -> int:
        return 0

    def __bool__(self) -> bool:  # a language's words, never "empty"
        return True

    def t(self, key: str, /, **params: Any) -> str:
        """The template ``key`` filled with ``params`` in this language."""
        return render(Text(key, params), self.language)

    def say(self, text: Text | Verbatim | Clauses) -> str:
        """Any text in this language."""
        return render(text, self.language)


def headers(L: Labels, key: str) -> list[str]:
    """A table's column headers (``ui.h.*``: one template, ``|`` between the columns)."""
    return L[key].split("|")


def labels(language: str = "en") -> Labels:
    """The interface's words in ``language`` (``en``, ``ko`` or ``zh``; another is English)."""
    return Labels(language)
