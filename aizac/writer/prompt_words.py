"""The words a prompt puts around its data, in the prompt's (the story's) language.

``aizac/writer/prompts/<lang>/words.toml`` sits beside that language's templates: the headings
of the memory context, a beat's line labels (``characters:``, ``등장인물:``), the act stages,
the cliché lines, the genre named when a project has none. Each renderer takes them from here
in the story's language, so a Korean prompt is Korean from its first line to its last without
rewriting anything already rendered. Read once per language.
"""

from __future__ import annotations

import functools
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

from aizac.errors import ConfigError

LANGUAGES: tuple[str, ...] = ("ko", "en", "zh")
"""The languages with prompts: a folder of templates and a ``words.toml`` each (imported by
:mod:`aizac.writer.prompts`, which renders them)."""


@dataclass(frozen=True)
class PromptWords:
    """One language's prompt words (see the module docstring).

    Attributes:
        language: the prompt language (``ko``, ``en``, ``zh``).
        language_name: its own name (``한국어``), a template's ``$language_name``.
        genre: the genre named when the project has none (``web novel``, ``웹소설``).
        headings: the memory context's section headings, by section.
        labels: a beat's and a character's line labels, each with its separator.
        stages: the act stages, by slug.
        cliches: the words of a trope's lines in the plot prompt.
        offer: the headings of what an extraction is shown of memory, with its ids.
        reference: what a reply whose references do not match is told (by problem key).
    """

    language: str
    language_name: str
    genre: str
    headings: Mapping[str, str]
    labels: Mapping[str, str]
    stages: Mapping[str, str]
    cliches: Mapping[str, str]
    offer: Mapping[str, str]
    reference: Mapping[str, str]

    def stage(self, slug: str) -> str:
        """An act's stage (``crisis``) as this language names it (``위기``)."""
        return self.stages.get(slug, slug)

    @property
    def pack(self) -> dict[str, str]:
        """What the memory context pack says around its items: the section headings and its
        header labels (:class:`aizac.retrieval.pack.ContextPack` ``words``)."""
        return {**self.headings, "act_goal": self.labels["act_goal"],
                "location": self.labels["location"]}


@functools.cache
def prompt_words(language: str) -> PromptWords:
    """The prompt words of ``language`` (English for a language without prompts).

    Raises:
        ConfigError: the installation lacks the words file (package data left out).
    """
    lang = language if language in LANGUAGES else "en"
    resource = resources.files("aizac.writer") / "prompts" / lang / "words.toml"
    try:
        with resource.open("rb") as handle:
            data: dict[str, Any] = tomllib.load(handle)
    except FileNotFoundError as e:
        raise ConfigError("error.prompt.words_missing", language=lang) from e
    return PromptWords(
        language=lang,
        language_name=str(data["language_name"]),
        genre=str(data["genre"]),
        headings=dict(data["headings"]),
        labels=dict(data["labels"]),
        stages=dict(data["stages"]),
        cliches=dict(data["cliches"]),
        offer=dict(data["offer"]),
        reference=dict(data["reference"]),
    )


def instruction_line(instruction: str, words: PromptWords) -> str:
    """The prose prompt's ``$instruction`` block: the writer's instruction, labelled in the
    prompt's language ("" without one)."""
    said = instruction.strip()
    return f"\n{words.labels['instruction']}{said}\n" if said else ""


__all__ = ["LANGUAGES", "PromptWords", "instruction_line", "prompt_words"]
