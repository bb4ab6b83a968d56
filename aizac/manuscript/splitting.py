"""Episodes and scenes of a manuscript, and the writer's adjustments (pure: lines in, data out).

An episode starts at a heading: a line the file marks as one (a docx Heading style, an EPUB
``h1``-``h6``, a Markdown ``#``) or a short line in one of the usual forms (``1화``, ``제1화``,
``EP.1``, ``#1``, ``001``, ``第1章``, ``Chapter 1``: ``headings.toml``); a file with no heading
is one episode. A heading followed by no text before the next one is a part or book title, not
an episode; so is short text (a title, an author line) opening a file before its first heading,
under a heading of its own too (a docx Title) if that heading carries no episode number.
Scenes are separated by lines of symbols (``***``, ``◆``) or by a run of blank lines longer
than the text's usual paragraph gap; a scene shorter than :data:`MIN_SCENE` characters joins
its neighbour and an episode keeps at most :data:`MAX_SCENES` scenes (each scene becomes
one beat of the story).

The split is a list of start lines (:class:`Split`), so what the writer adjusts in the preview
(:func:`merge`, :func:`split_at`) is a small edit that the import run repeats exactly.
"""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from itertools import pairwise, takewhile

from aizac.errors import InvalidInputError
from aizac.manuscript.formats import Source

MIN_SCENE = 300
"""Characters below which a scene joins its neighbour (a beat is at least a few paragraphs)."""
MAX_SCENES = 12
"""Scenes an episode keeps at most (the extraction of an episode takes at most 12 beats)."""


@dataclass(frozen=True)
class ManuscriptLine:
    """A line of the whole manuscript (every file in order)."""

    text: str
    heading: bool
    file: int
    """Index of its file in the manuscript's files."""
    row: int
    """Its line number in its file (1-based)."""


@dataclass(frozen=True)
class Episode:
    """One episode as split: its number, its heading's title, its scenes' text."""

    number: int
    title: str
    start: int
    """Index of its first line (its heading, if it has one) in the manuscript's lines."""
    scenes: tuple[str, ...]
    file: str
    row: int
    heading: str = ""
    """The heading line as written (empty: the episode starts a file without one)."""

    @property
    def text(self) -> str:
        return "\n".join(self.scenes)

    @property
    def paragraphs(self) -> list[str]:
        return [p for s in self.scenes for p in s.split("\n") if p.strip()]

    @property
    def first_line(self) -> str:
        return next(iter(self.paragraphs), "")

    def length(self, unit: str = "characters") -> int:
        """Its length as the project counts it (characters with spaces, or words)."""
        return measure(self.text, unit)


@dataclass(frozen=True)
class LeftOut:
    """Front matter an import does not keep as an episode: where it stands and what it says."""

    file: str
    row: int
    text: str


@dataclass(frozen=True)
class Split:
    """The manuscript's lines and where each episode starts (what the writer adjusts)."""

    lines: tuple[ManuscriptLine, ...]
    starts: tuple[int, ...]
    files: tuple[str, ...]

    def episodes(self, first: int = 1) -> list[Episode]:
        """The episodes, numbered from ``first``; an episode without text is left out (a
        title or part heading)."""
        out: list[Episode] = []
        bounds = [*self.starts, len(self.lines)]
        for start, end in pairwise(bounds):
            head = self.lines[start]
            heading = head.text.strip() if head.heading else ""
            body = self.lines[start + 1:end] if heading else self.lines[start:end]
            scenes = scenes_of([line.text for line in body])
            if not scenes or (_front_matter(self.lines, start, end) and (
                    not heading or _title_page(self.lines, start, heading))):
                continue
            title = heading_title(heading) if heading else ""
            out.append(Episode(first + len(out), title, start, tuple(scenes),
                               self.files[head.file], head.row, heading))
        return out

    def left_out(self) -> list[LeftOut]:
        """The text :meth:`episodes` leaves out as a file's front matter (a title page, an
        author line), so the preview can show the writer what an import will not keep."""
        out: list[LeftOut] = []
        bounds = [*self.starts, len(self.lines)]
        for start, end in pairwise(bounds):
            head = self.lines[start]
            heading = head.text.strip() if head.heading else ""
            text = " / ".join(x.text.strip() for x in self.lines[start:end] if x.text.strip())
            body = self.lines[start + 1:end] if heading else self.lines[start:end]
            if text and scenes_of([line.text for line in body]) and _front_matter(
                    self.lines, start, end) and (not heading or _title_page(
                        self.lines, start, heading)):
                out.append(LeftOut(self.files[head.file], head.row, text))
        return out

    def numbers(self) -> list[int | None]:
        """The number each start's heading gives (``None``: none), for the gap check."""
        return [heading_number(self.lines[s].text) if self.lines[s].heading else None
                for s in self.starts]


def _front_matter(lines: Sequence[ManuscriptLine], start: int, end: int) -> bool:
    """Whether the lines ``start:end`` (no heading) are a file's front matter: short text (a
    title, an author) before a heading of the same file."""
    if end >= len(lines) or lines[end].file != lines[start].file:
        return False
    return measure("\n".join(x.text for x in lines[start:end])) < MIN_SCENE


def _title_page(lines: Sequence[ManuscriptLine], start: int, heading: str) -> bool:
    """Whether the heading at ``start`` is a book's title (a docx Title, a Markdown ``#``): it
    opens its file and carries no episode number (``1화`` with little text stays an episode)."""
    if heading_number(heading) is not None:
        return False
    before = range(start - 1, -1, -1)
    return not any(lines[n].text.strip() for n in takewhile(
        lambda n: lines[n].file == lines[start].file, before))


# ------------------------------------------------------------------------------ language data
@dataclass(frozen=True)
class Marks:
    patterns: tuple[re.Pattern[str], ...]
    scene_break: re.Pattern[str]
    max_length: int
    prose_end: re.Pattern[str]


@lru_cache(maxsize=1)
def marks() -> Marks:
    """The heading and scene-break forms (``headings.toml``)."""
    text = resources.files("aizac.manuscript").joinpath("headings.toml").read_text("utf-8")
    data = tomllib.loads(text)
    return Marks(tuple(re.compile(p, re.IGNORECASE) for p in data["patterns"]),
                 re.compile(data["scene_break"]), int(data["max_length"]),
                 re.compile(data["prose_end"]))


def heading_match(text: str) -> re.Match[str] | None:
    """The match of ``text`` as an episode heading in one of the usual forms, else ``None``."""
    line = " ".join(text.split())
    if not line or len(line) > marks().max_length:
        return None
    found = next((m for p in marks().patterns if (m := p.match(line))), None)
    title = (found.groupdict().get("title") or "") if found is not None else ""
    if found is not None and marks().prose_end.search(title.strip()):
        return None  # "3화에서 말했듯이 ... 돌아섰다." opens a sentence
    return found


def heading_title(text: str) -> str:
    """The title a heading carries (``1화 귀환`` -> ``귀환``); a heading in no usual form is all
    title (``프롤로그``)."""
    found = heading_match(text)
    if found is None:
        return " ".join(text.split())[:80]
    return (found.groupdict().get("title") or "").strip(" -:.·")[:80]


def heading_number(text: str) -> int | None:
    found = heading_match(text)
    if found is None:
        return None
    number = found.group("n")
    return int(number) if number.isdigit() else None


def measure(text: str, unit: str = "characters") -> int:
    """Length as platforms count it: characters with spaces (line breaks left out), or words."""
    if unit == "words":
        return len(text.split())
    return sum(len(line.strip()) for line in text.splitlines())


# ------------------------------------------------------------------------------ the split
def manuscript_lines(sources: Sequence[Source]) -> tuple[ManuscriptLine, ...]:
    """Every line of ``sources`` in order, a heading line marked (by its file or its form)."""
    out: list[ManuscriptLine] = []
    for index, source in enumerate(sources):
        for row, line in enumerate(source.lines, 1):
            heading = line.heading and bool(line.text.strip())
            out.append(ManuscriptLine(line.text, heading or heading_match(line.text) is not None,
                                      index, row))
    return tuple(out)


def split(sources: Sequence[Source]) -> Split:
    """Where each episode of ``sources`` starts: at each heading, and at the start of a file
    whose text does not open with one."""
    lines = manuscript_lines(sources)
    starts = [n for n, line in enumerate(lines)
              if line.heading or n == 0 or lines[n - 1].file != line.file]
    if not any(line.text.strip() for line in lines):
        raise InvalidInputError("error.manuscript.no_text")
    return Split(lines, tuple(starts), tuple(s.name for s in sources))


def merge(current: Split, episode: int, *, first: int = 1) -> Split:
    """``current`` with episode ``episode`` joined to the one before it (its boundary gone)."""
    episodes = current.episodes(first)
    index = episode - first
    if index < 1 or index >= len(episodes):
        raise InvalidInputError("error.manuscript.no_boundary", episode=episode,
                                first=first + 1, last=first + len(episodes) - 1)
    start = episodes[index].start
    return Split(current.lines, tuple(s for s in current.starts if s != start), current.files)


def split_at(current: Split, episode: int, paragraph: int, *, first: int = 1) -> Split:
    """``current`` with a new episode starting at paragraph ``paragraph`` (1-based, as
    :attr:`Episode.paragraphs` counts them: scene-break lines are not paragraphs) of episode
    ``episode``."""
    episodes = current.episodes(first)
    index = episode - first
    if index < 0 or index >= len(episodes):
        raise InvalidInputError("error.manuscript.no_episode", episode=episode,
                                first=first, last=first + len(episodes) - 1)
    chosen = episodes[index]
    count = len(chosen.paragraphs)
    if not 2 <= paragraph <= count:
        raise InvalidInputError("error.manuscript.no_paragraph", episode=episode,
                                paragraph=paragraph, last=count)
    seen = 0
    for n in range(chosen.start + (1 if chosen.heading else 0), len(current.lines)):
        text = current.lines[n].text.strip()
        if text and not marks().scene_break.match(text):  # counted as Episode.paragraphs
            seen += 1
            if seen == paragraph:
                return Split(current.lines, tuple(sorted({*current.starts, n})), current.files)
    raise InvalidInputError("error.manuscript.no_paragraph", episode=episode,
                            paragraph=paragraph, last=count)


def with_starts(current: Split, starts: Sequence[int]) -> Split:
    """``current`` with the start lines ``starts`` (a split adjusted before, replayed)."""
    clean = tuple(sorted({int(s) for s in starts if 0 <= int(s) < len(current.lines)}))
    if not clean:
        raise InvalidInputError("error.manuscript.no_text")
    return Split(current.lines, clean, current.files)


# ------------------------------------------------------------------------------ scenes
def scenes_of(lines: Sequence[str]) -> list[str]:
    """The scenes of an episode's body lines, each its paragraphs joined by a line break."""
    breaks = marks().scene_break
    gaps = _gaps(lines)
    usual = Counter(gaps).most_common(1)[0][0] if gaps else 0
    scenes: list[list[str]] = [[]]
    blank = 0
    for line in lines:
        text = line.strip()
        if not text:
            blank += 1
            continue
        if breaks.match(text):
            scenes.append([])
            blank = 0
            continue
        if blank > usual and scenes[-1]:
            scenes.append([])
        blank = 0
        scenes[-1].append(text)
    return _sized([s for s in scenes if s])


def _gaps(lines: Sequence[str]) -> list[int]:
    """The blank lines between each two text lines (a scene-break line between them: none)."""
    out, blank, seen = [], 0, False
    for line in lines:
        if not line.strip():
            blank += 1
        elif marks().scene_break.match(line.strip()):
            seen, blank = False, 0
        else:
            if seen:
                out.append(blank)
            seen, blank = True, 0
    return out


def _sized(scenes: list[list[str]]) -> list[str]:
    """Scenes of at least :data:`MIN_SCENE` characters (a short one joins its neighbour), at
    most :data:`MAX_SCENES` of them (the two shortest neighbours join)."""
    parts = [list(s) for s in scenes]
    n = 0
    while n < len(parts) and len(parts) > 1:
        if measure("\n".join(parts[n])) < MIN_SCENE:
            if n > 0:
                parts[n - 1] += parts.pop(n)
            else:
                parts[1] = parts[0] + parts[1]
                parts.pop(0)
            continue
        n += 1
    while len(parts) > MAX_SCENES:
        sizes = [measure("\n".join(a + b)) for a, b in pairwise(parts)]
        i = sizes.index(min(sizes))
        parts[i] += parts.pop(i + 1)
    return ["\n".join(p) for p in parts]


def gaps_in_numbers(current: Split) -> list[int]:
    """Episode numbers the headings skip (``1화``, ``2화``, ``4화``: 3), for the preview."""
    seen = [n for n in current.numbers() if n is not None]
    out: list[int] = []
    for a, b in pairwise(seen):
        if 0 < b - a <= 50:
            out += range(a + 1, b)
    return out


__all__ = ["MAX_SCENES", "MIN_SCENE", "Episode", "ManuscriptLine", "Split", "gaps_in_numbers",
           "heading_match", "heading_number", "heading_title", "manuscript_lines", "marks",
           "measure", "merge", "scenes_of", "split", "split_at", "with_starts"]
