"""Style evidence on disk: what the model drafted and what the writer made of it (the adapter).

A project keeps its evidence in ``<project>/style.sqlite3``: one row per beat and kind
(``prose`` or ``beat``) holding the model's latest draft and the writer's text. When the model
drafts a beat again after the writer edited it, the edited pair is kept as history (a new row
takes its place), so no edit is ever lost as evidence.

A writer may let their style follow them across projects (:meth:`StyleBook.set_scope`
``"writer"``): every row is then also written to ``<data_dir>/style/writer.sqlite3`` and the
profile reads the rows of all their projects there. Each write is one transaction per file.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

from aizac.errors import InvalidInputError, StorageError
from aizac.style.profile import Passage

FILE_NAME = "style.sqlite3"
WRITER_FILE = Path("style") / "writer.sqlite3"
Scope = Literal["project", "writer"]
SCOPES: tuple[str, ...] = ("project", "writer")
KINDS: tuple[str, ...] = ("prose", "beat")
MAX_PASSAGES = 400
"""The newest passages a profile reads (a writer's style is what they do now)."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS passages (
    project TEXT NOT NULL, beat_id INTEGER NOT NULL, kind TEXT NOT NULL, seq INTEGER NOT NULL,
    language TEXT NOT NULL, episode INTEGER NOT NULL, idx INTEGER NOT NULL,
    model_text TEXT NOT NULL DEFAULT '', writer_text TEXT NOT NULL DEFAULT '',
    edits INTEGER NOT NULL DEFAULT 0, updated_at REAL NOT NULL,
    PRIMARY KEY (project, beat_id, kind, seq)
);
CREATE TABLE IF NOT EXISTS vectors (
    key TEXT NOT NULL, fingerprint TEXT NOT NULL, text_hash TEXT NOT NULL, vector TEXT NOT NULL,
    PRIMARY KEY (key, fingerprint)
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""

__all__ = ["FILE_NAME", "SCOPES", "Scope", "StyleBook"]


class _Db:
    """One SQLite file of style evidence."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.executescript(_SCHEMA)
        except (OSError, sqlite3.Error) as e:
            raise StorageError("error.style.open", path=str(path), cause=str(e)) from e
        self.lock = threading.Lock()

    @contextmanager
    def tx(self) -> Iterator[sqlite3.Connection]:
        with self.lock:
            try:
                self.db.execute("BEGIN IMMEDIATE")
                yield self.db
                self.db.execute("COMMIT")
            except sqlite3.Error as e:
                self.db.execute("ROLLBACK")
                raise StorageError("error.style.write", path=str(self.path), cause=str(e)) from e
            except BaseException:
                self.db.execute("ROLLBACK")
                raise

    def rows(self, sql: str, args: Sequence[object] = ()) -> list[tuple[object, ...]]:
        with self.lock:
            return list(self.db.execute(sql, args))

    def close(self) -> None:
        with self.lock:
            self.db.close()


def _current(db: sqlite3.Connection, project: str, beat_id: int,
             kind: str) -> tuple[int, str, str] | None:
    row = db.execute(
        "SELECT seq, model_text, writer_text FROM passages WHERE project = ? AND beat_id = ?"
        " AND kind = ? ORDER BY seq DESC LIMIT 1", (project, beat_id, kind)).fetchone()
    return (int(row[0]), str(row[1]), str(row[2])) if row else None


def _record(db: sqlite3.Connection, project: str, beat_id: int, kind: str, *, model: str | None,
            writer: str | None, episode: int, index: int, language: str) -> None:
    now = time.time()
    held = _current(db, project, beat_id, kind)
    if model is not None:
        if held is not None and not held[2]:
            db.execute("UPDATE passages SET model_text = ?, episode = ?, idx = ?, language = ?,"
                       " updated_at = ? WHERE project = ? AND beat_id = ? AND kind = ? AND"
                       " seq = ?", (model, episode, index, language, now, project, beat_id,
                                    kind, held[0]))
            return
        seq = held[0] + 1 if held else 0  # an edited pair stays as history
        db.execute("INSERT INTO passages VALUES (?, ?, ?, ?, ?, ?, ?, ?, '', 0, ?)",
                   (project, beat_id, kind, seq, language, episode, index, model, now))
        return
    if writer is None:  # neither text given: nothing to record
        return
    if held is None:
        db.execute("INSERT INTO passages VALUES (?, ?, ?, 0, ?, ?, ?, '', ?, 1, ?)",
                   (project, beat_id, kind, language, episode, index, writer, now))
        return
    if writer == (held[2] or held[1]):
        return  # saved as it was: not an edit
    db.execute("UPDATE passages SET writer_text = ?, edits = edits + 1, updated_at = ? WHERE"
               " project = ? AND beat_id = ? AND kind = ? AND seq = ?",
               (writer, now, project, beat_id, kind, held[0]))


def _passage(row: tuple[object, ...]) -> Passage:
    project, beat_id, kind, seq, language, episode, index, model, writer = row
    return Passage(f"{project}/{int(str(beat_id)):06d}/{kind}/{int(str(seq)):03d}", str(kind),
                   str(language), str(model), str(writer), int(str(episode)), int(str(index)))


class StyleBook:
    """A project's style evidence (and the writer's, across projects, when they want it).

    Args:
        project_dir: the project's folder (the evidence lives in ``style.sqlite3`` there).
        project: the project's name (rows of many projects share the writer's file).
        writer_dir: the data directory (``style/writer.sqlite3`` under it), or ``None`` for
            no writer-wide evidence.
    """

    def __init__(self, project_dir: Path, project: str, *, writer_dir: Path | None = None) -> None:
        self.project = project
        self._own = _Db(Path(project_dir) / FILE_NAME)
        self._writer_path = Path(writer_dir) / WRITER_FILE if writer_dir is not None else None
        self._writer: _Db | None = None

    # ------------------------------------------------------------------------- scope
    @property
    def scope(self) -> Scope:
        rows = self._own.rows("SELECT value FROM meta WHERE key = 'scope'")
        value = str(rows[0][0]) if rows else "project"
        return "writer" if value == "writer" and self._writer_path is not None else "project"

    def set_scope(self, scope: str) -> Scope:
        """Keep the evidence to this project, or let it follow the writer (copies this
        project's evidence into the writer's file)."""
        if scope not in SCOPES:
            raise InvalidInputError("error.style.scope", scope=scope, scopes=", ".join(SCOPES))
        if scope == "writer" and self._writer_path is None:
            raise InvalidInputError("error.style.no_writer_scope")
        with self._own.tx() as db:
            db.execute("INSERT OR REPLACE INTO meta VALUES ('scope', ?)", (scope,))
        if scope == "writer":
            rows = self._own.rows("SELECT * FROM passages WHERE project = ?", (self.project,))
            with self._writer_db().tx() as db:
                db.executemany("INSERT OR REPLACE INTO passages VALUES (?, ?, ?, ?, ?, ?, ?, ?,"
                               " ?, ?, ?)", rows)
        return self.scope

    def _writer_db(self) -> _Db:
        if self._writer is None:
            if self._writer_path is None:
                raise InvalidInputError("error.style.no_writer_scope")
            self._writer = _Db(self._writer_path)
        return self._writer

    def _targets(self) -> list[_Db]:
        return [self._own, self._writer_db()] if self.scope == "writer" else [self._own]

    # ------------------------------------------------------------------------ writing
    def record_model(self, beat_id: int, kind: str, text: str, *, episode: int, index: int,
                     language: str) -> None:
        """The model drafted ``text`` for a beat (prose, or the beat's own fields)."""
        self._record(beat_id, kind, model=text, writer=None, episode=episode, index=index,
                     language=language)

    def record_writer(self, beat_id: int, kind: str, text: str, *, episode: int, index: int,
                      language: str) -> None:
        """The writer saved ``text`` for a beat (an edit of the model's draft, or their own)."""
        self._record(beat_id, kind, model=None, writer=text, episode=episode, index=index,
                     language=language)

    def _record(self, beat_id: int, kind: str, **values: object) -> None:
        if kind not in KINDS:
            raise InvalidInputError("error.style.kind", kind=repr(kind))
        for target in self._targets():
            with target.tx() as db:
                _record(db, self.project, beat_id, kind, **values)  # type: ignore[arg-type]

    # ------------------------------------------------------------------------ reading
    def passages(self, language: str | None = None) -> list[Passage]:
        """The evidence in scope (newest :data:`MAX_PASSAGES` with the writer's text)."""
        source = self._writer_db() if self.scope == "writer" else self._own
        where = "writer_text != ''" + (" AND language = ?" if language else "")
        if self.scope == "project":
            where += " AND project = ?"
        args: list[object] = [language] if language else []
        if self.scope == "project":
            args.append(self.project)
        rows = source.rows(
            "SELECT project, beat_id, kind, seq, language, episode, idx, model_text, writer_text"
            f" FROM passages WHERE {where} ORDER BY updated_at DESC LIMIT ?",
            [*args, MAX_PASSAGES])
        return [_passage(r) for r in rows]

    def drafts(self, episode: int) -> list[Passage]:
        """The model's current prose drafts of an episode of this project, in beat order."""
        rows = self._own.rows(
            "SELECT project, beat_id, kind, seq, language, episode, idx, model_text, writer_text"
            " FROM passages p WHERE project = ? AND kind = 'prose' AND episode = ? AND"
            " model_text != '' AND seq = (SELECT MAX(seq) FROM passages q WHERE"
            " q.project = p.project AND q.beat_id = p.beat_id AND q.kind = p.kind)"
            " ORDER BY idx", (self.project, episode))
        return [_passage(r) for r in rows]

    def episodes(self) -> list[int]:
        """Episodes of this project with model prose drafts."""
        rows = self._own.rows("SELECT DISTINCT episode FROM passages WHERE project = ? AND"
                              " kind = 'prose' AND model_text != '' ORDER BY episode",
                              (self.project,))
        return [int(str(r[0])) for r in rows]

    # ------------------------------------------------------------------------ vectors
    def vectors(self, passages: Sequence[Passage], fingerprint: str) -> dict[str, list[float]]:
        """Stored embeddings of ``passages`` made with the embedding ``fingerprint`` (only
        those whose text is unchanged)."""
        out: dict[str, list[float]] = {}
        for p in passages:
            rows = self._own.rows("SELECT text_hash, vector FROM vectors WHERE key = ? AND"
                                  " fingerprint = ?", (p.key, fingerprint))
            if rows and rows[0][0] == _hash(p.writer_text):
                out[p.key] = [float(x) for x in json.loads(str(rows[0][1]))]
        return out

    def save_vectors(self, found: dict[str, tuple[str, list[float]]], fingerprint: str) -> None:
        """Keep embeddings: key -> (text, vector)."""
        with self._own.tx() as db:
            db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?)", [
                (key, fingerprint, _hash(text), json.dumps([round(v, 6) for v in vector]))
                for key, (text, vector) in found.items()])

    def close(self) -> None:
        self._own.close()
        if self._writer is not None:
            self._writer.close()


def _hash(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()
