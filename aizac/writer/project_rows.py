"""Rows of a project database as records: beats, plot, steps (parsing with a cache; pure)."""

from __future__ import annotations

import functools
import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:  # imported where rows are parsed: listing projects needs no schema
    from aizac.writer.schemas import CharacterProfile, NovelBeat, NovelPlot

BeatStatus = Literal["draft", "accepted", "rejected"]
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS plot (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    json TEXT NOT NULL,
    tropes TEXT NOT NULL DEFAULT '',
    memory_ids TEXT NOT NULL DEFAULT '[]',
    version INTEGER NOT NULL DEFAULT 1,
    updated_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS episodes (
    number INTEGER PRIMARY KEY,
    title TEXT NOT NULL,
    version INTEGER NOT NULL DEFAULT 1
);
CREATE TABLE IF NOT EXISTS beats (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    episode INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('draft', 'accepted', 'rejected')),
    json TEXT NOT NULL,
    new_characters TEXT NOT NULL DEFAULT '[]',
    instruction TEXT NOT NULL DEFAULT '',
    written TEXT NOT NULL DEFAULT '[]',
    memory_ids TEXT NOT NULL DEFAULT '[]',
    summary TEXT NOT NULL DEFAULT '',
    prose TEXT,
    version INTEGER NOT NULL DEFAULT 1,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS beats_slot ON beats(episode, idx) WHERE status != 'rejected';
CREATE TABLE IF NOT EXISTS kv (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    version INTEGER NOT NULL DEFAULT 1
);
CREATE TABLE IF NOT EXISTS steps (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at REAL NOT NULL,
    kind TEXT NOT NULL,
    detail TEXT NOT NULL DEFAULT '{}'
);
"""
COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("beats", "written", "TEXT NOT NULL DEFAULT '[]'"),
)
"""Columns added after a table's first release: (table, column, declaration); a database
made before them gets them on open (``CREATE TABLE IF NOT EXISTS`` leaves old tables alone)."""


def add_missing_columns(db: sqlite3.Connection) -> None:
    """Add the :data:`COLUMNS` an older project database lacks."""
    for table, column, declaration in COLUMNS:
        have = {r[1] for r in db.execute(f"PRAGMA table_info({table})")}
        if column not in have:
            db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")


@dataclass(frozen=True)
class ProjectInfo:
    name: str
    language: str
    genre: str
    keywords: list[str]
    path: Path
    created_at: float


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


def plot_record(row: sqlite3.Row) -> PlotRecord:
    from aizac.writer.schemas import NovelPlot  # here: listing projects reads no plot

    return PlotRecord(
        plot=NovelPlot.model_validate_json(row["json"]),
        tropes=row["tropes"],
        memory_ids=json.loads(row["memory_ids"]),
        version=row["version"],
    )


def beat_record(row: sqlite3.Row) -> BeatRecord:
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
