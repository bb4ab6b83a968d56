"""The commit journal: every memory commit as one record, for recovery, undo and redo.

A commit is written to the journal (``pending``) *before* it touches Chroma, and marked ``done``
after its last write. A record holds everything the commit wrote: the new rows (ids, documents,
metadata, vectors) and the absolute metadata updates of existing rows (supersede marks,
reinforcement, paid-off foreshadowing), with the values those fields had before. So:

* recovery re-applies a ``pending`` commit whose rows reached Chroma (the updates are absolute,
  so applying them twice is the same as once) and drops one whose rows did not;
* undo deletes the rows and puts the prior values back, keeping the record (``undone``);
* redo puts back exactly the same rows and updates, with no model or embedding call.

The journal is a SQLite file beside an embedded store (in memory otherwise), or the server
database (``AIZAC_DATABASE_URL``), where the record of a commit a killed process left ``pending``
is finished or dropped by whichever process takes the project next. Finished records are kept
for the last :data:`KEEP` commits (undo reaches back that far); undone ones until redone.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, delete, func, select, update
from sqlalchemy.exc import DBAPIError

from aizac.errors import StorageError
from aizac.storage.database import EMBEDDED_FILES, Database, Scope
from aizac.storage.tables import commits

FILE_NAME = Path(EMBEDDED_FILES["journal"]).name

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


def journal_scope(path: str | Path | None) -> Scope:
    """The journal's rows beside an embedded store in ``path`` (``None``: in memory)."""
    if path is None:
        db = Database.sqlite(None)
        db.ensure("journal")
        return Scope(db)
    from aizac.storage.database import sqlite_file

    return Scope(sqlite_file(Path(path) / FILE_NAME, "journal"))


class CommitJournal:
    """The journal of one collection.

    Args:
        where: a folder (the SQLite file beside an embedded store), ``None`` (in memory), or
            the :class:`~aizac.storage.database.Scope` of a project on the server database.
        collection: the Chroma collection whose commits these are.
    """

    def __init__(self, where: str | Path | Scope | None, collection: str) -> None:
        self.collection = collection
        self.scope = where if isinstance(where, Scope) else journal_scope(where)
        self._lock = threading.Lock()
        self._mine = (commits.c.project == self.scope.project) & (commits.c.coll == collection)

    def _run(self, work: Callable[[Connection], Any], *, write: bool = True) -> Any:
        db = self.scope.db
        with self._lock:
            try:
                with (db.write if write else db.read)(db.where) as conn:
                    if write:
                        db.serialise(conn, self.scope.project)
                    return work(conn)
            except (StorageError, DBAPIError) as e:
                cause = e.text if isinstance(e, StorageError) else str(e)
                raise StorageError("error.memory.journal", cause=cause) from e

    def put(self, snap: CommitSnapshot, status: str) -> None:
        """Insert or replace the record of ``snap.batch`` with ``status`` (a new record gets
        the next sequence number; a replaced one keeps its own)."""
        def work(conn: Connection) -> None:
            following = select(func.coalesce(func.max(commits.c.seq), 0) + 1).where(
                self._mine).scalar_subquery()
            stmt = self.scope.db.insert(commits).values(
                project=self.scope.project, coll=self.collection, batch=snap.batch,
                seq=following, status=status, record=snap.to_json())
            conn.execute(stmt.on_conflict_do_update(
                index_elements=["project", "coll", "batch"],
                set_={"status": stmt.excluded.status, "record": stmt.excluded.record}))

        self._run(work)

    def _batch(self, batch: str) -> Any:
        return self._mine & (commits.c.batch == batch)

    def set_status(self, batch: str, status: str) -> None:
        self._run(lambda conn: conn.execute(
            update(commits).where(self._batch(batch)).values(status=status)))

    def drop(self, batch: str) -> None:
        self._run(lambda conn: conn.execute(delete(commits).where(self._batch(batch))))

    def get(self, batch: str) -> tuple[CommitSnapshot, str] | None:
        """The record of ``batch`` and its status, or ``None``."""
        row = self._run(lambda conn: conn.execute(
            select(commits.c.record, commits.c.status).where(self._batch(batch))).first(),
            write=False)
        return (CommitSnapshot.from_json(row[0]), str(row[1])) if row else None

    def with_status(self, status: str) -> list[CommitSnapshot]:
        """Records with ``status``, oldest first."""
        rows = self._run(lambda conn: conn.execute(
            select(commits.c.record).where(self._mine, commits.c.status == status)
            .order_by(commits.c.seq)).scalars().all(), write=False)
        return [CommitSnapshot.from_json(r) for r in rows]

    def records(self) -> list[tuple[CommitSnapshot, str]]:
        """Every record with its status, oldest first (a reindex re-embeds them)."""
        rows = self._run(lambda conn: conn.execute(
            select(commits.c.record, commits.c.status).where(self._mine)
            .order_by(commits.c.seq)).all(), write=False)
        return [(CommitSnapshot.from_json(r[0]), str(r[1])) for r in rows]

    def clear(self) -> None:
        """Drop every record of this collection (the collection a reindex replaced)."""
        self._run(lambda conn: conn.execute(delete(commits).where(self._mine)))

    def set_summary(self, batch: str, summary: str) -> None:
        found = self.get(batch)
        if found is not None:
            snap, status = found
            snap.summary = summary
            self.put(snap, status)

    def prune(self, keep: int) -> None:
        """Drop finished records older than the newest ``keep`` (undone ones stay for redo)."""
        def work(conn: Connection) -> None:
            newest = conn.execute(select(func.coalesce(func.max(commits.c.seq), 0))
                                  .where(self._mine)).scalar() or 0
            conn.execute(delete(commits).where(self._mine, commits.c.status == DONE,
                                               commits.c.seq <= int(newest) - int(keep)))

        self._run(work)

    def close(self) -> None:
        """Nothing to close: connections belong to the database's pool."""


ABSENT: dict[str, Any] = {"ended_turn": -1, "struck": False}
"""What a field written after a memory was means for that memory (a memory written before
validity was recorded is current and not struck); any other absent field is ``""``."""


def prior_values(meta: Mapping[str, Any], update: Mapping[str, Any]) -> dict[str, Any]:
    """The values ``update``'s fields have in ``meta`` (:data:`ABSENT` or ``""`` for an
    absent field), so undo writes back a value of the field's own type."""
    return {key: meta.get(key, ABSENT.get(key, "")) for key in update}


__all__ = ["DONE", "PENDING", "UNDONE", "CommitJournal", "CommitSnapshot", "prior_values"]
