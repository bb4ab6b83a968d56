"""The commit journal: every memory commit as one record, for recovery, undo and redo.

A commit is written to the journal (``pending``) *before* it touches Chroma, and marked ``done``
after its last write. A record holds everything the commit wrote: the new rows (ids, documents,
metadata, vectors) and the absolute metadata updates of existing rows (supersede marks,
reinforcement, paid-off foreshadowing), with the values those fields had before. So:

* recovery re-applies a ``pending`` commit whose rows reached Chroma (the updates are absolute,
  so applying them twice is the same as once) and drops one whose rows did not;
* undo deletes the rows and puts the prior values back, keeping the record (``undone``);
* redo puts back exactly the same rows and updates, with no model or embedding call.

The journal is a SQLite file beside an embedded store (in memory otherwise). Finished records
are kept for the last :data:`KEEP` commits (undo reaches back that far); undone ones until redone.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aizac.errors import StorageError

FILE_NAME = "aizac-commits.sqlite3"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS commits (
    coll TEXT NOT NULL, batch TEXT NOT NULL, seq INTEGER NOT NULL, status TEXT NOT NULL,
    record TEXT NOT NULL, PRIMARY KEY (coll, batch)
);
CREATE INDEX IF NOT EXISTS commits_status ON commits (coll, status);
"""

PENDING, DONE, UNDONE = "pending", "done", "undone"
KEEP = 100


@dataclass
class CommitSnapshot:
    """Exactly what one commit wrote (see the module docstring).

    Attributes:
        batch: the commit's id (every row it added carries it as ``batch`` metadata).
        turn: the story turn the commit was made at.
        ids, documents, metadatas, embeddings: the rows it added, in order.
        updates: memory id -> metadata fields it set on an existing row.
        prior: memory id -> the values those fields had before.
        summary: the beat summary recorded with the commit (``""`` if none).
    """

    batch: str
    turn: int
    ids: list[str] = field(default_factory=list)
    documents: list[str] = field(default_factory=list)
    metadatas: list[dict[str, Any]] = field(default_factory=list)
    embeddings: list[list[float]] = field(default_factory=list, repr=False)
    updates: dict[str, dict[str, Any]] = field(default_factory=dict)
    prior: dict[str, dict[str, Any]] = field(default_factory=dict)
    summary: str = ""

    def to_json(self) -> str:
        return json.dumps(self.__dict__, ensure_ascii=False)

    @classmethod
    def from_json(cls, raw: str) -> CommitSnapshot:
        return cls(**json.loads(raw))


class CommitJournal:
    """The journal of one collection (a SQLite file in ``path``, or in memory)."""

    def __init__(self, path: str | Path | None, collection: str) -> None:
        self.collection = collection
        target = ":memory:" if path is None else str(Path(path) / FILE_NAME)
        try:
            self._db = sqlite3.connect(target, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            # WAL + NORMAL survives a killed process (what recovery is for) without an fsync
            # per commit; only a power cut can lose the newest records.
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)
        except sqlite3.Error as e:
            raise StorageError("error.memory.open_journal", path=str(target), cause=str(e)) from e
        self._lock = threading.Lock()

    def _exec(self, sql: str, args: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        with self._lock:
            try:
                return list(self._db.execute(sql, args))
            except sqlite3.Error as e:
                raise StorageError("error.memory.journal", cause=str(e)) from e

    def put(self, snap: CommitSnapshot, status: str) -> None:
        """Insert or replace the record of ``snap.batch`` with ``status``."""
        self._exec(
            "INSERT OR REPLACE INTO commits VALUES (?, ?, "
            "COALESCE((SELECT seq FROM commits WHERE coll = ? AND batch = ?), "
            "(SELECT COALESCE(MAX(seq), 0) + 1 FROM commits WHERE coll = ?)), ?, ?)",
            (self.collection, snap.batch, self.collection, snap.batch, self.collection, status,
             snap.to_json()),
        )

    def set_status(self, batch: str, status: str) -> None:
        self._exec(
            "UPDATE commits SET status = ? WHERE coll = ? AND batch = ?",
            (status, self.collection, batch),
        )

    def drop(self, batch: str) -> None:
        self._exec("DELETE FROM commits WHERE coll = ? AND batch = ?", (self.collection, batch))

    def get(self, batch: str) -> tuple[CommitSnapshot, str] | None:
        """The record of ``batch`` and its status, or ``None``."""
        rows = self._exec(
            "SELECT record, status FROM commits WHERE coll = ? AND batch = ?",
            (self.collection, batch),
        )
        return (CommitSnapshot.from_json(rows[0][0]), str(rows[0][1])) if rows else None

    def with_status(self, status: str) -> list[CommitSnapshot]:
        """Records with ``status``, oldest first."""
        rows = self._exec(
            "SELECT record FROM commits WHERE coll = ? AND status = ? ORDER BY seq",
            (self.collection, status),
        )
        return [CommitSnapshot.from_json(r[0]) for r in rows]

    def records(self) -> list[tuple[CommitSnapshot, str]]:
        """Every record with its status, oldest first (a reindex re-embeds them)."""
        rows = self._exec(
            "SELECT record, status FROM commits WHERE coll = ? ORDER BY seq", (self.collection,)
        )
        return [(CommitSnapshot.from_json(r[0]), str(r[1])) for r in rows]

    def clear(self) -> None:
        """Drop every record of this collection (the collection a reindex replaced)."""
        self._exec("DELETE FROM commits WHERE coll = ?", (self.collection,))

    def set_summary(self, batch: str, summary: str) -> None:
        found = self.get(batch)
        if found is not None:
            snap, status = found
            snap.summary = summary
            self.put(snap, status)

    def prune(self, keep: int) -> None:
        """Drop finished records older than the newest ``keep`` (undone ones stay for redo)."""
        self._exec(
            "DELETE FROM commits WHERE coll = ? AND status = ? AND seq <= "
            "(SELECT COALESCE(MAX(seq), 0) FROM commits WHERE coll = ?) - ?",
            (self.collection, DONE, self.collection, int(keep)),
        )

    def close(self) -> None:
        with self._lock:
            self._db.close()


def prior_values(meta: Mapping[str, Any], update: Mapping[str, Any]) -> dict[str, Any]:
    """The values ``update``'s fields have in ``meta`` (``""`` for an absent field)."""
    return {key: meta.get(key, "") for key in update}


__all__ = ["DONE", "PENDING", "UNDONE", "CommitJournal", "CommitSnapshot", "prior_values"]
