"""One database handle for both engines: an embedded SQLite file, or PostgreSQL (thin adapter).

:class:`Database` wraps a SQLAlchemy engine and gives every store the same three things:
:meth:`~Database.write` (one transaction, all of it or none of it), :meth:`~Database.read`, and
:meth:`~Database.insert` (the dialect's ``INSERT`` with ``ON CONFLICT``, which SQLite and
PostgreSQL spell the same in SQLAlchemy). Queries are written once, in SQLAlchemy Core, over
the tables of :mod:`aizac.storage.tables`.

* **SQLite** (the embedded default): one engine per file, WAL, ``synchronous=NORMAL``; a write
  transaction starts with ``BEGIN IMMEDIATE``, so two writers queue at the start instead of
  failing half way (``timeout`` 30 s). Opening a file brings its schema up to date
  (:mod:`aizac.storage.schema`).
* **PostgreSQL** (``AIZAC_DATABASE_URL=postgresql://...``, psycopg 3): one pooled engine per
  URL for the process. The schema is ``aizac db upgrade``'s; a process refuses a database that
  is not at its version. A project's writes are serialised by the database: every write
  transaction of a project takes the project's transaction-level advisory lock first
  (:meth:`Database.serialise`), so a version check and its update can never interleave with
  another process's.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from sqlalchemy import Connection, Engine, Table, create_engine, event, func, select
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.pool import StaticPool

from aizac.errors import ConfigError, StorageError
from aizac.storage.health import Damage, ask_sqlite, is_damage_code, sqlite_damage

SQLITE_TIMEOUT = 30.0
LOCK_STEP, LOCK_WRITE = 1, 2
"""Advisory-lock namespaces: a project's step lock (a session lock held across a multi-store
step) and its write lock (a transaction lock inside each write). Two namespaces, because a
session lock and a transaction lock on one key from two connections of one process would
wait for each other."""

EMBEDDED_FILES = {
    "project": "project.sqlite3",
    "runs": "autopilot_runs.sqlite3",
    "continuity": "continuity.sqlite",
    "keys": "memory/aizac-keys.sqlite3",
    "journal": "memory/aizac-commits.sqlite3",
}
"""Where an embedded project keeps each concern, relative to its folder (as it always did)."""

_FILES: dict[Path, Database] = {}
_SERVERS: dict[str, Database] = {}
_GUARD = threading.Lock()


def server_url(url: str) -> str:
    """``url`` for SQLAlchemy's psycopg 3 dialect (``postgresql://`` -> ``postgresql+psycopg://``).

    Raises:
        ConfigError: not a PostgreSQL URL.
    """
    text = url.strip()
    for prefix in ("postgresql+psycopg://", "postgresql://", "postgres://"):
        if text.startswith(prefix):
            return "postgresql+psycopg://" + text[len(prefix):]
    raise ConfigError("error.db.url", url=redact(text))


def libpq_url(url: str) -> str:
    """``url`` as libpq (psycopg, LangGraph's saver) reads it: ``postgresql://...``."""
    return "postgresql://" + server_url(url)[len("postgresql+psycopg://"):]


def redact(url: str) -> str:
    """``url`` without its password, for messages (pure)."""
    head, sep, rest = url.partition("://")
    if not sep or "@" not in rest:
        return url
    creds, at, host = rest.rpartition("@")
    user = creds.split(":", 1)[0]
    return f"{head}://{user}{':***' if ':' in creds else ''}{at}{host}"


def lock_key(key: str) -> int:
    """A signed 32-bit number for an advisory lock on ``key`` (pure; collisions only make two
    projects queue behind each other)."""
    return int.from_bytes(hashlib.blake2b(key.encode("utf-8"), digest_size=4).digest(),
                          "big", signed=True)


@dataclass(frozen=True)
class Scope:
    """Where one concern's rows of one project live: a database and the project's key
    (``""`` in an embedded file, which holds one project)."""

    db: Database
    project: str = ""


class Database:
    """A SQLAlchemy engine and how aizac uses it (see the module docstring).

    Args:
        engine: the engine (SQLite or PostgreSQL).
        where: what to call it in messages (a file path, or the URL without its password).
    """

    def __init__(self, engine: Engine, where: str) -> None:
        self.engine = engine
        self.where = where
        self.server = engine.dialect.name == "postgresql"
        self._ready: set[str] = set()
        self._ready_lock = threading.Lock()

    # --------------------------------------------------------------------- constructors
    @classmethod
    def sqlite(cls, path: Path | None, *, wal: bool = True) -> Database:
        """An engine on the SQLite file ``path`` (``None``: a private in-memory database;
        ``wal=False``: the file keeps SQLite's rollback journal, e.g. a file being made)."""
        if path is None:
            engine = create_engine(
                "sqlite://", poolclass=StaticPool,
                connect_args={"check_same_thread": False, "timeout": SQLITE_TIMEOUT},
            )
            where = ":memory:"
        else:
            engine = create_engine(
                f"sqlite:///{path}",
                connect_args={"check_same_thread": False, "timeout": SQLITE_TIMEOUT},
            )
            where = str(path)
        _sqlite_transactions(engine, wal=wal and path is not None)
        return cls(engine, where)

    @classmethod
    def postgresql(cls, url: str, **pool: Any) -> Database:
        """A pooled engine on the PostgreSQL database at ``url`` (psycopg 3)."""
        try:
            import psycopg  # noqa: F401  (a clear error instead of SQLAlchemy's)
        except ImportError as e:
            raise ConfigError("error.db.driver") from e
        sized = {} if "poolclass" in pool else {"pool_size": 10, "max_overflow": 30,
                                                "pool_recycle": 1800}
        options = {**sized, "pool_pre_ping": True, **pool}
        engine = create_engine(server_url(url), **options)
        return cls(engine, redact(url))

    # ------------------------------------------------------------------------ dialect
    def insert(self, table: Table) -> Any:
        """``INSERT`` into ``table`` with ``on_conflict_do_update/nothing`` (the dialect's)."""
        if self.server:
            from sqlalchemy.dialects.postgresql import insert as pg_insert

            return pg_insert(table)
        from sqlalchemy.dialects.sqlite import insert as sqlite_insert

        return sqlite_insert(table)

    # -------------------------------------------------------------------- transactions
    @contextlib.contextmanager
    def write(self, what: str = "") -> Iterator[Connection]:
        """One write transaction: committed whole, or rolled back (and the error raised).

        A driver error becomes :class:`StorageError`; an :class:`IntegrityError` (a unique key
        taken) is left to the caller, who knows what it means."""
        try:
            with self.engine.connect() as conn:
                conn.execution_options(aizac_write=True)
                with conn.begin():
                    yield conn
        except IntegrityError:
            raise
        except DBAPIError as e:
            self._raise_damage(e)
            raise StorageError("error.db.write", where=what or self.where,
                               cause=_cause(e)) from e

    @contextlib.contextmanager
    def read(self, what: str = "") -> Iterator[Connection]:
        """A read-only look (one snapshot on SQLite; ``READ COMMITTED`` on PostgreSQL)."""
        try:
            with self.engine.connect() as conn, conn.begin():
                yield conn
        except DBAPIError as e:
            self._raise_damage(e)
            raise StorageError("error.db.read", where=what or self.where,
                               cause=_cause(e)) from e

    def _raise_damage(self, error: DBAPIError) -> None:
        """Raise the :class:`~aizac.errors.DamagedError` of this SQLite file when ``error`` is
        SQLite saying it is damaged (corrupt, cut short, not a database); else return."""
        if self.server or self.where == ":memory:" or not is_damage_code(error.orig):
            return
        found = ask_sqlite(Path(self.where)) or Damage(
            Path(self.where), "malformed", _cause(error))
        raise found.error() from error

    def serialise(self, conn: Connection, key: str) -> None:
        """Queue this write transaction behind every other one of ``key`` (a project), on
        PostgreSQL; SQLite's ``BEGIN IMMEDIATE`` already holds the file's one write lock."""
        if self.server and key:
            conn.execute(select(func.pg_advisory_xact_lock(LOCK_WRITE, lock_key(key))))

    # ------------------------------------------------------------------------ schema
    def ensure(self, concern: str) -> None:
        """Bring (SQLite) or check (PostgreSQL) the tables of ``concern``, once per process."""
        if concern in self._ready:
            return
        with self._ready_lock:
            if concern in self._ready:
                return
            from aizac.storage.schema import ensure_concern

            ensure_concern(self, concern)
            self._ready.add(concern)

    def dispose(self) -> None:
        self.engine.dispose()


def _cause(error: DBAPIError) -> str:
    return str(error.orig).strip().splitlines()[0] if error.orig is not None else str(error)


def _sqlite_transactions(engine: Engine, *, wal: bool) -> None:
    """Let SQLAlchemy, not the driver, begin transactions, as ``BEGIN IMMEDIATE`` for writes
    (the pysqlite recipe of SQLAlchemy's documentation)."""

    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # no implicit BEGIN from the driver
        cursor = dbapi_conn.cursor()
        try:
            if wal:  # WAL persists in the file; NORMAL survives a killed process
                cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        immediate = conn.get_execution_options().get("aizac_write", False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


# ------------------------------------------------------------------------------ registry
def sqlite_file(path: Path, concern: str, *, mode: int | None = None) -> Database:
    """The process's :class:`Database` on the SQLite file ``path``, its ``concern``'s tables
    up to date (a new file is made with permissions ``mode``, when given).

    Raises:
        DamagedError: the file is there but damaged (empty, cut short, not SQLite).
    """
    key = Path(path).absolute()
    with _GUARD:
        db = _FILES.get(key)
        if db is None:
            try:
                key.parent.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise StorageError("error.db.folder", where=str(key.parent),
                                   cause=e.strerror or str(e)) from e
            found = sqlite_damage(key, must_exist=False)
            if found is not None:  # never open a damaged file as if it were a new one
                raise found.error()
            if not key.exists():
                _make_file(key, concern, mode)
            db = Database.sqlite(key)
            _FILES[key] = db
    db.ensure(concern)
    return db


def _make_file(path: Path, concern: str, mode: int | None = None) -> None:
    """A new SQLite file of ``concern`` at ``path``, with its tables: made under a temporary
    name and linked into place whole, so a process killed while making it leaves no empty
    file behind (an empty file is damage, :mod:`aizac.storage.health`). Another process that
    made it first wins; its file is kept."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.new")
    try:
        made = Database.sqlite(temporary, wal=False)
        try:
            made.ensure(concern)
        finally:
            made.dispose()
        if mode is not None:  # before it is in place: its WAL files take its mode
            os.chmod(temporary, mode)
        try:
            os.link(temporary, path)  # never over a file another process made meanwhile
        except FileExistsError:
            pass
        except OSError:  # a file system without hard links
            if not path.exists():
                os.replace(temporary, path)
    except OSError as e:
        raise StorageError("error.db.folder", where=str(path.parent),
                           cause=e.strerror or str(e)) from e
    finally:
        for leftover in (temporary, temporary.with_name(temporary.name + "-journal")):
            with contextlib.suppress(OSError):
                leftover.unlink()


def forget_file(path: Path) -> None:
    """Close the engine of ``path`` (its folder is being removed or replaced)."""
    with _GUARD:
        db = _FILES.pop(Path(path).absolute(), None)
    if db is not None:
        db.dispose()


def forget_folder(folder: Path) -> None:
    """Close the engine of every SQLite file under ``folder`` (a project folder being removed:
    a pooled connection would go on reading and writing the removed file's rows, and a new
    project of the same name would see them)."""
    root = Path(folder).absolute()
    with _GUARD:
        gone = [path for path in _FILES if path.is_relative_to(root)]
        dbs = [_FILES.pop(path) for path in gone]
    for db in dbs:
        db.dispose()


def server_database(url: str) -> Database:
    """The process's pooled :class:`Database` on the PostgreSQL ``url`` (schema checked)."""
    with _GUARD:
        db = _SERVERS.get(url)
        if db is None:
            db = Database.postgresql(url)
            _SERVERS[url] = db
    db.ensure("*")
    return db


def forget_server(url: str) -> None:
    """Close the process's pool on ``url`` (tests drop their databases)."""
    with _GUARD:
        db = _SERVERS.pop(url, None)
    if db is not None:
        db.dispose()


class Scoped(Protocol):
    """A project's store as :func:`scope_of` asks it
    (:class:`aizac.writer.project.ProjectStore`)."""

    def scope(self, concern: str) -> Scope: ...


ProjectPlace = Scoped | str | os.PathLike[str]
"""A project's store, or the folder of an embedded project."""


def scope_of(where: ProjectPlace, concern: str) -> Scope:
    """Where a project's rows of ``concern`` live: ``where`` is its store (its ``scope``: the
    server database or its folder's file) or, embedded, its folder."""
    if isinstance(where, str | os.PathLike):
        return Scope(sqlite_file(Path(where) / EMBEDDED_FILES[concern], concern))
    return where.scope(concern)
