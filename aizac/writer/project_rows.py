"""Rows of a project database as records: beats, plot, steps (parsing with a cache; pure).

The tables are :mod:`aizac.storage.tables`; a row here is any mapping of column to value."""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from aizac.errors import AizacError, DamagedError

if TYPE_CHECKING:  # imported where rows are parsed: listing projects needs no schema
    from aizac.writer.schemas import CharacterProfile, NovelBeat, NovelPlot

BeatStatus = Literal["draft", "accepted", "rejected"]
IMPORTED = "manuscript"
"""The :attr:`BeatRecord.instruction` of a beat saved from an imported manuscript (the writer's
own scene, not a design of the planner): its episode is whole as imported."""
UNREAD_CAST = "?"
"""Who an imported beat names before the manuscript is read into memory (a design needs one)."""


@dataclass(frozen=True)
class ProjectInfo:
    """A project as a list shows it. ``problem``: why it cannot be opened (a damaged file,
    :class:`~aizac.errors.DamagedError`, or another store error); the other fields are then
    what is known without reading it (its name from its folder)."""

    name: str
    language: str
    genre: str
    keywords: list[str]
    path: Path
    created_at: float
    problem: AizacError | None = None

    @property
    def damaged(self) -> bool:
        """Whether a stored file of the project is damaged (see :attr:`problem`)."""
        return isinstance(self.problem, DamagedError)

    @classmethod
    def unreadable(cls, name: str, path: Path, problem: AizacError) -> ProjectInfo:
        """A project that could not be read: its name, and ``problem`` (dated by its folder)."""
        try:
            when = path.stat().st_mtime
        except OSError:
            when = 0.0
        return cls(name=name, language="", genre="", keywords=[], path=path, created_at=when,
                   problem=problem)


def project_info(meta: Mapping[str, str], directory: Path) -> ProjectInfo:
    """A project's :class:`ProjectInfo` from its meta rows (pure)."""
    return ProjectInfo(
        name=meta.get("name", directory.name),
        language=meta.get("language", "ko"),
        genre=meta.get("genre", ""),
        keywords=json.loads(meta.get("keywords", "[]")),
        path=directory,
        created_at=float(meta.get("created_at", "0")),
    )


@dataclass
class PlotRecord:
    plot: NovelPlot
    tropes: str
    memory_ids: list[str]
    version: int


@dataclass
class BeatRecord:
    """A stored beat: its design, status, prose and bookkeeping."""

    id: int
    episode: int
    index: int
    status: BeatStatus
    beat: NovelBeat
    version: int
    new_characters: list[CharacterProfile] = field(default_factory=list)
    instruction: str = ""
    memory_ids: list[str] = field(default_factory=list)
    written: list[str] = field(default_factory=list)
    """The draft's fields the writer wrote (edited or locked): a regeneration keeps them
    until the writer unlocks them. Stored and versioned with the draft."""
    summary: str = ""
    prose: str | None = None

    @property
    def imported(self) -> bool:
        """Whether the beat is a scene of an imported manuscript (:data:`IMPORTED`)."""
        return self.instruction == IMPORTED


@dataclass(frozen=True)
class Step:
    id: int
    at: float
    kind: str
    detail: dict[str, Any]


def dump_profiles(profiles: list[CharacterProfile] | None) -> str:
    return json.dumps([p.model_dump() for p in profiles or []], ensure_ascii=False)


@functools.lru_cache(maxsize=1024)
def parse_beat(text: str) -> NovelBeat:
    # Rows are re-read often (every list of beats); parsing each design once keeps a beat's
    # work from growing with the novel. Keyed by the stored text, so an edit is a new entry.
    from aizac.writer.schemas import NovelBeat

    return NovelBeat.model_validate_json(text)


@functools.lru_cache(maxsize=1024)
def parse_profiles(text: str) -> tuple[CharacterProfile, ...]:
    from aizac.writer.schemas import CharacterProfile

    return tuple(CharacterProfile(**p) for p in json.loads(text))


def plot_record(row: Mapping[Any, Any]) -> PlotRecord:
    from aizac.writer.schemas import NovelPlot  # here: listing projects reads no plot

    return PlotRecord(
        plot=NovelPlot.model_validate_json(row["json"]),
        tropes=row["tropes"],
        memory_ids=json.loads(row["memory_ids"]),
        version=row["version"],
    )


def beat_record(row: Mapping[Any, Any]) -> BeatRecord:
    return BeatRecord(
        id=row["id"],
        episode=row["episode"],
        index=row["idx"],
        status=row["status"],
        beat=parse_beat(row["json"]).model_copy(),
        version=row["version"],
        new_characters=[p.model_copy() for p in parse_profiles(row["new_characters"])],
        instruction=row["instruction"],
        written=list(json.loads(row["written"])),
        memory_ids=json.loads(row["memory_ids"]),
        summary=row["summary"],
        prose=row["prose"],
    )
