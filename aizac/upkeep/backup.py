"""A consistent backup of one project, taken while the app may be running (``aizac backup``).

The project is held still for the copy: its step lock (embedded: the folder's file lock that
every writing process takes for each step; on PostgreSQL: the project's advisory lock), so no
step of this process or another one runs half-copied. Inside it:

* **SQLite files** (the project's rows, the journal, the key index, the autopilot's files, the
  style evidence) are copied with SQLite's online backup API (``sqlite3.Connection.backup``):
  one consistent snapshot of each, whatever another connection does;
* **Chroma's files** (``memory/``): the vector-index files are copied, then ``chroma.sqlite3``
  with the backup API, then the index files are looked at again; an index that Chroma
  persisted meanwhile (its files changed) makes the memory be copied again, so the copy is of
  one moment (Chroma replays its log past the index on open);
* **on PostgreSQL** the project's rows are read in one ``REPEATABLE READ`` transaction (the
  database's own consistent snapshot, what ``pg_dump`` uses) and written as the SQLite files an
  embedded project keeps, so a backup restores into either engine; on a Chroma server the
  project's collection is read into an embedded Chroma store in the backup.

The copy is then zipped with its manifest (:mod:`aizac.upkeep.archive`) under a hidden name and
renamed into place: a backup killed at any moment leaves either no backup or a whole one, and
never touches the project. A damaged project is refused (its backup would be the "newest
backup" a damaged project's message points to).
"""

from __future__ import annotations

import contextlib
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import DBAPIError

from aizac.errors import DamagedError, StorageError
from aizac.memory.chroma_health import CHROMA_FILE
from aizac.settings import Settings
from aizac.storage.database import EMBEDDED_FILES, forget_file, sqlite_file
from aizac.storage.health import copy_sqlite
from aizac.storage.killpoints import checkpoint
from aizac.storage.leftovers import remove_stale, temporary_name
from aizac.storage.tables import CONCERNS, PROJECT_CONCERNS
from aizac.upkeep.archive import Manifest, write_archive
from aizac.upkeep.layout import (
    backups,
    damaged_error,
    is_sqlite,
    memory_damage,
    new_backup_path,
    newest_backup,
    noted_damage,
    project_files,
    reason_of,
)
from aizac.writer.project import ProjectStore

KEEP_AUTOMATIC = 5
"""Automatic backups (before a reindex, a migration, a restore) kept per project; a backup
taken by hand is never removed."""
COPY_TRIES = 5
"""How often the memory is copied again when Chroma persisted its index during a copy."""


@dataclass(frozen=True)
class BackupReport:
    """What a backup wrote.

    Attributes:
        path: the backup file.
        project: the project's name.
        files: files in it.
        size: its size in bytes.
        seconds: how long it took.
    """

    path: Path
    project: str
    files: int
    size: int
    seconds: float


def _stats(folder: Path) -> dict[str, tuple[int, int]]:
    """Size and change time of every vector-index file of the Chroma store in ``folder``."""
    out: dict[str, tuple[int, int]] = {}
    for path in folder.rglob("*"):
        if path.is_file() and path.parent != folder:
            stat = path.stat()
            out[str(path.relative_to(folder))] = (stat.st_size, stat.st_mtime_ns)
    return out


def copy_chroma(source: Path, target: Path) -> None:
    """The embedded Chroma store in ``source`` copied to ``target`` as of one moment (see the
    module docstring).

    Raises:
        StorageError: Chroma kept persisting its index during every try.
    """
    for _ in range(COPY_TRIES):
        before = _stats(source)
        for relative in before:
            copied = target / relative
            copied.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source / relative, copied)
        if (source / CHROMA_FILE).exists():
            copy_sqlite(source / CHROMA_FILE, target / CHROMA_FILE)
        if _stats(source) == before:
            return
        shutil.rmtree(target, ignore_errors=True)
    raise StorageError("error.backup.busy_memory", path=str(source), tries=COPY_TRIES)


def _copy_folder(store: ProjectStore, staging: Path, *, chroma: bool,
                 verbatim: bool = False) -> None:
    """The project folder's files into ``staging``: SQLite files by the backup API, the Chroma
    store in ``memory/`` as of one moment (``chroma``: when it is an embedded one), the rest as
    they are (``verbatim``: every file byte for byte, a damaged one too)."""
    folder = store.directory
    memory = store.memory_dir
    for path in project_files(folder):
        relative = path.relative_to(folder)
        if verbatim:
            (staging / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, staging / relative)
            continue
        if chroma and path.is_relative_to(memory) and (
                path.name == CHROMA_FILE or path.parent != memory):
            continue  # Chroma's own files: below, together
        target = staging / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if is_sqlite(path):
            copy_sqlite(path, target)
        else:
            shutil.copy2(path, target)
    if chroma and not verbatim and (memory / CHROMA_FILE).exists():
        copy_chroma(memory, staging / "memory")


SNAPSHOT_CONCERNS = PROJECT_CONCERNS
"""The concerns a server project's backup carries as an embedded project's files."""


def _copy_rows(store: ProjectStore, settings: Settings, staging: Path) -> None:
    """A project on the server database: every row of it read in one ``REPEATABLE READ``,
    read-only transaction (one snapshot of the database, as ``pg_dump`` takes), written as an
    embedded project's files under the embedded key ``""``; then its autopilot checkpoints."""
    catalog = store.catalog
    if catalog is None:
        raise TypeError("_copy_rows takes a project on the server database")
    targets = {c: staging / EMBEDDED_FILES[c] for c in SNAPSHOT_CONCERNS}
    rows: dict[str, list[dict[str, Any]]] = {}
    try:
        with catalog.db.engine.connect() as conn:
            conn = conn.execution_options(isolation_level="REPEATABLE READ",
                                          postgresql_readonly=True)
            with conn.begin():
                for concern in SNAPSHOT_CONCERNS:
                    for table in CONCERNS[concern]:
                        rows[table.name] = [
                            {**r, "project": ""} for r in conn.execute(
                                select(table).where(table.c.project == store.key)).mappings()]
    except DBAPIError as e:
        raise StorageError("error.db.read", where=catalog.db.where,
                           cause=str(e.orig or e).strip().splitlines()[0]) from e
    for concern, path in targets.items():
        target = sqlite_file(path, concern)
        try:
            with target.write(str(path)) as dst:
                for table in CONCERNS[concern]:  # a picture before its placement
                    if rows[table.name]:
                        dst.execute(table.insert(), rows[table.name])
        finally:
            forget_file(path)
    _copy_checkpoints(store, settings, staging)


def _copy_checkpoints(store: ProjectStore, settings: Settings, staging: Path) -> None:
    """The project's autopilot checkpoints on the database's saver into the backup's
    ``autopilot_checkpoints.sqlite3``, under their bare run ids (as an embedded project keeps
    them)."""
    from aizac.storage.checkpointer import (
        close_checkpointer,
        copy_checkpoints,
        open_checkpointer,
        thread_id,
    )
    from aizac.writer.server_projects import run_ids, saver_url

    url = saver_url(settings)
    runs = run_ids(store)
    if url is None or not runs:
        return
    source = open_checkpointer(store.directory, f"postgres:{url}")
    target = open_checkpointer(staging, "sqlite")
    prefix = thread_id("", store.key)
    try:
        copy_checkpoints(source, target, lambda thread: thread.removeprefix(prefix),
                         threads=[thread_id(run, store.key) for run in runs])
    finally:
        close_checkpointer(source)
        close_checkpointer(target)


def _export_collection(collection: Any, staging: Path) -> None:
    """A memory on a Chroma server, read into an embedded store in ``staging/memory`` under
    the same collection name (its rows with their vectors, its metadata: the turn, the
    short-term summaries, the embedding's fingerprint)."""
    from aizac.memory.chroma_client import ChromaClients
    from aizac.memory.reindex import REPLACES_KEY
    from aizac.memory.rows import HNSW

    folder = staging / "memory"
    folder.mkdir(parents=True, exist_ok=True)
    client = ChromaClients(Settings(chroma_host=None)).client(path=folder)
    try:
        meta = {k: v for k, v in (collection.metadata or {}).items() if k != REPLACES_KEY}
        target = client.get_or_create_collection(collection.name, embedding_function=None,
                                                 configuration={"hnsw": dict(HNSW)},
                                                 metadata=meta or None)
        offset, page = 0, 500
        while True:
            got = collection.get(include=["embeddings", "documents", "metadatas"], limit=page,
                                 offset=offset)
            if got["ids"]:
                target.add(ids=got["ids"], embeddings=got["embeddings"],
                           documents=got["documents"], metadatas=got["metadatas"])
            if len(got["ids"]) < page:
                break
            offset += page
    finally:
        with contextlib.suppress(Exception):
            client.close()
        from aizac.memory.chroma_health import forget_system

        forget_system(folder)


def backup_project(
    store: ProjectStore, settings: Settings, *, reason: str = "", memory: Any = None,
    target: Path | None = None, keep: int = KEEP_AUTOMATIC, damaged: bool = False,
) -> BackupReport:
    """Back up the project of ``store`` (see the module docstring) into its backups folder
    (``target``: this file instead); ``reason`` names an automatic one (``before-reindex``).

    ``memory`` is the project's open memory, needed when it lives on a Chroma server (its
    collection is read); an embedded one is copied as files. The caller may hold the
    project's lock already (it is re-entrant). ``damaged``: the project is known damaged and
    its files are kept as they are, byte for byte (what a restore on the database replaces).

    Raises:
        DamagedError: a file of the project is damaged (no backup is taken).
        StorageError: the backup could not be written (nothing is left of it).
    """
    from aizac.memory.chroma_client import server_mode

    started = time.monotonic()
    info = store.info()
    folder = store.directory
    on_server = server_mode(settings)
    if not store.server:
        damage = damaged_error(folder)
    else:  # the rows are on the database; an embedded memory is files all the same
        damage = None if on_server else memory_damage(store)
    damage = damage or noted_damage(folder)  # what an open found that a quick look cannot
    if damage is not None and not damaged:
        raise damage
    destination = target or new_backup_path(folder, info.name, reason)
    destination.parent.mkdir(parents=True, exist_ok=True)
    remove_stale(destination.parent)
    staging = destination.parent / temporary_name(info.name, "new")
    manifest = Manifest(project=info.name, created_at=info.created_at, reason=reason,
                        engine="postgresql" if store.server else "sqlite",
                        memory="server" if on_server else "embedded")
    try:
        staging.mkdir(parents=True)
        with store.lock():
            _copy_folder(store, staging, chroma=not on_server, verbatim=damaged)
            if store.server:
                _copy_rows(store, settings, staging)
            if on_server:
                if memory is None:
                    raise StorageError("error.backup.memory_closed", project=info.name)
                _export_collection(memory.collection, staging)
                manifest.collection = str(memory.collection.name)
            checkpoint("backup:copied")
        write_archive(staging, manifest, destination)
        checkpoint("backup:written")
    except DamagedError as e:  # a page only the copy read: no backup, the newest one named
        raise e.with_backup(newest_backup(folder)) from e
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    if reason:
        prune(folder, keep)
    return BackupReport(destination, info.name, len(manifest.files),
                        destination.stat().st_size, time.monotonic() - started)


def prune(project_dir: Path, keep: int = KEEP_AUTOMATIC) -> list[Path]:
    """Remove the oldest automatic backups of the project past the newest ``keep`` (a backup
    taken by hand is kept); returns what was removed."""
    automatic = [p for p in backups(project_dir) if reason_of(p)]
    removed = automatic[: max(0, len(automatic) - keep)]
    for path in removed:
        with contextlib.suppress(OSError):
            path.unlink()
    return removed
