"""A small index of each memory's exact keys, so keyed lookups do not scan Chroma.

Chroma 1.5 (embedded) answers ``get(where=...)`` in time that grows with the whole collection,
even for one match, while ``get(ids=...)`` does not. This index maps the exact keys (tag,
character, relation pair, foreshadowing) to ids, with a *hint* of each memory's ``live_until``.

It is a cache that may say too much but never too little: every id in Chroma has a row, and a
row's ``live`` hint is never below the stored ``live_until`` (callers raise the hint before a
Chroma write that raises it, and lower it only after a Chroma write that lowers it). Readers
fetch the candidate ids from Chroma by id and re-check them there, so answers are exact even
after a crash between the two writes. A missing or short index is rebuilt from Chroma on open.

Its rows live in a SQLite file beside an embedded store (``aizac-keys.sqlite3``), in memory, or
in the server database (``AIZAC_DATABASE_URL``), where every process serving the project reads
the same index.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from sqlalchemy import (
    Connection,
    bindparam,
    case,
    delete,
    func,
    select,
    union_all,
    update,
)
from sqlalchemy.exc import DBAPIError

from aizac.errors import StorageError
from aizac.memory.facts import fact_slot, fact_subject, text_key
from aizac.memory.records import NEVER
from aizac.storage.database import EMBEDDED_FILES, Database, Scope
from aizac.storage.tables import keys

FILE_NAME = Path(EMBEDDED_FILES["keys"]).name

KEY_COLUMNS = {
    "tag": "tag",
    "character_name": "name",
    "character1": "c1",
    "character2": "c2",
    "foreshadow": "foreshadow",
    "slot": "slot",
    "subject": "subject",
    "fp": "fp",
}
"""Metadata keys the index can answer equality questions about (metadata key -> column)."""

IN_CHUNK = 500
"""Values per ``IN (...)`` clause (below SQLite's and PostgreSQL's bound-parameter limits)."""


CURRENT_FLOOR = NEVER / 2
"""The lowest hint of a current (not superseded) memory: above :data:`NEVER`, so a forgotten or
struck current version keeps a hint above its superseded ones and a slot's holders are found
without reading every old version of the fact (``live_from=CURRENT_FLOOR``)."""


def live_hint(live: float, superseded: bool) -> float:
    """The index hint of a memory whose ``live_until`` is ``live``: never below it, and at
    least :data:`CURRENT_FLOOR` unless the memory is known to be superseded."""
    return float(live) if superseded else max(float(live), CURRENT_FLOOR)


def fingerprint(tag: str, subject: str, text: str) -> str:
    """Key of a fact's normalised text within its tag and subject (restatement lookups)."""
    return f"{tag}|{subject}|{text_key(text)}"[:512]


def key_row(memory_id: str, meta: Mapping[str, Any], text: str = "") -> dict[str, Any]:
    """The index row of one memory (without the collection name).

    Besides the keys it keeps what never changes after a memory is written and what the cast
    needs (aliases, and chapter / beat / creation turn for the newest-first order), so
    :meth:`KeyIndex.cast` answers without reading Chroma."""
    tag = str(meta.get("tag", ""))
    subject = fact_subject(meta)
    return {
        "id": memory_id,
        "tag": tag,
        "name": str(meta.get("character_name", "")),
        "c1": str(meta.get("character1", "")),
        "c2": str(meta.get("character2", "")),
        "foreshadow": int(bool(meta.get("foreshadow", False))),
        "live": live_hint(float(meta.get("live_until", 0.0)), bool(meta.get("superseded_by"))),
        "slot": fact_slot(meta),
        "subject": subject,
        "fp": fingerprint(tag, subject, text) if text else "",
        "aliases": str(meta.get("aliases", "")),
        "chapter": int(meta.get("chapter", 0) or 0),
        "beat": int(meta.get("beat", 0) or 0),
        "created": int(meta.get("created_turn", 0) or 0),
    }


def index_scope(path: str | Path | None) -> Scope:
    """The index's rows beside an embedded store in ``path`` (``None``: in memory)."""
    if path is None:
        db = Database.sqlite(None)
        db.ensure("keys")
        return Scope(db)
    from aizac.storage.database import sqlite_file

    return Scope(sqlite_file(Path(path) / FILE_NAME, "keys"))


class KeyIndex:
    """Exact-key index for one collection.

    Args:
        where: a folder (the SQLite file beside an embedded store), ``None`` (in memory), or
            the :class:`~aizac.storage.database.Scope` of a project on the server database.
        collection: the Chroma collection the rows describe.
    """

    def __init__(self, where: str | Path | Scope | None, collection: str) -> None:
        self.collection = collection
        self.scope = where if isinstance(where, Scope) else index_scope(where)
        self._lock = threading.Lock()
        t = keys.c
        self._mine = (t.project == self.scope.project) & (t.coll == collection)

    def _tx(self, work: Callable[[Connection], Any]) -> Any:
        db = self.scope.db
        with self._lock:
            try:
                with db.write(db.where) as conn:
                    db.serialise(conn, self.scope.project)
                    return work(conn)
            except (StorageError, DBAPIError) as e:
                cause = e.text if isinstance(e, StorageError) else str(e)
                raise StorageError("error.memory.index", cause=cause) from e

    def _rows(self, query: Any) -> list[Any]:
        db = self.scope.db
        try:
            with self._lock, db.read(db.where) as conn:
                return list(conn.execute(query).all())
        except StorageError as e:
            raise StorageError("error.memory.index_read", cause=e.text) from e

    def count(self) -> int:
        """Rows for this collection."""
        return int(self._rows(select(func.count()).select_from(keys).where(self._mine))[0][0])

    def add(self, rows: Iterable[tuple[str, Mapping[str, Any], str]]) -> None:
        """Insert or replace the rows of ``(id, metadata, text)`` triples."""
        values = [{"project": self.scope.project, "coll": self.collection,
                   **key_row(mid, meta, text)} for mid, meta, text in rows]
        if not values:
            return
        stmt = self.scope.db.insert(keys)
        update_all = {c.name: stmt.excluded[c.name] for c in keys.columns
                      if c.name not in ("project", "coll", "id")}
        self._tx(lambda conn: conn.execute(stmt.on_conflict_do_update(
            index_elements=["project", "coll", "id"], set_=update_all), values))

    def _set(self, lives: Mapping[str, float], value: Callable[[Any], Any]) -> None:
        if not lives:
            return

        # One statement run for all rows (executemany), not one UPDATE per row.
        stmt = update(keys).where(self._mine, keys.c.id == bindparam("mid")).values(
            live=value(bindparam("value")))
        rows = [{"mid": mid, "value": float(live)} for mid, live in lives.items()]
        self._tx(lambda conn: conn.execute(stmt, rows))

    def set_live(self, lives: Mapping[str, float]) -> None:
        """Set the ``live`` hint of existing rows."""
        self._set(lives, lambda v: v)

    def raise_live(self, lives: Mapping[str, float]) -> None:
        """Raise the ``live`` hint of existing rows to at least the given values."""
        self._set(lives, lambda v: case((keys.c.live < v, v), else_=keys.c.live))

    def delete(self, ids: Iterable[str]) -> None:
        """Drop rows (after the memories left Chroma)."""
        chosen = list(ids)
        if chosen:
            self._tx(lambda conn: conn.execute(
                delete(keys).where(self._mine, keys.c.id.in_(chosen))))

    def clear(self) -> None:
        """Drop every row of this collection."""
        self._tx(lambda conn: conn.execute(delete(keys).where(self._mine)))

    def ids(self, equal: Mapping[str, Any], *, live_from: float | None) -> list[str]:
        """Ids whose keys equal ``equal`` (metadata names, see :data:`KEY_COLUMNS`) and whose
        hint is at least ``live_from`` (``None``: any)."""
        query = select(keys.c.id).where(self._mine)
        for key, value in equal.items():
            column = keys.c[KEY_COLUMNS[key]]
            query = query.where(column == (int(value) if isinstance(value, bool) else str(value)))
        if live_from is not None:
            query = query.where(keys.c.live >= float(live_from))
        return [str(r[0]) for r in self._rows(query)]

    def in_slots(self, slots: Iterable[str], *, live_from: float | None) -> list[str]:
        """Ids whose slot is one of ``slots`` and whose hint is at least ``live_from``
        (``None``: any): what :meth:`ids` answers for each ``{"slot": s}``, for many slots in
        one read per :data:`IN_CHUNK` slots."""
        chosen = sorted(set(slots))
        out: list[str] = []
        for start in range(0, len(chosen), IN_CHUNK):
            query = select(keys.c.id).where(self._mine,
                                            keys.c.slot.in_(chosen[start:start + IN_CHUNK]))
            if live_from is not None:
                query = query.where(keys.c.live >= float(live_from))
            out.extend(str(r[0]) for r in self._rows(query))
        return out

    def slot_prefix(self, prefix: str, *, live_from: float) -> list[str]:
        """Ids whose slot starts with ``prefix`` (e.g. ``"rule|"``) and hint >= ``live_from``."""
        pattern = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        query = select(keys.c.id).where(self._mine, keys.c.slot.like(pattern, escape="\\"),
                                        keys.c.live >= float(live_from))
        return [str(r[0]) for r in self._rows(query)]

    def cast(self, *, live_from: float) -> list[tuple[str, str, str, float]]:
        """``(id, character_name, aliases, live hint)`` of the Character rows whose hint is at
        least ``live_from``, newest first (chapter, beat, creation turn, id)."""
        t = keys.c
        query = select(t.id, t.name, t.aliases, t.live).where(
            self._mine, t.tag == "Character", t.live >= float(live_from),
        ).order_by(t.chapter.desc(), t.beat.desc(), t.created.desc(), t.id.desc())
        return [(str(r[0]), str(r[1]), str(r[2]), float(r[3])) for r in self._rows(query)]

    def about(self, subject: str, tag: str, *, live_from: float, notes: int) -> list[str]:
        """Ids of ``tag`` memories about ``subject`` with hint >= ``live_from``: every one that
        holds a slot (a current state: at most one per aspect) and the newest ``notes``
        without one, so the answer does not grow with what the novel said about them."""
        t = keys.c
        mine = (self._mine, t.subject == subject, t.tag == tag, t.live >= float(live_from))
        held = select(t.id).where(*mine, t.slot != "")
        newest = select(t.id).where(*mine, t.slot == "").order_by(
            t.chapter.desc(), t.beat.desc(), t.created.desc(), t.id.desc()).limit(int(notes))
        both = union_all(held, select(newest.subquery().c.id))
        return [str(r[0]) for r in self._rows(both)]

    def among(self, names: Iterable[str], *, live_from: float) -> list[str]:
        """Ids of the CharacterRelation rows whose pair are both in ``names`` (canonical,
        as stored) and whose hint is at least ``live_from``: the relations among a scene's
        cast in one read, however many pairs it has."""
        chosen = sorted(set(names))
        if len(chosen) < 2:
            return []
        t = keys.c
        query = select(t.id).where(self._mine, t.tag == "CharacterRelation",
                                   t.c1.in_(chosen), t.c2.in_(chosen),
                                   t.live >= float(live_from))
        return [str(r[0]) for r in self._rows(query)]

    def slotted(self, subject: str, tag: str) -> list[str]:
        """Ids of ``tag`` memories about ``subject`` that hold a slot, whatever their hint
        (current states, faded or not, and their superseded versions)."""
        t = keys.c
        query = select(t.id).where(self._mine, t.subject == subject, t.tag == tag, t.slot != "")
        return [str(r[0]) for r in self._rows(query)]

    def close(self) -> None:
        """Nothing to close: connections belong to the database's pool."""


def simple_equalities(where: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """``where`` as ``{key: value}`` if it is only equalities on indexed keys, else ``None``.

    Accepts ``{"k": v}``, ``{"k": {"$eq": v}}``, several keys, and an ``$and`` of those.
    """
    if not where:
        return {}
    clauses = list(where["$and"]) if set(where) == {"$and"} else [{k: v} for k, v in where.items()]
    out: dict[str, Any] = {}
    for clause in clauses:
        if not isinstance(clause, Mapping) or len(clause) != 1:
            return None
        ((key, value),) = clause.items()
        if key not in KEY_COLUMNS:
            return None
        if isinstance(value, Mapping):
            if set(value) != {"$eq"}:
                return None
            value = value["$eq"]
        wanted = bool if key == "foreshadow" else str
        if key in ("slot", "subject", "fp"):
            return None  # derived keys: not stored in Chroma, asked through KeyIndex.ids
        if not isinstance(value, wanted) or (key in out and out[key] != value):
            return None
        out[key] = value
    return out
