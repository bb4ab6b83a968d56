"""The manuscript the rest of aizac converts a project into before exporting it.

Plain dataclasses, validated on construction: a bad title, language or episode list is an
:class:`~aizac.errors.InvalidInputError` here, at the boundary, never a crash in a renderer.

Prose convention: every non-blank line of ``EpisodeText.prose`` is one paragraph (the usual
layout of Korean web novels, and what ``"\\n\\n"``-separated model output reduces to as well).
Characters that XML cannot carry (C0 controls other than tab/newline, U+FFFE/U+FFFF, lone
surrogates) are dropped so that every format renders the same text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal, get_args

from aizac.errors import InvalidInputError

Language = Literal["ko", "en", "zh"]
LANGUAGES: tuple[str, ...] = get_args(Language)

MAX_TITLE_CHARS = 300

# XML 1.0 forbids these; tab, LF and CR are allowed (and handled as whitespace).
_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")
_LINE_BREAKS = re.compile(r"\r\n|\r|\n|\u2028|\u2029|\x85")
_FIGURE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,80}\.(png|jpg|webp)")
FIGURE_TYPES = ("image/png", "image/jpeg", "image/webp")


def clean_text(text: str) -> str:
    """``text`` without characters that XML (and so EPUB) cannot carry."""
    return _XML_INVALID.sub("", text)


def _one_line(text: str) -> str:
    """``text`` cleaned, with every run of whitespace (line breaks included) made one space."""
    return " ".join(clean_text(text).split())


@dataclass(frozen=True)
class Figure:
    """A picture in the book: the cover, or an illustration placed before a paragraph.

    Attributes:
        name: its file name inside the book (``img-….png``; letters, digits, ``-``, ``.``).
        media_type: ``image/png``, ``image/jpeg`` or ``image/webp``.
        data: the encoded picture.
        alt: what it shows, for readers who cannot see it.
        before: the index of the paragraph it stands before (an illustration).
    """

    name: str
    media_type: str
    data: bytes
    alt: str = ""
    before: int = 0

    def __post_init__(self) -> None:
        if not _FIGURE_NAME.fullmatch(self.name):
            raise InvalidInputError("error.export.figure_name", name=self.name)
        if self.media_type not in FIGURE_TYPES:
            raise InvalidInputError("error.export.figure_type", type=self.media_type)
        if isinstance(self.before, bool) or not isinstance(self.before, int) or self.before < 0:
            raise InvalidInputError("error.export.figure_position", position=repr(self.before))
        object.__setattr__(self, "alt", _one_line(self.alt))


@dataclass(frozen=True)
class EpisodeText:
    """One episode: its number (1-based), an optional title, its prose and the illustrations
    placed in it (each before a paragraph, in order)."""

    number: int
    title: str = ""
    prose: str = ""
    figures: Sequence[Figure] = ()

    def __post_init__(self) -> None:
        if isinstance(self.number, bool) or not isinstance(self.number, int) or self.number < 1:
            raise InvalidInputError("error.export.episode_number", got=repr(self.number))
        if not isinstance(self.title, str) or not isinstance(self.prose, str):
            raise InvalidInputError("error.export.episode_not_text", episode=self.number)
        if len(self.title) > MAX_TITLE_CHARS:
            raise InvalidInputError("error.export.episode_title_long", episode=self.number,
                                    n=len(self.title), limit=MAX_TITLE_CHARS)
        object.__setattr__(self, "title", _one_line(self.title))
        object.__setattr__(self, "figures", tuple(sorted(self.figures, key=lambda f: f.before)))

    @property
    def paragraphs(self) -> list[str]:
        """The prose's paragraphs: non-blank lines, stripped, XML-safe."""
        lines = (clean_text(line).strip() for line in _LINE_BREAKS.split(self.prose))
        return [line for line in lines if line]


@dataclass(frozen=True)
class Manuscript:
    """A novel (or part of one) ready to export.

    Attributes:
        title: The novel's title (required).
        author: The author's name; empty to leave it out.
        language: ``"ko"``, ``"en"`` or ``"zh"`` — the language of the text.
        episodes: Episodes in reading order (kept as a tuple); numbers must be unique.
        identifier: A stable book identifier; derived from title/author/language when empty.
    """

    title: str
    author: str = ""
    language: Language = "ko"
    episodes: Sequence[EpisodeText] = ()
    identifier: str = ""
    cover: Figure | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.title, str) or not _one_line(self.title):
            raise InvalidInputError("error.export.no_title")
        if len(self.title) > MAX_TITLE_CHARS:
            raise InvalidInputError("error.export.title_long", n=len(self.title),
                                    limit=MAX_TITLE_CHARS)
        if not isinstance(self.author, str) or len(self.author) > MAX_TITLE_CHARS:
            raise InvalidInputError("error.export.author", limit=MAX_TITLE_CHARS)
        if self.language not in LANGUAGES:
            raise InvalidInputError("error.export.language", language=self.language,
                                    choices=", ".join(LANGUAGES))
        episodes = tuple(self.episodes)
        for episode in episodes:
            if not isinstance(episode, EpisodeText):
                raise InvalidInputError("error.export.episode_type", type=type(episode).__name__)
        numbers = [episode.number for episode in episodes]
        duplicates = sorted({n for n in numbers if numbers.count(n) > 1})
        if duplicates:
            raise InvalidInputError("error.export.episode_repeated",
                                    numbers=", ".join(map(str, duplicates)))
        object.__setattr__(self, "title", _one_line(self.title))
        object.__setattr__(self, "author", _one_line(self.author))
        object.__setattr__(self, "identifier", _one_line(self.identifier))
        object.__setattr__(self, "episodes", episodes)


_BOUND = {"first": "error.export.first_bound", "last": "error.export.last_bound"}

def select_episodes(
    manuscript: Manuscript, first: int | None = None, last: int | None = None
) -> Manuscript:
    """The manuscript restricted to episodes numbered ``first``..``last`` (inclusive).

    ``None`` means "from the first episode" / "to the last one". The result keeps the title,
    author, language and identifier.

    Raises:
        InvalidInputError: a bound is not a whole number from 1 up, ``first > last``, or no
            episode falls in the range (nothing would be exported).
    """
    for label, bound in (("first", first), ("last", last)):
        if bound is None:
            continue
        if isinstance(bound, bool) or not isinstance(bound, int) or bound < 1:
            raise InvalidInputError(_BOUND[label], got=repr(bound))
    if first is not None and last is not None and first > last:
        raise InvalidInputError("error.export.range_reversed", first=first, last=last)
    if not manuscript.episodes:
        raise InvalidInputError("error.export.nothing")
    low = first if first is not None else 1
    high = last if last is not None else max(e.number for e in manuscript.episodes)
    chosen = tuple(e for e in manuscript.episodes if low <= e.number <= high)
    if not chosen:
        available = sorted(e.number for e in manuscript.episodes)
        raise InvalidInputError("error.export.range_empty", low=low, high=high,
                                first=available[0], last=available[-1], n=len(available))
    return replace(manuscript, episodes=chosen)
