"""A small SQLite index of each memory's exact keys, so keyed lookups do not scan Chroma.

Chroma 1.5 (embedded) answers ``get(where=...)`` in time that grows with the whole collection,
even for one match, while ``get(ids=...)`` does not. This index maps the exact keys (tag,
character, relation pair, foreshadowing) to ids, with a *hint* of each memory's ``live_until``.

It is a cache that may say too much but never too little: every id in Chroma has a row, and a
row's ``live`` hint is never below the stored ``live_until`` (callers raise the hint before a
Chroma write that raises it, and lower it only after a Chroma write that lowers it). Readers
fetch the candidate ids from Chroma by id and re-check them there, so answers are exact even
after a crash between the two writes. A missing or short index is rebuilt from Chroma on open.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from aizac.errors import StorageError
from aizac.memory.facts import fact_slot, fact_subject, text_key

FILE_NAME = "aizac-keys.sqlite3"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS keys (
    coll TEXT NOT NULL, id TEXT NOT NULL, tag TEXT NOT NULL, name TEXT NOT NULL,
    c1 TEXT NOT NULL, c2 TEXT NOT NULL, foreshadow INTEGER NOT NULL, live REAL NOT NULL,
    slot TEXT NOT NULL, subject TEXT NOT NULL, fp TEXT NOT NULL,
    aliases TEXT NOT NULL, chapter INTEGER NOT NULL, beat INTEGER NOT NULL,
    created INTEGER NOT NULL,
    PRIMARY KEY (coll, id)
);
CREATE INDEX IF NOT EXISTS keys_slot ON keys (coll, slot, live);
CREATE INDEX IF NOT EXISTS keys_subject ON keys (coll, subject, tag, live);
CREATE INDEX IF NOT EXISTS keys_fp ON keys (coll, fp, live);
CREATE INDEX IF NOT EXISTS keys_name ON keys (coll, name, tag, live);
CREATE INDEX IF NOT EXISTS keys_pair ON keys (coll, c1, c2, live);
CREATE INDEX IF NOT EXISTS keys_tag ON keys (coll, tag, live);
CREATE INDEX IF NOT EXISTS keys_foreshadow ON keys (coll, foreshadow, live);
CREATE INDEX IF NOT EXISTS keys_live ON keys (coll, live);
"""

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


def fingerprint(tag: str, subject: str, text: str) -> str:
    """Key of a fact's normalised text within its tag and subject (restatement lookups)."""
    return f"{tag}|{subject}|{text_key(text)}"[:512]


def key_row(memory_id: str, meta: Mapping[str, Any], text: str = "") -> tuple[Any, ...]:
    """The index row of one memory (without the collection name).

    Besides the keys it keeps what never changes after a memory is written and what the cast
    needs (aliases, and chapter / beat / creation turn for the newest-first order), so
    :meth:`KeyIndex.cast` answers without reading Chroma."""
    tag = str(meta.get("tag", ""))
    subject = fact_subject(meta)
    return (
        memory_id,
        str(meta.get("tag", "")),
        str(meta.get("character_name", "")),
        str(meta.get("character1", "")),
        str(meta.get("character2", "")),
        int(bool(meta.get("foreshadow", False))),
        float(meta.get("live_until", 0.0)),
        fact_slot(meta),
        subject,
        fingerprint(tag, subject, text) if text else "",
        str(meta.get("aliases", "")),
        int(meta.get("chapter", 0) or 0),
        int(meta.get("beat", 0) or 0),
        int(meta.get("created_turn", 0) or 0),
    )


class KeyIndex:
    """Exact-key index for one collection, in a SQLite file (or in memory when ``path=None``)."""

    def __init__(self, path: str | Path | None, collection: str) -> None:
        self.collection = collection
        target = ":memory:" if path is None else str(Path(path) / FILE_NAME)
        try:
            self._db = sqlite3.connect(target, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")  # a cache, rebuilt if ever short
            columns = {row[1] for row in self._db.execute("PRAGMA table_info(keys)")}
            if columns and "created" not in columns:  # an older layout: a cache, rebuilt
                self._db.execute("DROP TABLE keys")
            self._db.executescript(_SCHEMA)
        except sqlite3.Error as e:
            raise StorageError("error.memory.open_index", path=str(target), cause=str(e)) from e
        self._lock = threading.Lock()

    def _run(self, sql: str, rows: Iterable[Sequence[Any]] | None = None) -> None:
        with self._lock:
            try:
                self._db.execute("BEGIN")
                if rows is None:
                    self._db.execute(sql)
                else:
                    self._db.executemany(sql, rows)
                self._db.execute("COMMIT")
            except sqlite3.Error as e:
                self._db.execute("ROLLBACK")
                raise StorageError("error.memory.index", cause=str(e)) from e

    def count(self) -> int:
        """Rows for this collection."""
        with self._lock:
            cur = self._db.execute("SELECT COUNT(*) FROM keys WHERE coll = ?", (self.collection,))
            return int(cur.fetchone()[0])

    def add(self, rows: Iterable[tuple[str, Mapping[str, Any], str]]) -> None:
        """Insert or replace the rows of ``(id, metadata, text)`` triples."""
        self._run(
            "INSERT OR REPLACE INTO keys VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(self.collection, *key_row(mid, meta, text)) for mid, meta, text in rows],
        )

    def set_live(self, lives: Mapping[str, float]) -> None:
        """Set the ``live`` hint of existing rows."""
        self._run(
            "UPDATE keys SET live = ? WHERE coll = ? AND id = ?",
            [(float(v), self.collection, mid) for mid, v in lives.items()],
        )

    def raise_live(self, lives: Mapping[str, float]) -> None:
        """Raise the ``live`` hint of existing rows to at least the given values."""
        self._run(
            "UPDATE keys SET live = MAX(live, ?) WHERE coll = ? AND id = ?",
            [(float(v), self.collection, mid) for mid, v in lives.items()],
        )

    def delete(self, ids: Iterable[str]) -> None:
        """Drop rows (after the memories left Chroma)."""
        self._run("DELETE FROM keys WHERE coll = ? AND id = ?", [(self.collection, i) for i in ids])

    def clear(self) -> None:
        """Drop every row of this collection."""
        self._run("DELETE FROM keys WHERE coll = ?", [(self.collection,)])

    def ids(self, equal: Mapping[str, Any], *, live_from: float | None) -> list[str]:
        """Ids whose keys equal ``equal`` (metadata names, see :data:`KEY_COLUMNS`) and whose
        hint is at least ``live_from`` (``None``: any)."""
        sql = ["SELECT id FROM keys WHERE coll = ?"]
        args: list[Any] = [self.collection]
        for key, value in equal.items():
            sql.append(f"AND {KEY_COLUMNS[key]} = ?")
            args.append(int(value) if isinstance(value, bool) else str(value))
        if live_from is not None:
            sql.append("AND live >= ?")
            args.append(float(live_from))
        with self._lock:
            return [row[0] for row in self._db.execute(" ".join(sql), args)]

    def slot_prefix(self, prefix: str, *, live_from: float) -> list[str]:
        """Ids whose slot starts with ``prefix`` (e.g. ``"rule|"``) and hint >= ``live_from``."""
        pattern = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        with self._lock:
            rows = self._db.execute(
                "SELECT id FROM keys WHERE coll = ? AND slot LIKE ? ESCAPE '\\' AND live >= ?",
                (self.collection, pattern, float(live_from)),
            )
            return [row[0] for row in rows]

    def cast(self, *, live_from: float) -> list[tuple[str, str, str, float]]:
        """``(id, character_name, aliases, live hint)`` of the Character rows whose hint is at
        least ``live_from``, newest first (chapter, beat, creation turn, id)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, name, aliases, live FROM keys WHERE coll = ? AND tag = 'Character'"
                " AND live >= ? ORDER BY chapter DESC, beat DESC, created DESC, id DESC",
                (self.collection, float(live_from)),
            )
            return [(str(r[0]), str(r[1]), str(r[2]), float(r[3])) for r in rows]

    def about(self, subject: str, tag: str, *, live_from: float, notes: int) -> list[str]:
        """Ids of ``tag`` memories about ``subject`` with hint >= ``live_from``: every one that
        holds a slot (a current state: at most one per aspect) and the newest ``notes``
        without one, so the answer does not grow with what the novel said about them."""
        where = "coll = ? AND subject = ? AND tag = ? AND live >= ?"
        args = (self.collection, subject, tag, float(live_from))
        with self._lock:
            rows = self._db.execute(
                f"SELECT id FROM keys WHERE {where} AND slot != '' UNION ALL "
                f"SELECT id FROM (SELECT id FROM keys WHERE {where} AND slot = '' "
                "ORDER BY chapter DESC, beat DESC, created DESC, id DESC LIMIT ?)",
                (*args, *args, int(notes)),
            )
            return [row[0] for row in rows]

    def close(self) -> None:
        with self._lock:
            self._db.close()


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
