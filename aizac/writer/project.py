"""Project persistence: a project's rows in SQLite beside its memory, or in PostgreSQL.

Embedded (the default): one directory per project, ``<data_dir>/projects/<name>/project.sqlite3``
(plot, episodes, beats, prose, a key-value slot, a step log) and ``.../memory/`` (the project's
Chroma). Creation is staged and renamed into place (:mod:`project_dirs`); :meth:`ProjectStore.lock`
serialises writers (a re-entrant thread lock plus a ``filelock`` shared by every store object of a
directory: nesting two stores in one thread cannot deadlock).

On PostgreSQL (``AIZAC_DATABASE_URL``, :mod:`aizac.storage`) the same tables hold every project,
each row carrying the project's key; the folder keeps only files (pictures, exports). A project is
a :class:`~aizac.storage.catalog.Catalog` row made in one transaction; :meth:`ProjectStore.lock` is
the database's step lock (:mod:`aizac.storage.locks`), so any process may serve any project.

Either way every write is one transaction (a killed process loses at most the step in flight),
queued behind the project's other writes by the database, and a stale ``expected_version`` gets
:class:`ConflictError`.
"""

from __future__ import annotations

import contextlib
import json
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, func, select, update
from sqlalchemy.exc import IntegrityError

from aizac.errors import ConflictError, InvalidInputError, NotFoundError
from aizac.storage.database import EMBEDDED_FILES, Database, Scope, forget_file, sqlite_file
from aizac.storage.health import sqlite_damage
from aizac.storage.killpoints import checkpoint as _checkpoint
from aizac.storage.tables import beats as t_beats
from aizac.storage.tables import episodes as t_episodes
from aizac.storage.tables import kv as t_kv
from aizac.storage.tables import meta as t_meta
from aizac.storage.tables import next_id
from aizac.storage.tables import plot as t_plot
from aizac.storage.tables import steps as t_steps
from aizac.text import Text
from aizac.writer.project_dirs import (
    DB_NAME,
    create_staged,
    folder_contents,
    holds_data,
    is_ghost,
    list_names,
    locks_for,
)
from aizac.writer.project_dirs import validate_project_name as validate_project_name
from aizac.writer.project_rows import (
    IMPORTED,
    BeatRecord,
    BeatStatus,
    PlotRecord,
    ProjectInfo,
    Step,
    beat_record,
    dump_profiles,
    plot_record,
    project_info,
)
from aizac.writer.rules import beat_thing, check_accepted, check_draft, check_version

if TYPE_CHECKING:
    from aizac.storage.catalog import Catalog
    from aizac.writer.schemas import CharacterProfile, NovelBeat, NovelPlot

__all__ = ["DB_NAME", "BeatRecord", "BeatStatus", "PlotRecord", "ProjectInfo", "ProjectStore",
           "Seed", "SeedBeat", "Step", "validate_project_name"]


@dataclass(frozen=True)
class SeedBeat:
    """An accepted beat a project is created with: its design, its prose, what made it."""

    beat: NovelBeat
    prose: str
    instruction: str = ""


@dataclass(frozen=True)
class Seed:
    """The story a project is created with (an imported manuscript), written in the same unit
    as the project itself (:meth:`ProjectStore.create`): a create killed or failed anywhere
    leaves no project, never part of one.

    Attributes:
        beats: accepted beats with their prose; a new project numbers them 1, 2, ... in this
            order (what ``kv`` may refer to).
        titles: episode titles by number.
        kv: key-value entries (the undo tree, the project's episode length, ...).
        step: the step logged after the project's ``create``, with ``detail``.
    """

    beats: Sequence[SeedBeat] = ()
    titles: Mapping[int, str] = field(default_factory=dict)
    kv: Mapping[str, str] = field(default_factory=dict)
    step: str = "seed"
    detail: Mapping[str, Any] = field(default_factory=dict)


class ProjectStore:
    """The rows of one project (create with :meth:`create` or :meth:`open`).

    Args:
        directory: the project's folder (its files; embedded, its SQLite files too).
        catalog: the server database's projects (``None``: embedded SQLite in ``directory``).
        key: the project's key in ``catalog`` (``""`` embedded).
    """

    def __init__(self, directory: Path, *, catalog: Catalog | None = None, key: str = "") -> None:
        self.directory = directory
        self.db_path = directory / DB_NAME
        self.catalog = catalog
        self.key = key
        self._db: Database | None = None
        self._listeners: list[Callable[[bool], None]] = []
        self._stepped: int | None = None  # the epoch of this store's last step
        self._seen: int | None = None  # the newest epoch its listeners caught up with

    @property
    def server(self) -> bool:
        """Whether the project lives on the PostgreSQL database (several processes)."""
        return self.catalog is not None

    @property
    def db(self) -> Database:
        """The database that holds this project's rows."""
        if self._db is None:
            self._db = self.catalog.db if self.catalog is not None else sqlite_file(
                self.db_path, "project")
        return self._db

    def scope(self, concern: str) -> Scope:
        """Where this project's rows of ``concern`` (``runs``, ``continuity``, ``keys``,
        ``journal``) live: its file in the folder, or the server database."""
        if self.catalog is not None:
            return Scope(self.catalog.db, self.key)
        return Scope(sqlite_file(self.directory / EMBEDDED_FILES[concern], concern))

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
        catalog: Catalog | None = None,
        seed: Seed | None = None,
    ) -> ProjectStore:
        """A new project ``name`` (refused when one exists), with ``seed``'s story when given:
        all of it is stored, in one transaction (embedded: in a staging folder renamed into
        place afterwards), or none of it."""
        clean = validate_project_name(name)
        directory = root / clean
        meta = {
            "name": clean,
            "language": language,
            "genre": genre,
            "keywords": json.dumps(keywords or [], ensure_ascii=False),
            "created_at": repr(time.time()),
            "schema": "1",
        }
        if catalog is not None:
            def fill(conn: Connection, key: str) -> None:
                conn.execute(t_meta.insert(), [{"project": key, "key": k, "value": v}
                                               for k, v in meta.items()])
                cls._log(conn, key, "create", {"name": clean})
                _checkpoint("new:meta-written")
                if seed is not None:
                    cls(directory, catalog=catalog, key=key)._write_seed(conn, seed)

            if catalog.find(clean) is None and holds_data(directory):
                # files of no project (its rows lost): a new project never takes them over
                raise InvalidInputError("error.project.folder_taken", name=clean,
                                        path=str(directory), contents=folder_contents(directory))
            key = catalog.create(clean, fill)
            return cls(directory, catalog=catalog, key=key)
        if directory.exists() and not is_ghost(directory):
            if sqlite_damage(directory / DB_NAME) is None:
                raise InvalidInputError("error.project.exists", name=clean)
            if holds_data(directory):  # a damaged project, or someone's files: never replaced
                raise InvalidInputError("error.project.folder_taken", name=clean,
                                        path=str(directory), contents=folder_contents(directory))

        def write(staging: Path) -> None:
            store = cls(staging)
            try:
                with store._tx() as db:
                    store._set_meta(db, meta)
                    store._log(db, "", "create", {"name": clean})
                    if seed is not None:
                        store._write_seed(db, seed)
                _checkpoint("new:meta-written")
            finally:
                forget_file(store.db_path)  # the folder is renamed next

        create_staged(root, directory, clean, write)
        return cls(directory)

    @classmethod
    def open(cls, root: Path, name: str, *, catalog: Catalog | None = None) -> ProjectStore:
        clean = validate_project_name(name)
        directory = root / clean
        if catalog is not None:
            key = catalog.find(clean)
            if key is not None:
                return cls(directory, catalog=catalog, key=key)
        elif directory.is_dir() and not is_ghost(directory):
            damage = sqlite_damage(directory / DB_NAME)
            if damage is None:
                return cls(directory)
            if damage.problem != "missing" or holds_data(directory):
                raise damage.error()  # named, never taken for a new or absent project
        raise NotFoundError("error.project.missing", name=clean, root=str(root))

    @staticmethod
    def list_names(root: Path, *, catalog: Catalog | None = None) -> list[str]:
        if catalog is not None:
            return catalog.names()
        return list_names(root)

    @property
    def memory_dir(self) -> Path:
        return self.directory / "memory"

    # ------------------------------------------------------------------------ connections
    @contextlib.contextmanager
    def _tx(self) -> Iterator[Connection]:
        """One write transaction, queued behind the project's other writes: all of it is
        stored or none of it."""
        with self.db.write(str(self.db_path) if not self.server else self.key) as db:
            self.db.serialise(db, self.key)
            yield db

    def _read(self) -> contextlib.AbstractContextManager[Connection]:
        return self.db.read(str(self.db_path) if not self.server else self.key)

    def transaction(self) -> contextlib.AbstractContextManager[Connection]:
        """One write transaction on the project database, for a store of another concern that
        keeps its own tables there (:mod:`aizac.illustration.store`)."""
        return self._tx()

    def reading(self) -> contextlib.AbstractContextManager[Connection]:
        """A read connection on the project database (see :meth:`transaction`)."""
        return self._read()

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Serialise a multi-store step (memory + rows) across threads and processes.

        On PostgreSQL the listeners (:meth:`listen`) are called first with ``full=True`` when
        the project's epoch says someone else stepped since this store's last step."""
        if self.catalog is not None:
            with self.catalog.lock(self.key).hold() as epoch:
                if epoch is not None and epoch != self._stepped:
                    stale = self._stepped is None or epoch != self._stepped + 1
                    if stale:
                        self._tell(True)  # a failure leaves _stepped: the next step retries
                    self._stepped = self._seen = epoch
                yield
            return
        thread_lock, file_lock = locks_for(self.directory)  # shared per directory and process
        with thread_lock, file_lock:
            yield

    def listen(self, callback: Callable[[bool], None]) -> None:
        """On PostgreSQL: call ``callback(full)`` when another holder of the project may have
        changed it since this store looked (see :meth:`lock` and :meth:`catch_up`);
        embedded, one process writes a project and nothing is ever called."""
        self._listeners.append(callback)

    def _tell(self, full: bool) -> None:
        for callback in list(self._listeners):
            callback(full)

    def catch_up(self) -> bool:
        """For a reader on PostgreSQL: reload the listeners' caches (``full=False``) if someone
        stepped since this store last looked, unless a thread of this process is inside a
        step of the project; ``True`` when they were told. Embedded: ``False``."""
        if self.catalog is None or not self._listeners:
            return False
        step = self.catalog.lock(self.key)
        with step.quiet() as quiet:
            if not quiet:
                return False
            epoch = step.epoch()
            if epoch is None or epoch == self._seen:
                return False
            self._tell(False)
            self._seen = epoch
            return True

    # ------------------------------------------------------------------------------ meta
    def info(self) -> ProjectInfo:
        with self._read() as db:
            rows = db.execute(select(t_meta.c.key, t_meta.c.value)
                              .where(t_meta.c.project == self.key))
            meta = {str(k): str(v) for k, v in rows}
        return project_info(meta, self.directory)

    def book_id(self) -> str:
        """The novel's own identifier (``urn:uuid:``, made once and kept): what an EPUB names
        it by, distinct for two novels with the same title."""
        with self._tx() as db:
            got = db.execute(select(t_meta.c.value).where(
                t_meta.c.project == self.key, t_meta.c.key == "book_id")).scalar()
            if got is not None:
                return str(got)
            made = f"urn:uuid:{uuid.uuid4()}"
            self._set_meta(db, {"book_id": made})
            return made

    def set_meta(self, **values: str) -> None:
        with self._tx() as db:
            self._set_meta(db, values)

    def _set_meta(self, db: Connection, values: Mapping[str, str]) -> None:
        if not values:
            return
        stmt = self.db.insert(t_meta)
        db.execute(
            stmt.on_conflict_do_update(index_elements=["project", "key"],
                                       set_={"value": stmt.excluded.value}),
            [{"project": self.key, "key": k, "value": v} for k, v in values.items()],
        )

    # ------------------------------------------------------------------------------ plot
    def plot(self) -> PlotRecord | None:
        with self._read() as db:
            row = db.execute(select(t_plot).where(t_plot.c.project == self.key,
                                                  t_plot.c.id == 1)).mappings().first()
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
            row = db.execute(select(t_plot.c.version, t_plot.c.memory_ids).where(
                t_plot.c.project == self.key, t_plot.c.id == 1)).mappings().first()
            current = row["version"] if row else 0
            check_version(Text("thing.plot"), current, expected_version)
            ids = memory_ids if memory_ids is not None else (
                json.loads(row["memory_ids"]) if row else []
            )
            values = {"json": plot.model_dump_json(), "tropes": tropes,
                      "memory_ids": json.dumps(ids), "version": current + 1,
                      "updated_at": time.time()}
            stmt = self.db.insert(t_plot).values(project=self.key, id=1, **values)
            db.execute(stmt.on_conflict_do_update(index_elements=["project", "id"], set_=values))
            self._log(db, self.key, step, {"version": current + 1, "title": plot.title})
        return current + 1

    # ----------------------------------------------------------------------------- beats
    def _beats(self) -> Any:
        return select(t_beats).where(t_beats.c.project == self.key)

    def beats(
        self, *, episode: int | None = None, status: BeatStatus | None = None
    ) -> list[BeatRecord]:
        query = self._beats()
        if episode is not None:
            query = query.where(t_beats.c.episode == episode)
        if status is not None:
            query = query.where(t_beats.c.status == status)
        query = query.order_by(t_beats.c.episode, t_beats.c.idx, t_beats.c.id)
        with self._read() as db:
            rows = db.execute(query).mappings().all()
        return [beat_record(r) for r in rows]

    def last_accepted(
        self, before: tuple[int, int] | None = None
    ) -> BeatRecord | None:
        """The last accepted beat in story order (optionally: the last one before the position
        ``(episode, index)``): one row read, however long the novel is."""
        query = self._beats().where(t_beats.c.status == "accepted")
        if before is not None:
            episode, index = before
            query = query.where((t_beats.c.episode < episode)
                                | ((t_beats.c.episode == episode) & (t_beats.c.idx < index)))
        query = query.order_by(t_beats.c.episode.desc(), t_beats.c.idx.desc(),
                               t_beats.c.id.desc()).limit(1)
        with self._read() as db:
            row = db.execute(query).mappings().first()
        return beat_record(row) if row is not None else None

    def count_beats(self, status: BeatStatus, *, imported: bool | None = None) -> int:
        """How many beats have ``status`` (one COUNT query); ``imported``: only the scenes of
        an imported manuscript (``True``) or only the others (``False``)."""
        query = select(func.count()).select_from(t_beats).where(
            t_beats.c.project == self.key, t_beats.c.status == status)
        if imported is not None:
            query = query.where((t_beats.c.instruction == IMPORTED) == imported)
        with self._read() as db:
            return int(db.execute(query).scalar() or 0)

    def count_unread(self) -> int:
        """How many scenes of an imported manuscript the memory has not read yet (accepted,
        imported and without a summary: reading a scene writes its summary, never empty, in
        the same transaction as its design, :meth:`read_scene`)."""
        query = select(func.count()).select_from(t_beats).where(
            t_beats.c.project == self.key, t_beats.c.status == "accepted",
            t_beats.c.instruction == IMPORTED, t_beats.c.summary == "")
        with self._read() as db:
            return int(db.execute(query).scalar() or 0)

    def read_scene(
        self, beat_id: int, beat: NovelBeat, *, memory_ids: list[str], summary: str,
        new_characters: list[CharacterProfile] | None = None,
        kv: Mapping[str, str] | None = None,
    ) -> BeatRecord:
        """Mark an imported scene read, in ONE transaction: its design replaced by the one
        read from its prose, its memory ids and summary set, and the ``kv`` entries written
        (the import record's progress). Idempotent for a scene already read (recovery may
        replay it): nothing is written again."""
        if not summary.strip():
            raise InvalidInputError("error.read.empty_summary", id=beat_id)
        with self._tx() as db:
            row = self._row_for_update(db, beat_id, None)
            if row["instruction"] != IMPORTED or row["status"] != "accepted":
                raise InvalidInputError("error.read.not_imported",
                                        where=f"{row['episode']}-{row['idx']}")
            if row["summary"]:
                return beat_record(row)
            if (beat.episode, beat.index) != (row["episode"], row["idx"]):
                raise InvalidInputError("error.beat.moved")
            db.execute(self._update_beat(beat_id).values(
                json=beat.model_dump_json(), memory_ids=json.dumps(list(memory_ids)),
                summary=summary, new_characters=dump_profiles(new_characters),
                version=t_beats.c.version + 1, updated_at=time.time(),
            ))
            for key, value in (kv or {}).items():
                stmt = self.db.insert(t_kv).values(project=self.key, key=key, value=value,
                                                   version=1)
                db.execute(stmt.on_conflict_do_update(
                    index_elements=["project", "key"],
                    set_={"value": stmt.excluded.value, "version": t_kv.c.version + 1},
                ))
            _checkpoint("read:marked")
            self._log(db, self.key, "read", {"id": beat_id, "version": row["version"] + 1})
        return self.beat(beat_id)

    def draft_at(self, episode: int, index: int) -> BeatRecord | None:
        """The draft at position ``(episode, index)``, if there is one."""
        with self._read() as db:
            row = db.execute(
                self._beats().where(t_beats.c.status == "draft", t_beats.c.episode == episode,
                                    t_beats.c.idx == index)
                .order_by(t_beats.c.id.desc()).limit(1)
            ).mappings().first()
        return beat_record(row) if row is not None else None

    def beat(self, beat_id: int) -> BeatRecord:
        with self._read() as db:
            row = db.execute(self._beats().where(t_beats.c.id == beat_id)).mappings().first()
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
        try:
            with self._tx() as db:
                beat_id = int(db.execute(
                    t_beats.insert().values(
                        project=self.key, id=next_id(t_beats, self.key), episode=beat.episode,
                        idx=beat.index, status="draft",
                        json=beat.model_dump_json(), new_characters=dump_profiles(new_characters),
                        instruction=instruction, written=json.dumps(written or []),
                        created_at=now, updated_at=now,
                    ).returning(t_beats.c.id)
                ).scalar_one())
                self._log(db, self.key, "beat",
                          {"id": beat_id, "episode": beat.episode, "index": beat.index})
        except IntegrityError as e:
            raise ConflictError("error.beat.taken", episode=beat.episode,
                                index=beat.index) from e
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
            db.execute(self._update_beat(beat_id).values(
                json=beat.model_dump_json(), new_characters=profiles,
                instruction=row["instruction"] if instruction is None else instruction,
                written=row["written"] if written is None else json.dumps(list(written)),
                version=t_beats.c.version + 1, updated_at=time.time(),
            ))
            self._log(db, self.key, step, {"id": beat_id, "version": row["version"] + 1})
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
        where: tuple[int, int] = (0, 0)
        try:
            with self._tx() as db:
                row = self._row_for_update(db, beat_id, expected_version)
                where = (row["episode"], row["idx"])
                db.execute(self._update_beat(beat_id).values(
                    status=status,
                    memory_ids=json.dumps(memory_ids if memory_ids is not None else
                                          json.loads(row["memory_ids"])),
                    summary=row["summary"] if summary is None else summary,
                    version=t_beats.c.version + 1, updated_at=time.time(),
                ))
                self._log(db, self.key, step or status,
                          {"id": beat_id, "version": row["version"] + 1})
        except IntegrityError as e:
            raise ConflictError("error.beat.taken_other", episode=where[0],
                                index=where[1]) from e
        return self.beat(beat_id)

    def save_prose(
        self, beat_id: int, prose: str, *, expected_version: int | None = None
    ) -> BeatRecord:
        with self._tx() as db:
            row = self._row_for_update(db, beat_id, expected_version)
            check_accepted(beat_thing(row["episode"], row["idx"]), row["status"])
            db.execute(self._update_beat(beat_id).values(
                prose=prose, version=t_beats.c.version + 1, updated_at=time.time()))
            self._log(db, self.key, "prose", {"id": beat_id, "chars": len(prose)})
        return self.beat(beat_id)

    # -------------------------------------------------------------------------- episodes
    def episode_titles(self) -> dict[int, str]:
        with self._read() as db:
            rows = db.execute(select(t_episodes.c.number, t_episodes.c.title)
                              .where(t_episodes.c.project == self.key))
            return {int(n): str(t) for n, t in rows}

    def set_episode_title(self, number: int, title: str) -> None:
        with self._tx() as db:
            stmt = self.db.insert(t_episodes).values(project=self.key, number=number, title=title)
            db.execute(stmt.on_conflict_do_update(
                index_elements=["project", "number"],
                set_={"title": stmt.excluded.title, "version": t_episodes.c.version + 1},
            ))

    # -------------------------------------------------------------------------------- kv
    def kv_get(self, key: str) -> tuple[str, int] | None:
        """The value stored under ``key`` and its version (e.g. the web app's undo tree)."""
        with self._read() as db:
            row = db.execute(select(t_kv.c.value, t_kv.c.version).where(
                t_kv.c.project == self.key, t_kv.c.key == key)).first()
        return (str(row[0]), int(row[1])) if row else None

    def kv_set(self, key: str, value: str, *, expected_version: int | None = None) -> int:
        """Store ``value``; with ``expected_version`` (0 = must not exist) a stale write fails."""
        with self._tx() as db:
            row = db.execute(select(t_kv.c.version).where(
                t_kv.c.project == self.key, t_kv.c.key == key)).first()
            current = int(row[0]) if row else 0
            check_version(Text("thing.kv", key=key), current, expected_version)
            stmt = self.db.insert(t_kv).values(project=self.key, key=key, value=value,
                                               version=current + 1)
            db.execute(stmt.on_conflict_do_update(
                index_elements=["project", "key"],
                set_={"value": stmt.excluded.value, "version": stmt.excluded.version},
            ))
        return current + 1

    # ----------------------------------------------------------------------------- steps
    def log_step(self, kind: str, detail: dict[str, Any] | None = None) -> None:
        with self._tx() as db:
            self._log(db, self.key, kind, detail or {})

    def steps(self, limit: int = 50) -> list[Step]:
        with self._read() as db:
            rows = db.execute(select(t_steps).where(t_steps.c.project == self.key)
                              .order_by(t_steps.c.id.desc()).limit(limit)).mappings().all()
        return [Step(r["id"], r["at"], r["kind"], json.loads(r["detail"])) for r in rows]

    # --------------------------------------------------------------------------- helpers
    def _write_seed(self, db: Connection, seed: Seed) -> None:
        """``seed``'s rows in the creating transaction ``db`` (a new project: no rows yet)."""
        now = time.time()
        if seed.beats:
            db.execute(t_beats.insert(), [
                {"project": self.key, "id": number, "episode": s.beat.episode,
                 "idx": s.beat.index, "status": "accepted", "json": s.beat.model_dump_json(),
                 "instruction": s.instruction, "prose": s.prose, "created_at": now,
                 "updated_at": now}
                for number, s in enumerate(seed.beats, 1)])
        _checkpoint("import:beats-written")  # a crash point inside the creating transaction
        if seed.titles:
            db.execute(t_episodes.insert(), [
                {"project": self.key, "number": number, "title": title}
                for number, title in seed.titles.items()])
        if seed.kv:
            db.execute(t_kv.insert(), [{"project": self.key, "key": k, "value": v, "version": 1}
                                       for k, v in seed.kv.items()])
        self._log(db, self.key, seed.step, dict(seed.detail))

    @staticmethod
    def _log(db: Connection, project: str, kind: str, detail: dict[str, Any]) -> None:
        db.execute(t_steps.insert().values(
            project=project, id=next_id(t_steps, project), at=time.time(), kind=kind,
            detail=json.dumps(detail, ensure_ascii=False),
        ))

    def _update_beat(self, beat_id: int) -> Any:
        return update(t_beats).where(t_beats.c.project == self.key, t_beats.c.id == beat_id)

    def _row_for_update(
        self, db: Connection, beat_id: int, expected_version: int | None
    ) -> Mapping[Any, Any]:
        row = db.execute(self._beats().where(t_beats.c.id == beat_id)).mappings().first()
        if row is None:
            raise NotFoundError("error.beat.missing", id=beat_id)
        check_version(Text("thing.beat_id", id=beat_id), row["version"], expected_version)
        return row
