"""Schema versions (Alembic), for an embedded file and for the PostgreSQL database.

Each concern of :data:`aizac.storage.tables.CONCERNS` is an Alembic branch
(``aizac/storage/migrations/versions``). On PostgreSQL every branch lives in the one database
and ``aizac db upgrade`` (:func:`upgrade_server`) brings them to their heads; a process checks
the versions when it first uses the database and refuses one that is behind
(:func:`check_server`). An embedded file holds one branch and is brought up to date when it is
opened (:func:`ensure_concern`):

* a new file gets the branch's tables as :mod:`aizac.storage.tables` defines them and is
  stamped at the branch's head (what the migrations would build: ``tests/storage`` compares the
  two);
* a file from before schema versions (tables made by ``CREATE TABLE IF NOT EXISTS``, no
  ``alembic_version``) is *adopted*: each old table is copied into the new definition in one
  transaction, rows kept, then stamped;
* a file at an older revision is migrated by Alembic, on the same connection.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from sqlalchemy import (
    Column,
    Connection,
    Engine,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    func,
    inspect,
    literal,
    select,
    text,
)

from aizac.errors import ConfigError, StorageError
from aizac.storage.heads import HEADS as HEADS
from aizac.storage.heads import VERSION_TABLE
from aizac.storage.tables import CONCERNS


class Database(Protocol):
    """What this module uses of a :class:`aizac.storage.database.Database` (which imports this
    module when it first opens a file, so it is named here only through this Protocol)."""

    @property
    def server(self) -> bool:
        """PostgreSQL (else an embedded SQLite file)."""

    @property
    def where(self) -> str:
        """The file or the server, for messages."""

    @property
    def engine(self) -> Engine:
        """The SQLAlchemy engine."""

    def read(self, what: str = "") -> contextlib.AbstractContextManager[Connection]:
        """A read transaction."""

    def write(self, what: str = "") -> contextlib.AbstractContextManager[Connection]:
        """A write transaction."""

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
UPGRADE_LOCK = (0, 29)
"""The advisory lock ``aizac db upgrade`` holds, so replicas started together migrate once."""
LEGACY_PREFIX = "_legacy_"
version_table = Table(
    VERSION_TABLE, MetaData(),
    Column("version_num", String(32), nullable=False),
    PrimaryKeyConstraint("version_num", name="alembic_version_pkc"),
)
"""Alembic's own version table, as Alembic creates it."""
REBUILT_CACHES = ("keys",)
"""Tables an adoption may leave empty when an old layout lacks a column (rebuilt from Chroma)."""


def ours(name: str | None, kind: str, _parent: Any = None) -> bool:
    """Whether Alembic's comparison looks at ``name``: aizac's tables, not the LangGraph
    saver's that share the server database (pure)."""
    from aizac.storage.tables import metadata

    return kind != "table" or name in metadata.tables


def alembic_config(connection: Connection | None = None) -> Any:
    """An Alembic ``Config`` over aizac's migrations (``connection`` for env.py to use)."""
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


@functools.cache
def script() -> Any:
    """Alembic's view of aizac's migrations (read once per process)."""
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config())


@functools.cache
def migration_heads() -> dict[str, str]:
    """The head revision of every concern's branch, as the migrations say."""
    out: dict[str, str] = {}
    for concern in CONCERNS:
        revision = script().get_revision(f"{concern}@head")
        if revision is None:
            raise ConfigError("error.db.no_branch", concern=concern)
        out[concern] = revision.revision
    return out


def current(conn: Connection) -> set[str]:
    """The revisions stamped in this database (empty when it has no version table)."""
    if not inspect(conn).has_table(VERSION_TABLE):
        return set()
    return {str(v) for v in conn.execute(select(version_table.c.version_num)).scalars()}


def ensure_concern(db: Database, concern: str) -> None:
    """Make ``db`` ready for ``concern`` ("*": every one): see the module docstring."""
    if db.server:
        check_server(db)
        return
    head = HEADS[concern]
    try:
        with db.read() as conn:
            if head in current(conn):
                return
        with db.write() as conn:
            stamped = current(conn)
            if head in stamped:
                return
            if not stamped:
                _create_or_adopt(conn, concern)
                _stamp(conn, head)
                return
        keep_before_migrating(db, stamped)
        with db.write() as conn:  # an older revision: Alembic migrates it
            from alembic import command

            command.upgrade(alembic_config(conn), f"{concern}@head")
    except StorageError:
        raise
    except Exception as e:  # Alembic and the driver raise many kinds
        raise StorageError("error.db.migrate", where=db.where, cause=str(e)) from e


def keep_before_migrating(db: Database, stamped: set[str]) -> Path | None:
    """Before Alembic migrates an embedded file: a copy of it as it is, beside it
    (``<file>.before-<revision>.<time>.bak``, SQLite's online backup API: one consistent
    snapshot), so a migration that goes wrong loses nothing. Returns the copy."""
    import sqlite3
    import time

    from aizac.storage.health import copy_sqlite

    if db.server or db.where == ":memory:":
        return None
    source = Path(db.where)
    revision = "-".join(sorted(stamped)) or "none"
    target = source.with_name(
        f"{source.name}.before-{revision}.{time.strftime('%Y%m%d-%H%M%S')}.bak")
    try:
        copy_sqlite(source, target)
    except BaseException as e:
        with contextlib.suppress(OSError):
            target.unlink()  # no half copy beside the file (a damaged one is said as such)
        if isinstance(e, OSError | sqlite3.Error):
            raise StorageError("error.db.migration_backup", where=str(source),
                               cause=str(e)) from e
        raise
    return target


def _create_or_adopt(conn: Connection, concern: str) -> None:
    have = set(inspect(conn).get_table_names())
    for table in CONCERNS[concern]:
        if table.name in have:
            _adopt(conn, table)
        else:
            table.create(conn)


def _adopt(conn: Connection, table: Table) -> None:
    """Copy a table made before schema versions into its definition (rows kept)."""
    old_name = LEGACY_PREFIX + table.name
    info = inspect(conn)
    old_columns = {c["name"] for c in info.get_columns(table.name)}
    for index in info.get_indexes(table.name):
        if index.get("name"):
            conn.execute(text(f'DROP INDEX IF EXISTS "{index["name"]}"'))
    conn.execute(text(f'ALTER TABLE "{table.name}" RENAME TO "{old_name}"'))
    table.create(conn)
    missing = [c for c in table.columns if c.name not in old_columns and c.name != "project"
               and not c.nullable and c.server_default is None]
    keyed = "project" in table.c  # a project's row; accounts are the server's, unkeyed
    if missing and table.name not in REBUILT_CACHES:
        raise StorageError("error.db.adopt", table=table.name,
                           columns=", ".join(c.name for c in missing))
    if not missing:
        kept = [c for c in table.columns if c.name in old_columns]
        old = Table(old_name, MetaData(), *(Column(c.name, c.type) for c in kept))
        names = [c.name for c in kept if c.name != "project"]
        columns = [*([literal("")] if keyed else []), *(old.c[n] for n in names)]
        conn.execute(table.insert().from_select([*(["project"] if keyed else []), *names],
                                                select(*columns)))
    conn.execute(text(f'DROP TABLE "{old_name}"'))


def _stamp(conn: Connection, revision: str) -> None:
    """Record ``revision`` as this file's version, in Alembic's version table."""
    version_table.create(conn, checkfirst=True)
    conn.execute(version_table.insert().values(version_num=revision))


# ---------------------------------------------------------------------------- server
def check_server(db: Database) -> None:
    """Refuse a PostgreSQL database whose schema is not at this aizac's version.

    Raises:
        ConfigError: the database is empty or behind (run ``aizac db upgrade``), or ahead
            (a newer aizac migrated it).
        StorageError: the server cannot be reached.
    """
    from sqlalchemy.exc import DBAPIError

    try:
        with db.engine.connect() as conn:
            stamped = current(conn)
    except DBAPIError as e:
        raise StorageError("error.db.unreachable", where=db.where,
                           cause=str(e.orig or e).strip().splitlines()[0]) from e
    wanted = set(HEADS.values())
    if stamped == wanted:
        return
    if not stamped:
        raise ConfigError("error.db.empty", where=db.where)
    raise ConfigError("error.db.behind", where=db.where, have=", ".join(sorted(stamped)),
                      want=", ".join(sorted(wanted)))


def upgrade_server(
    db: Database, before_migrating: Callable[[set[str]], None] | None = None,
) -> tuple[set[str], set[str]]:
    """Create or migrate every branch in the PostgreSQL database (under an advisory lock:
    replicas that run it together migrate once). Returns the revisions before and after.

    ``before_migrating(stamped)`` is called under the lock when the database holds aizac's
    tables and is not at this aizac's version (a migration of data is about to run): the
    caller dumps the database then (``aizac db upgrade``)."""
    from alembic import command

    with db.engine.connect() as conn:
        conn.execute(select(func.pg_advisory_lock(*UPGRADE_LOCK)))
        try:
            conn.commit()
            before = current(conn)
            conn.commit()
            if before and before != set(HEADS.values()) and before_migrating is not None:
                before_migrating(before)
            command.upgrade(alembic_config(conn), "heads")
            conn.commit()
            after = current(conn)
            conn.commit()
        finally:
            conn.execute(select(func.pg_advisory_unlock(*UPGRADE_LOCK)))
            conn.commit()
    return before, after

