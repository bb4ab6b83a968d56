"""Put a backup back, all or nothing (``aizac restore FILE``); the backup is only read.

1. The backup is verified whole (every file's size and SHA-256 against its manifest) before
   anything else happens: a backup cut short or changed is refused.
2. It is extracted into a hidden staging folder beside the projects (``.restore.<pid>-<id>.new``),
   each file fsynced. Killed until here, nothing happened; the next restore removes the folder.
3. **The commit**: a small journal beside it (``....json``, written whole: a temporary file
   renamed over) says which project the staging folder becomes. From here on the restore is
   finished by whoever comes next, killed or not.
4. On PostgreSQL, the project's rows are replaced in one transaction by the backup's (the
   project's key kept, so its autopilot runs and its memory stay its own; a project that was
   not there gets a new key and row in the same transaction); the current rows are backed up
   first (a ``before-restore`` backup).
5. The project's folder is renamed aside and the staging folder renamed into its place; the
   folder set aside is kept in the project's backups folder (``replaced-<time>/``): nothing a
   writer made is deleted, a damaged project included.
6. The journal is removed.

:func:`finish_restores` (run by the next restore, and by the Studio before it lists or opens
projects) reads each journal a killed restore left: it redoes step 4 (idempotent: delete and
insert) while the staging folder still holds the rows, then steps 5 and 6; a staging folder
without a journal (a restore killed before its commit) is removed. A restore holds the
projects folder's restore lock from its commit to its end, so a finisher never runs beside a
live restore. Embedded, the project is claimed first: a project another process has open (the
web app) is refused, named.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import delete, select

from aizac.errors import ConflictError, InvalidInputError, StorageError
from aizac.settings import Settings
from aizac.storage.database import EMBEDDED_FILES, forget_file, forget_folder, sqlite_file
from aizac.storage.killpoints import checkpoint
from aizac.storage.leftovers import fsync_dir, remove_stale, temporary_name
from aizac.storage.tables import CONCERNS, PROJECT_CONCERNS, projects
from aizac.upkeep.archive import Manifest, extract, verify
from aizac.upkeep.layout import backups_dir
from aizac.writer.project import ProjectStore, validate_project_name
from aizac.writer.project_dirs import claim_project, release_project

if TYPE_CHECKING:
    from aizac.storage.catalog import Catalog

PREFIX = ".restore."
LOCK_FILE = ".restore.lock"
ROW_CONCERNS = PROJECT_CONCERNS
"""The concerns a backup carries as row files (put back as rows on the database)."""
POINTER_FILE = "collections.json"


@dataclass(frozen=True)
class RestoreReport:
    """What a restore did.

    Attributes:
        project: the project restored.
        archive: the backup it came from.
        kept: where the project's previous state is kept (its folder set aside, or a
            ``before-restore`` backup); ``None`` when there was no such project.
        files: files restored.
        seconds: how long it took.
    """

    project: str
    archive: Path
    kept: Path | None
    files: int
    seconds: float


@contextlib.contextmanager
def _root_lock(root: Path, wait: float) -> Iterator[bool]:
    """The projects folder's restore lock (``True`` when taken within ``wait`` seconds)."""
    from filelock import FileLock, Timeout

    root.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(root / LOCK_FILE), thread_local=False)
    try:
        lock.acquire(timeout=wait)
    except Timeout:
        yield False
        return
    try:
        yield True
    finally:
        lock.release()


def _write_journal(path: Path, data: dict[str, Any]) -> None:
    temporary = path.with_name(path.name + ".tmp")
    with open(temporary, "w", encoding="utf-8") as f:
        json.dump(data, f, ensure_ascii=False)
        f.flush()
        os.fsync(f.fileno())
    os.replace(temporary, path)
    fsync_dir(path.parent)


def restore_backup(
    archive: Path, root: Path, settings: Settings, *, name: str | None = None,
    catalog: Catalog | None = None, owner_wait: float = 5.0,
) -> RestoreReport:
    """Restore the backup ``archive`` into the projects folder ``root`` (as project ``name``;
    default the backup's own), on ``catalog``'s database when given (see the module
    docstring).

    Raises:
        InvalidInputError: not a backup, or a damaged one; the installation keeps memory on a
            Chroma server (not restored here, see docs/operations.md).
        ConflictError: another process has the project open.
        StorageError: the disk or the database failed (the next restore finishes or drops
            what this one left).
    """
    from aizac.memory.chroma_client import server_mode

    started = time.monotonic()
    manifest = verify(Path(archive))
    project = validate_project_name(name or manifest.project)
    if server_mode(settings):
        raise InvalidInputError("error.restore.chroma_server", project=project)
    finish_restores(root, settings, catalog=catalog)
    staging = root / temporary_name("restore", "new")
    root.mkdir(parents=True, exist_ok=True)
    try:
        staging.mkdir()
        extract(Path(archive), staging)
        _point_memory(staging, manifest)
        if project != manifest.project:
            _rename(staging, project)
        checkpoint("restore:staged")
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    directory = root / project
    kept: Path | None = None
    claimed = False
    try:
        with _root_lock(root, wait=60.0) as locked:
            if not locked:
                raise ConflictError("error.restore.busy", project=project)
            if catalog is None and directory.exists():
                claim_project(directory, wait=owner_wait)  # refused while the app has it
                claimed = True
            if catalog is not None:
                kept = _before_restore(root, project, catalog, settings)
            journal = staging.with_name(staging.name + ".json")
            key = (catalog.find(project) if catalog is not None else None) or (
                uuid.uuid4().hex if catalog is not None else "")
            data = {"project": project, "staging": staging.name,
                    "aside": f"{PREFIX}{staging.name.removeprefix(PREFIX)}.aside",
                    "archive": str(archive), "key": key, "created_at": manifest.created_at,
                    "engine": "postgresql" if catalog is not None else "sqlite"}
            _write_journal(journal, data)
            checkpoint("restore:committed")
            aside = _finish(root, data, settings, catalog)
            if catalog is None:
                kept = aside
    except BaseException:
        if not (staging.with_name(staging.name + ".json")).exists():
            shutil.rmtree(staging, ignore_errors=True)  # before the commit: nothing happened
        raise
    finally:
        if claimed:
            release_project(directory)  # its lock file went aside with the old folder
    forget_folder(directory)  # this process's handles follow the old files aside
    from aizac.memory.chroma_health import forget_system

    forget_system(directory / "memory")
    return RestoreReport(project, Path(archive), kept, len(manifest.files),
                         time.monotonic() - started)


def _point_memory(staging: Path, manifest: Manifest) -> None:
    """A memory that came from a Chroma server (read into an embedded store under its server
    collection's name) is pointed at from the project's memory name, as a reindex points."""
    if manifest.memory != "server" or not manifest.collection:
        return
    from aizac.memory.reindex import switch_collection

    switch_collection(staging / "memory", "novel", manifest.collection)


def _rename(staging: Path, project: str) -> None:
    """A backup restored under another name: the project's own name in its rows too."""
    import sqlite3

    path = staging / EMBEDDED_FILES["project"]
    conn = sqlite3.connect(path)
    try:
        conn.execute("UPDATE meta SET value = ? WHERE key = 'name'", (project,))
        conn.commit()
    finally:
        conn.close()


def _before_restore(root: Path, project: str, catalog: Catalog,
                    settings: Settings) -> Path | None:
    """On the database, the project's current rows are replaced: back them up first (when
    the project is there; a damaged one's files as they are, under a name no damage message
    points to)."""
    from aizac.errors import DamagedError
    from aizac.upkeep.backup import backup_project
    from aizac.upkeep.layout import DAMAGED_REASON

    if catalog.find(project) is None:
        return None
    store = ProjectStore.open(root, project, catalog=catalog)
    try:
        return backup_project(store, settings, reason="before-restore").path
    except DamagedError:
        return backup_project(store, settings, reason=DAMAGED_REASON, damaged=True).path


def _finish(root: Path, data: dict[str, Any], settings: Settings,
            catalog: Catalog | None) -> Path | None:
    """Steps 4 to 6 of a committed restore (see the module docstring), from wherever a killed
    one stopped; returns where the previous folder is kept."""
    project = str(data["project"])
    staging, aside = root / str(data["staging"]), root / str(data["aside"])
    directory = root / project
    if staging.exists():
        if data.get("engine") == "postgresql":
            if catalog is None:
                raise StorageError("error.restore.needs_database", project=project)
            if any((staging / EMBEDDED_FILES[c]).exists() for c in ROW_CONCERNS):
                _replace_rows(staging, catalog, project, str(data["key"]),
                              float(data.get("created_at") or time.time()))
                checkpoint("restore:rows")
                for concern in ROW_CONCERNS:  # rows now, not files of the folder
                    for end in ("", "-wal", "-shm", "-journal"):
                        with contextlib.suppress(FileNotFoundError):
                            (staging / (EMBEDDED_FILES[concern] + end)).unlink()
        if directory.exists() and not aside.exists():
            os.rename(directory, aside)
            fsync_dir(root)
            checkpoint("restore:aside")
        if not directory.exists():
            os.rename(staging, directory)
            fsync_dir(root)
            checkpoint("restore:swapped")
        else:  # a project of that name was made meanwhile: it is kept, the restore dropped
            shutil.rmtree(staging, ignore_errors=True)
    kept: Path | None = None
    if aside.exists():
        kept = backups_dir(directory) / f"replaced-{time.strftime('%Y%m%d-%H%M%S')}"
        while kept.exists():
            kept = kept.with_name(kept.name + "-1")
        kept.parent.mkdir(parents=True, exist_ok=True)
        os.rename(aside, kept)
    journal = staging.with_name(staging.name + ".json")
    with contextlib.suppress(FileNotFoundError):
        journal.unlink()
    fsync_dir(root)
    return kept


def _replace_rows(staging: Path, catalog: Catalog, project: str, key: str,
                  created_at: float) -> None:
    """The project's rows on the database replaced by the backup's, in one transaction (its
    key kept; a new project's row made in it). Run again, it does the same."""
    from aizac.storage.locks import step_lock

    tables: list[tuple[Any, list[dict[str, Any]]]] = []
    for concern in ROW_CONCERNS:
        path = staging / EMBEDDED_FILES[concern]
        if not path.exists():
            continue
        source = sqlite_file(path, concern)
        try:
            with source.read(str(path)) as src:
                for table in CONCERNS[concern]:
                    rows = [{**r, "project": key} for r in src.execute(
                        select(table).where(table.c.project == "")).mappings()]
                    tables.append((table, rows))
        finally:
            forget_file(path)
    db = catalog.db
    with step_lock(db, key).hold(), db.write(project) as conn:
        db.serialise(conn, key)
        if conn.execute(select(projects.c.id).where(projects.c.id == key)).scalar() is None:
            if catalog.find(project) not in (None, key):
                raise ConflictError("error.restore.busy", project=project)
            conn.execute(projects.insert().values(id=key, owner=catalog.owner, name=project,
                                                  created_at=created_at))
        for concern in PROJECT_CONCERNS:
            for table in reversed(CONCERNS[concern]):  # a placement before its picture
                conn.execute(delete(table).where(table.c.project == key))
        for table, rows in tables:
            for start in range(0, len(rows), 1000):
                conn.execute(table.insert(), rows[start:start + 1000])


def finish_restores(root: Path, settings: Settings | None = None, *,
                    catalog: Catalog | None = None, wait: float = 60.0) -> list[str]:
    """Finish what killed restores left in ``root`` (see the module docstring); returns the
    projects finished. Skipped (``[]``) when a restore is running and holds the lock past
    ``wait`` seconds: it finishes itself."""
    journals = sorted(root.glob(f"{PREFIX}*.json")) if root.is_dir() else []
    staged = [p for p in root.glob(f"{PREFIX}*.new")] if root.is_dir() else []
    if not journals and not staged:
        return []
    done: list[str] = []
    with _root_lock(root, wait) as locked:
        if not locked:
            return []
        for journal in sorted(root.glob(f"{PREFIX}*.json")):
            try:
                data = json.loads(journal.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if data.get("engine") == "postgresql" and catalog is None:
                continue  # the database's rows need this installation's database
            _finish(root, data, settings or Settings(), catalog)
            done.append(str(data.get("project")))
        remove_stale(root, PREFIX)  # staged, never committed: as if nothing happened
    return done


__all__ = ["RestoreReport", "finish_restores", "restore_backup"]
