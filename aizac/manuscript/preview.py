"""What the writer sees before an import saves anything: the episodes found, each one's length,
first line and scenes, after the writer's adjustments (pure data; no project is touched).

The adjustments are replayed in order on the split the headings give, so the same files and the
same adjustments always give the same preview and the same import (:func:`read`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from aizac.errors import InvalidInputError
from aizac.manuscript import formats, splitting

FIRST_LINE = 80
"""Characters of an episode's first line the preview keeps."""


@dataclass(frozen=True)
class Merge:
    """Join episode ``episode`` to the one before it (its boundary was wrong)."""

    episode: int


@dataclass(frozen=True)
class SplitAt:
    """Start a new episode at paragraph ``paragraph`` (1-based) of episode ``episode``."""

    episode: int
    paragraph: int


Adjustment = Merge | SplitAt


@dataclass(frozen=True)
class EpisodePreview:
    number: int
    title: str
    heading: str
    """The heading line as written (empty: the episode opens a file without one)."""
    file: str
    row: int
    """The line of ``file`` it starts at (1-based)."""
    characters: int
    """Characters with spaces, line breaks left out (as platforms count them)."""
    scenes: int
    paragraphs: int
    first_line: str


@dataclass(frozen=True)
class FileRead:
    name: str
    encoding: str
    """The encoding a text file was read in (empty for docx, EPUB, HWPX)."""


@dataclass(frozen=True)
class ManuscriptPreview:
    files: tuple[FileRead, ...]
    episodes: tuple[EpisodePreview, ...]
    starts: tuple[int, ...]
    """Where each boundary lies in the manuscript's lines (what an import replays)."""
    skipped_numbers: tuple[int, ...]
    """Episode numbers the headings skip (a heading the split may have missed)."""
    left_out: tuple[splitting.LeftOut, ...] = ()
    """Front matter (a title page, an author line) the import will not keep as an episode."""

    @property
    def characters(self) -> int:
        return sum(e.characters for e in self.episodes)


def adjust(current: splitting.Split, adjustments: Sequence[Adjustment]) -> splitting.Split:
    """``current`` with ``adjustments`` applied in order (each numbers episodes as they stand
    after the ones before it)."""
    for step in adjustments:
        if isinstance(step, Merge):
            current = splitting.merge(current, step.episode)
        else:
            current = splitting.split_at(current, step.episode, step.paragraph)
    return current


@dataclass(frozen=True)
class Manuscript:
    """A manuscript read and split, the writer's adjustments applied: what an import saves."""

    files: tuple[FileRead, ...]
    split: splitting.Split
    episodes: tuple[splitting.Episode, ...]


def read(paths: Sequence[Path], adjustments: Sequence[Adjustment] = ()) -> Manuscript:
    """The manuscript in ``paths`` (files, or folders standing for the manuscript files in
    them, in natural order) as one serial, split and adjusted.

    Raises:
        InvalidInputError: no file, a file aizac cannot read, or an adjustment that names no
            episode, boundary or paragraph of the manuscript.
    """
    files = formats.expand(paths)
    if not files:
        raise InvalidInputError("error.manuscript.no_text")
    sources = [formats.read_file(path) for path in files]
    current = adjust(splitting.split(sources), adjustments)
    return Manuscript(tuple(FileRead(s.name, s.encoding) for s in sources), current,
                      tuple(current.episodes()))


def preview(paths: Sequence[Path], adjustments: Sequence[Adjustment] = ()) -> ManuscriptPreview:
    """The preview of the manuscript in ``paths`` (see :func:`read`)."""
    manuscript = read(paths, adjustments)
    episodes = tuple(
        EpisodePreview(e.number, e.title, e.heading, e.file, e.row, e.length(), len(e.scenes),
                       len(e.paragraphs), e.first_line[:FIRST_LINE])
        for e in manuscript.episodes)
    return ManuscriptPreview(manuscript.files, episodes, manuscript.split.starts,
                             tuple(splitting.gaps_in_numbers(manuscript.split)))


__all__ = ["FIRST_LINE", "Adjustment", "EpisodePreview", "FileRead", "Manuscript",
           "ManuscriptPreview", "Merge", "SplitAt", "adjust", "preview", "read"]
