"""Prompt templates per language, editable without code changes.

Templates ship as package data in ``aizac/writer/prompts/<lang>/<kind>.txt``. A file of the same
name under an override directory (``<data_dir>/prompts/<lang>/<kind>.txt``) wins, so a writer can
edit prompts in place. A template has a ``### system`` and a ``### user`` section and
``$name`` placeholders (``string.Template``); a missing variable is an error, never a silent gap.
Values arrive already in the template's language: each renderer takes its words from
``prompts/<lang>/words.toml`` (:mod:`aizac.writer.prompt_words`); nothing rendered is rewritten.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from string import Template

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from aizac.errors import ConfigError
from aizac.writer.prompt_words import LANGUAGES, prompt_words

KINDS: tuple[str, ...] = (
    "plot",
    "beat",
    "prose",
    "prose_episode",
    "summary",
    "character",
    "extract_Story",
    "extract_Character",
    "extract_CharacterRelation",
    "extract_NovelSetting",
    "extract_combined",
    "episode_beats",  # the autopilot: every beat of an episode in one call (capable models)
    "extract_episode",  # the autopilot: the extraction of an episode's beats in one call
    "dialogue_plan",  # a beat with three or more speakers: its exchange, before the prose
    "read_scene",  # an imported scene read into a beat design (aizac.writer.reading)
    "plot_from_story",  # the plot of a story already written (an imported manuscript, read)
)


@dataclass(frozen=True)
class PromptTemplate:
    """A parsed template: system and user parts."""

    kind: str
    language: str
    system: str
    user: str

    def render(self, **values: object) -> list[BaseMessage]:
        """Messages with every ``$placeholder`` filled (pure)."""
        text = {name: str(value) for name, value in values.items()}
        text.setdefault("language_name", prompt_words(self.language).language_name)
        text.setdefault("prose", "")  # the extraction's optional block: an imported scene's text
        try:
            system = Template(self.system).substitute(text).strip()
            user = Template(self.user).substitute(text).strip()
        except KeyError as e:
            raise ConfigError("error.prompt.placeholder", template=f"{self.language}/{self.kind}",
                              name=str(e.args[0])) from e
        except ValueError as e:
            raise ConfigError("error.prompt.malformed", template=f"{self.language}/{self.kind}",
                              cause=str(e)) from e
        messages: list[BaseMessage] = []
        if system:
            messages.append(SystemMessage(system))
        messages.append(HumanMessage(user))
        return messages


def parse_template(kind: str, language: str, source: str) -> PromptTemplate:
    """Split template text into its ``### system`` / ``### user`` sections (pure)."""
    sections: dict[str, list[str]] = {}
    current: str | None = None
    for line in source.splitlines():
        header = line.strip().lower()
        if header in ("### system", "### user"):
            current = header[4:]
            sections[current] = []
        elif current is not None:
            sections[current].append(line)
    if "user" not in sections:
        raise ConfigError("error.prompt.no_user", template=f"{language}/{kind}")
    return PromptTemplate(
        kind=kind,
        language=language,
        system="\n".join(sections.get("system", [])),
        user="\n".join(sections["user"]),
    )


class PromptLibrary:
    """Loads templates (override directory first, then package data) and caches them."""

    def __init__(self, override_dir: Path | None = None) -> None:
        self.override_dir = override_dir
        self._cache: dict[tuple[str, str], PromptTemplate] = {}

    def get(self, kind: str, language: str) -> PromptTemplate:
        if kind not in KINDS:
            raise ConfigError("error.prompt.kind", kind=kind, kinds=", ".join(KINDS))
        lang = language if language in LANGUAGES else "en"
        key = (kind, lang)
        if key not in self._cache:
            self._cache[key] = parse_template(kind, lang, self._read(kind, lang))
        return self._cache[key]

    def render(self, kind: str, language: str, **values: object) -> list[BaseMessage]:
        return self.get(kind, language).render(**values)

    def _read(self, kind: str, lang: str) -> str:
        if self.override_dir is not None:
            path = self.override_dir / lang / f"{kind}.txt"
            if path.is_file():
                return path.read_text(encoding="utf-8")
        resource = resources.files("aizac.writer") / "prompts" / lang / f"{kind}.txt"
        try:
            return resource.read_text(encoding="utf-8")
        except FileNotFoundError as e:
            raise ConfigError("error.prompt.missing", template=f"{lang}/{kind}") from e
