"""A project on the server database (``AIZAC_DATABASE_URL``) as a whole: deleted (its rows in
every table, its autopilot checkpoints) and written out as the embedded files an embedded
project keeps in its folder (for a user's export).

Embedded, a project is its folder: removing the folder removes everything, and an export
copies the folder's SQLite files. On PostgreSQL the rows of every project share the tables and
the checkpoints share LangGraph's saver, so both need saying here. The memory (a Chroma
collection) is the caller's: it lives wherever the Studio keeps it.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import select

from aizac.settings import Settings
from aizac.storage.database import EMBEDDED_FILES, forget_file, sqlite_file
from aizac.storage.tables import CONCERNS
from aizac.storage.tables import runs as t_runs
from aizac.writer.project import ProjectStore

EXPORTED_CONCERNS = ("project", "runs", "continuity")
"""The concerns an embedded export carries as files (the key index and the commit journal
live under ``memory/``, which an export gives as ``memories.json`` instead)."""


def saver_url(settings: Settings) -> str | None:
    """The PostgreSQL URL of the autopilot's checkpoints, when they live on a server."""
    from aizac.storage.checkpointer import checkpointer_spec

    spec = checkpointer_spec(settings.autopilot_checkpointer, settings.database)
    kind, _, rest = spec.partition(":")
    return rest if kind in ("postgres", "postgresql") and rest else None


def run_ids(store: ProjectStore) -> list[str]:
    """The ids of the project's autopilot runs (their checkpoint threads)."""
    scope = store.scope("runs")
    with scope.db.read() as conn:
        return list(conn.execute(select(t_runs.c.id).where(t_runs.c.project == scope.project)
                                 .order_by(t_runs.c.id)).scalars())


def drop_project(store: ProjectStore, settings: Settings) -> None:
    """Delete the server project ``store``: its checkpoints, then every row of it in one
    transaction (a failure between the two leaves the project, and deleting again finishes).
    The caller holds the project's step lock and has dropped its memory."""
    from aizac.storage.checkpointer import (
        close_checkpointer,
        delete_threads,
        open_checkpointer,
        thread_id,
    )

    catalog = store.catalog
    if catalog is None:
        raise TypeError("drop_project takes a project on the server database")
    url = saver_url(settings)
    if url is not None:
        saver = open_checkpointer(store.directory, f"postgres:{url}")
        try:
            delete_threads(saver, [thread_id(run, store.key) for run in run_ids(store)])
        finally:
            close_checkpointer(saver)
    catalog.delete(store.key)


def write_embedded(store: ProjectStore, settings: Settings, folder: Path) -> list[Path]:
    """Write the server project ``store`` into ``folder`` as an embedded project keeps it
    (``project.sqlite3``, ``autopilot_runs.sqlite3``, ``continuity.sqlite`` with the rows under
    the embedded key ``""``, and ``autopilot_checkpoints.sqlite3`` with its runs' threads under
    their bare run ids); returns the files written. The caller holds the project's step lock,
    so the copy is of one moment."""
    from aizac.storage.checkpointer import (
        CHECKPOINTS_FILE,
        close_checkpointer,
        copy_checkpoints,
        open_checkpointer,
        thread_id,
    )

    written: list[Path] = []
    for concern in EXPORTED_CONCERNS:
        path = folder / EMBEDDED_FILES[concern]
        scope = store.scope(concern)
        target = sqlite_file(path, concern)
        try:
            with scope.db.read() as src, target.write(str(path)) as dst:
                for table in CONCERNS[concern]:  # a picture before its placement
                    rows = src.execute(select(table).where(table.c.project == scope.project)
                                       ).mappings().all()
                    if rows:
                        dst.execute(table.insert(), [{**r, "project": ""} for r in rows])
        finally:
            forget_file(path)
        written.append(path)
    url = saver_url(settings)
    runs = run_ids(store)
    if url is not None and runs:
        source = open_checkpointer(store.directory, f"postgres:{url}")
        target_saver = open_checkpointer(folder, "sqlite")
        prefix = thread_id("", store.key)
        try:
            copy_checkpoints(source, target_saver, lambda thread: thread.removeprefix(prefix),
                             threads=[thread_id(run, store.key) for run in runs])
        finally:
            close_checkpointer(source)
            close_checkpointer(target_saver)
        written.append(folder / CHECKPOINTS_FILE)
    return written


__all__ = ["drop_project", "run_ids", "saver_url", "write_embedded"]


def drop_owner_projects(settings: Settings, owner: str) -> None:
    """Every project of ``owner`` on the server database: its rows and checkpoints (each under
    its step lock, so a write of another process finishes first). Nothing without a server
    database; the memory goes with the owner's Chroma database, or with the folder."""
    url = settings.database
    if url is None:
        return
    from aizac.storage.catalog import Catalog
    from aizac.storage.database import server_database

    catalog = Catalog(server_database(url), owner)
    root = settings.data_dir / "users" / owner / "projects"
    for name in catalog.names():
        store = ProjectStore.open(root, name, catalog=catalog)
        with store.lock():
            drop_project(store, settings)
