"""Project persistence: one directory per project with a SQLite file beside its memory.

Layout: ``<data_dir>/projects/<name>/project.sqlite3`` (plot, episodes, beats, prose, a key-value
slot, a step log) and ``.../memory/`` (the project's Chroma). Every write is one SQLite
transaction, so a killed process loses at most the step in flight. :meth:`ProjectStore.lock`
serialises writers (a re-entrant thread lock plus a ``filelock`` shared by every store object of a
directory: nesting two stores in one thread cannot deadlock); a stale ``expected_version`` gets
:class:`ConflictError`. Creation is staged and renamed into place (:mod:`project_dirs`).
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aizac.errors import ConflictError, InvalidInputError, NotFoundError, StorageError
from aizac.text import Text
from aizac.writer.killpoints import checkpoint as _checkpoint
from aizac.writer.project_dirs import DB_NAME, create_staged, is_ghost, locks_for
from aizac.writer.project_dirs import validate_project_name as validate_project_name
from aizac.writer.project_rows import (
    SCHEMA,
    BeatRecord,
    BeatStatus,
    PlotRecord,
    ProjectInfo,
    Step,
    add_missing_columns,
    beat_record,
    dump_profiles,
    plot_record,
)
from aizac.writer.rules import beat_thing, check_accepted, check_draft, check_version

if TYPE_CHECKING:
    from aizac.writer.schemas import CharacterProfile, NovelBeat, NovelPlot

__all__ = ["DB_NAME", "BeatRecord", "BeatStatus", "PlotRecord", "ProjectInfo", "ProjectStore",
           "Step", "validate_project_name"]


_READY: set[Path] = set()  # databases whose schema this process has checked


class ProjectStore:
    """SQLite adapter for one project directory (create with :meth:`create` or :meth:`open`)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.db_path = directory / DB_NAME

    # ------------------------------------------------------------------ create / open / list
    @classmethod
    def create(
        cls,
        root: Path,
        name: str,
        *,
        language: str,
        genre: str = "",
        keywords: list[str] | None = None,
    ) -> ProjectStore:
        clean = validate_project_name(name)
        directory = root / clean
        if (directory / DB_NAME).exists() and not is_ghost(directory):
            raise InvalidInputError("error.project.exists", name=clean)
        meta = {
            "name": clean,
            "language": language,
            "genre": genre,
            "keywords": json.dumps(keywords or [], ensure_ascii=False),
            "created_at": repr(time.time()),
            "schema": "1",
        }

        def write(staging: Path) -> None:
            with cls(staging)._tx() as db:
                db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", meta.items())
                cls._log(db, "create", {"name": clean})
            _checkpoint("new:meta-written")

        create_staged(root, directory, clean, write)
        return cls(directory)

    @classmethod
    def open(cls, root: Path, name: str) -> ProjectStore:
        clean = validate_project_name(name)
        directory = root / clean
        if not (directory / DB_NAME).is_file() or is_ghost(directory):
            raise NotFoundError("error.project.missing", name=clean, root=str(root))
        return cls(directory)

    @staticmethod
    def list_names(root: Path) -> list[str]:
        if not root.is_dir():
            return []
        return sorted(
            p.name for p in root.iterdir()
            if not p.name.startswith(".") and (p / DB_NAME).is_file() and not is_ghost(p)
        )

    @property
    def memory_dir(self) -> Path:
        return self.directory / "memory"

    # ------------------------------------------------------------------------ connections
    def _connect(self) -> sqlite3.Connection:
        try:
            db = sqlite3.connect(self.db_path, timeout=30, isolation_level=None)
            db.execute("PRAGMA synchronous=NORMAL")
            if self.db_path not in _READY:  # WAL mode and the tables persist: once a process
                db.execute("PRAGMA journal_mode=WAL")
                db.executescript(SCHEMA)
                add_missing_columns(db)
                _READY.add(self.db_path)
        except sqlite3.Error as e:
            raise StorageError("error.project.open_db", path=str(self.db_path),
                               cause=str(e)) from e
        db.row_factory = sqlite3.Row
        return db

    @contextlib.contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: all of it is stored or none of it."""
        db = self._connect()
        try:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
        except sqlite3.Error as e:
            raise StorageError("error.project.write_db", path=str(self.db_path),
                               cause=str(e)) from e
        finally:
            db.close()

    @contextlib.contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        db = self._connect()
        try:
            yield db
        except sqlite3.Error as e:
            raise StorageError("error.project.read_db", path=str(self.db_path),
                               cause=str(e)) from e
        finally:
            db.close()

    def transaction(self) -> contextlib.AbstractContextManager[sqlite3.Connection]:
        """One write transaction on the project database, for a store of another concern that
        keeps its own tables there (:mod:`aizac.illustration.store`)."""
        return self._tx()

    def reading(self) -> contextlib.AbstractContextManager[sqlite3.Connection]:
        """A read connection on the project database (see :meth:`transaction`)."""
        return self._read()

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Serialise a multi-store step (memory + SQLite) across threads and processes."""
        thread_lock, file_lock = locks_for(self.directory)  # shared per directory and process
        with thread_lock, file_lock:
            yield

    # ------------------------------------------------------------------------------ meta
    def info(self) -> ProjectInfo:
        with self._read() as db:
            meta = {r["key"]: r["value"] for r in db.execute("SELECT key, value FROM meta")}
        return ProjectInfo(
            name=meta.get("name", self.directory.name),
            language=meta.get("language", "ko"),
            genre=meta.get("genre", ""),
            keywords=json.loads(meta.get("keywords", "[]")),
            path=self.directory,
            created_at=float(meta.get("created_at", "0")),
        )

    def book_id(self) -> str:
        """The novel's own identifier (``urn:uuid:``, made once and kept): what an EPUB names
        it by, distinct for two novels with the same title."""
        with self._tx() as db:
            row = db.execute("SELECT value FROM meta WHERE key = 'book_id'").fetchone()
            if row is not None:
                return str(row["value"])
            made = f"urn:uuid:{uuid.uuid4()}"
            db.execute("INSERT INTO meta VALUES ('book_id', ?)", (made,))
            return made

    def set_meta(self, **values: str) -> None:
        with self._tx() as db:
            db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", values.items())

    # ------------------------------------------------------------------------------ plot
    def plot(self) -> PlotRecord | None:
        with self._read() as db:
            row = db.execute("SELECT * FROM plot WHERE id = 1").fetchone()
        return None if row is None else plot_record(row)

    def save_plot(
        self,
        plot: NovelPlot,
        *,
        tropes: str = "",
        memory_ids: list[str] | None = None,
        expected_version: int | None = None,
        step: str = "plot",
    ) -> int:
        """Store the plot (replacing any previous one); returns the new version."""
        with self._tx() as db:
            row = db.execute("SELECT version, memory_ids FROM plot WHERE id = 1").fetchone()
            current = row["version"] if row else 0
            check_version(Text("thing.plot"), current, expected_version)
            ids = memory_ids if memory_ids is not None else (
                json.loads(row["memory_ids"]) if row else []
            )
            db.execute(
                "INSERT OR REPLACE INTO plot (id, json, tropes, memory_ids, version, updated_at)"
                " VALUES (1, ?, ?, ?, ?, ?)",
                (plot.model_dump_json(), tropes, json.dumps(ids), current + 1, time.time()),
            )
            self._log(db, step, {"version": current + 1, "title": plot.title})
        return current + 1

    # ----------------------------------------------------------------------------- beats
    def beats(
        self, *, episode: int | None = None, status: BeatStatus | None = None
    ) -> list[BeatRecord]:
        sql = "SELECT * FROM beats"
        clauses: list[str] = []
        args: list[object] = []
        if episode is not None:
            clauses.append("episode = ?")
            args.append(episode)
        if status is not None:
            clauses.append("status = ?")
            args.append(status)
        if clauses:
            sql += " WHERE " + " AND ".join(clauses)
        sql += " ORDER BY episode, idx, id"
        with self._read() as db:
            rows = db.execute(sql, args).fetchall()
        return [beat_record(r) for r in rows]

    def last_accepted(
        self, before: tuple[int, int] | None = None
    ) -> BeatRecord | None:
        """The last accepted beat in story order (optionally: the last one before the position
        ``(episode, index)``): one row read, however long the novel is."""
        sql = "SELECT * FROM beats WHERE status = 'accepted'"
        args: list[object] = []
        if before is not None:
            sql += " AND (episode < ? OR (episode = ? AND idx < ?))"
            args += [before[0], before[0], before[1]]
        sql += " ORDER BY episode DESC, idx DESC, id DESC LIMIT 1"
        with self._read() as db:
            row = db.execute(sql, args).fetchone()
        return beat_record(row) if row is not None else None

    def count_beats(self, status: BeatStatus) -> int:
        """How many beats have ``status`` (one COUNT query)."""
        with self._read() as db:
            row = db.execute("SELECT COUNT(*) FROM beats WHERE status = ?", (status,)).fetchone()
        return int(row[0])

    def draft_at(self, episode: int, index: int) -> BeatRecord | None:
        """The draft at position ``(episode, index)``, if there is one."""
        with self._read() as db:
            row = db.execute(
                "SELECT * FROM beats WHERE status = 'draft' AND episode = ? AND idx = ?"
                " ORDER BY id DESC LIMIT 1",
                (episode, index),
            ).fetchone()
        return beat_record(row) if row is not None else None

    def beat(self, beat_id: int) -> BeatRecord:
        with self._read() as db:
            row = db.execute("SELECT * FROM beats WHERE id = ?", (beat_id,)).fetchone()
        if row is None:
            raise NotFoundError("error.beat.missing", id=beat_id)
        return beat_record(row)

    def add_draft(
        self,
        beat: NovelBeat,
        *,
        new_characters: list[CharacterProfile] | None = None,
        instruction: str = "",
        written: list[str] | None = None,
    ) -> BeatRecord:
        now = time.time()
        with self._tx() as db:
            try:
                cur = db.execute(
                    "INSERT INTO beats (episode, idx, status, json, new_characters, instruction,"
                    " written, created_at, updated_at) VALUES (?, ?, 'draft', ?, ?, ?, ?, ?, ?)",
                    (
                        beat.episode,
                        beat.index,
                        beat.model_dump_json(),
                        dump_profiles(new_characters),
                        instruction,
                        json.dumps(written or []),
                        now,
                        now,
                    ),
                )
            except sqlite3.IntegrityError as e:
                raise ConflictError("error.beat.taken", episode=beat.episode,
                                    index=beat.index) from e
            beat_id = int(cur.lastrowid or 0)
            self._log(db, "beat", {"id": beat_id, "episode": beat.episode, "index": beat.index})
        return self.beat(beat_id)

    def update_draft(
        self,
        beat_id: int,
        beat: NovelBeat,
        *,
        expected_version: int | None = None,
        new_characters: list[CharacterProfile] | None = None,
        instruction: str | None = None,
        step: str = "edit",
        written: list[str] | None = None,
    ) -> BeatRecord:
        """Replace a draft's design (edit or regeneration); accepted beats are read-only.
        ``written``: the fields the writer wrote, replacing the stored ones (``None``: kept)."""
        with self._tx() as db:
            row = self._row_for_update(db, beat_id, expected_version)
            check_draft(beat_thing(row["episode"], row["idx"]), row["status"], row["version"],
                        None)
            if (beat.episode, beat.index) != (row["episode"], row["idx"]):
                raise InvalidInputError("error.beat.moved")
            profiles = (
                dump_profiles(new_characters)
                if new_characters is not None
                else row["new_characters"]
            )
            db.execute(
                "UPDATE beats SET json = ?, new_characters = ?, instruction = ?, written = ?,"
                " version = version + 1, updated_at = ? WHERE id = ?",
                (
                    beat.model_dump_json(),
                    profiles,
                    row["instruction"] if instruction is None else instruction,
                    row["written"] if written is None else json.dumps(list(written)),
                    time.time(),
                    beat_id,
                ),
            )
            self._log(db, step, {"id": beat_id, "version": row["version"] + 1})
        return self.beat(beat_id)

    def set_status(
        self,
        beat_id: int,
        status: BeatStatus,
        *,
        expected_version: int | None = None,
        memory_ids: list[str] | None = None,
        summary: str | None = None,
        step: str | None = None,
    ) -> BeatRecord:
        with self._tx() as db:
            row = self._row_for_update(db, beat_id, expected_version)
            try:
                db.execute(
                    "UPDATE beats SET status = ?, memory_ids = ?, summary = ?,"
                    " version = version + 1, updated_at = ? WHERE id = ?",
                    (
                        status,
                        json.dumps(memory_ids if memory_ids is not None else
                                   json.loads(row["memory_ids"])),
                        row["summary"] if summary is None else summary,
                        time.time(),
                        beat_id,
                    ),
                )
            except sqlite3.IntegrityError as e:
                raise ConflictError("error.beat.taken_other", episode=row["episode"],
                                    index=row["idx"]) from e
            self._log(db, step or status, {"id": beat_id, "version": row["version"] + 1})
        return self.beat(beat_id)

    def save_prose(
        self, beat_id: int, prose: str, *, expected_version: int | None = None
    ) -> BeatRecord:
        with self._tx() as db:
            row = self._row_for_update(db, beat_id, expected_version)
            check_accepted(beat_thing(row["episode"], row["idx"]), row["status"])
            db.execute(
                "UPDATE beats SET prose = ?, version = version + 1, updated_at = ? WHERE id = ?",
                (prose, time.time(), beat_id),
            )
            self._log(db, "prose", {"id": beat_id, "chars": len(prose)})
        return self.beat(beat_id)

    # -------------------------------------------------------------------------- episodes
    def episode_titles(self) -> dict[int, str]:
        with self._read() as db:
            return {r["number"]: r["title"] for r in db.execute("SELECT * FROM episodes")}

    def set_episode_title(self, number: int, title: str) -> None:
        with self._tx() as db:
            db.execute(
                "INSERT INTO episodes (number, title) VALUES (?, ?) ON CONFLICT(number)"
                " DO UPDATE SET title = excluded.title, version = version + 1",
                (number, title),
            )

    # -------------------------------------------------------------------------------- kv
    def kv_get(self, key: str) -> tuple[str, int] | None:
        """The value stored under ``key`` and its version (e.g. the web app's undo tree)."""
        with self._read() as db:
            row = db.execute("SELECT value, version FROM kv WHERE key = ?", (key,)).fetchone()
        return (row["value"], row["version"]) if row else None

    def kv_set(self, key: str, value: str, *, expected_version: int | None = None) -> int:
        """Store ``value``; with ``expected_version`` (0 = must not exist) a stale write fails."""
        with self._tx() as db:
            row = db.execute("SELECT version FROM kv WHERE key = ?", (key,)).fetchone()
            current = row["version"] if row else 0
            check_version(Text("thing.kv", key=key), current, expected_version)
            db.execute(
                "INSERT OR REPLACE INTO kv (key, value, version) VALUES (?, ?, ?)",
                (key, value, current + 1),
            )
        return current + 1

    # ----------------------------------------------------------------------------- steps
    def log_step(self, kind: str, detail: dict[str, Any] | None = None) -> None:
        with self._tx() as db:
            self._log(db, kind, detail or {})

    def steps(self, limit: int = 50) -> list[Step]:
        with self._read() as db:
            rows = db.execute(
                "SELECT * FROM steps ORDER BY id DESC LIMIT ?", (limit,)
            ).fetchall()
        return [Step(r["id"], r["at"], r["kind"], json.loads(r["detail"])) for r in rows]

    # --------------------------------------------------------------------------- helpers
    @staticmethod
    def _log(db: sqlite3.Connection, kind: str, detail: dict[str, Any]) -> None:
        db.execute(
            "INSERT INTO steps (at, kind, detail) VALUES (?, ?, ?)",
            (time.time(), kind, json.dumps(detail, ensure_ascii=False)),
        )

    @staticmethod
    def _row_for_update(
        db: sqlite3.Connection, beat_id: int, expected_version: int | None
    ) -> sqlite3.Row:
        row = db.execute("SELECT * FROM beats WHERE id = ?", (beat_id,)).fetchone()
        if row is None:
            raise NotFoundError("error.beat.missing", id=beat_id)
        check_version(Text("thing.beat_id", id=beat_id), row["version"], expected_version)
        return row


