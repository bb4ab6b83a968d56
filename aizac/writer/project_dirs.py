"""Project folders: the shared locks of a directory, staging and ghost detection."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import sqlite3
import sys
import threading
import time
import unicodedata
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from aizac.errors import ConflictError, InvalidInputError, StorageError
from aizac.storage.heads import HEADS, VERSION_TABLE

if TYPE_CHECKING:  # filelock is imported by the first lock: `aizac projects` takes none
    from filelock import FileLock

DB_NAME = "project.sqlite3"
THREAD_LOCKS: dict[Path, tuple[threading.RLock, FileLock]] = {}
THREAD_LOCKS_GUARD = threading.Lock()
STAGING_PREFIX = ".new-"
"""Hidden folders a project is created in before it is renamed into place."""


_NAME = re.compile(r"^[^\W_][\w .\-]{0,63}$")

def validate_project_name(name: str) -> str:
    """The project name stripped and NFC-normalised, or :class:`InvalidInputError` (no
    separators, <= 64 chars)."""
    clean = unicodedata.normalize("NFC", name).strip()
    if not _NAME.match(clean) or ".." in clean:
        raise InvalidInputError("error.project.name", name=str(name))
    return clean


def create_staged(
    root: Path, directory: Path, name: str, write: Callable[[Path], None]
) -> None:
    """Make a project folder in a hidden staging folder (``write`` fills it), then rename it
    into place: a create killed half way leaves no project that blocks ``name``."""
    staging = root / f"{STAGING_PREFIX}{uuid.uuid4().hex[:12]}"
    try:
        staging.mkdir(parents=True)
    except OSError as e:
        raise StorageError("error.project.create", path=str(staging), cause=str(e)) from e
    try:
        write(staging)
        move_into_place(staging, directory, name)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def locks_for(directory: Path) -> tuple[threading.RLock, FileLock]:
    """The thread lock and the cross-process file lock of one project directory (shared)."""
    key = directory.resolve()
    with THREAD_LOCKS_GUARD:
        pair = THREAD_LOCKS.get(key)
        if pair is None:
            from filelock import FileLock

            # One FileLock per directory and process: re-entrant across store objects; the
            # RLock keeps other threads out, so the file lock need not be thread-local.
            pair = (threading.RLock(), FileLock(str(key / ".lock"), thread_local=False))
            THREAD_LOCKS[key] = pair
        return pair


def is_ghost(directory: Path) -> bool:
    """Whether ``directory`` holds a database without a project in it (left by a killed create
    of an older version); such a folder does not block the name."""
    try:
        db = sqlite3.connect(f"file:{directory / DB_NAME}?mode=ro", uri=True, timeout=30)
    except sqlite3.Error:
        return False
    try:
        row = db.execute("SELECT value FROM meta WHERE key = 'name'").fetchone()
    except sqlite3.OperationalError as e:
        return "no such table" in str(e)
    finally:
        db.close()
    return row is None


def list_names(root: Path) -> list[str]:
    """The names of the embedded projects in ``root`` (folders with a project database that
    are neither staging folders nor ghosts), sorted."""
    if not root.is_dir():
        return []
    return sorted(
        p.name for p in root.iterdir()
        if not p.name.startswith(".") and (p / DB_NAME).is_file() and not is_ghost(p)
    )


def read_meta(directory: Path) -> dict[str, str] | None:
    """The meta rows of the project database in ``directory``, read with ``sqlite3`` (no
    SQLAlchemy: what ``aizac projects`` needs), or ``None`` when the file is not at its schema's
    head (opening it through :mod:`aizac.storage.database` brings it up to date first)."""
    try:
        db = sqlite3.connect(f"file:{directory / DB_NAME}?mode=ro", uri=True, timeout=30)
    except sqlite3.Error:
        return None
    try:
        with db:  # one snapshot: the version and the rows agree
            stamped = {v for (v,) in db.execute(f"SELECT version_num FROM {VERSION_TABLE}")}
            if HEADS["project"] not in stamped:
                return None
            rows = db.execute("SELECT key, value FROM meta WHERE project = ''").fetchall()
    except sqlite3.Error:  # no version table (a file from before schema versions), a lock ...
        return None
    finally:
        db.close()
    return {str(k): str(v) for k, v in rows}


def move_into_place(staging: Path, directory: Path, name: str) -> None:
    """Rename the finished staging folder to the project's folder (atomic on one disk)."""
    if directory.exists() and (directory / DB_NAME).exists() and is_ghost(directory):
        shutil.rmtree(directory)
    try:
        os.rename(staging, directory)
    except OSError as e:
        if directory.exists():
            raise InvalidInputError("error.project.exists", name=name) from e
        raise StorageError("error.project.create", path=str(directory), cause=str(e)) from e




OWNER_FILE = ".owner"
OWNER_LOCK = ".owner.lock"
_OWNED: dict[Path, FileLock] = {}
_OWNED_GUARD = threading.Lock()


def claim_project(directory: Path, *, wait: float = 5.0) -> None:
    """Make this process the one that writes to the project in ``directory``.

    Another aizac process (the web app, a CLI command, ``aizac demo``) that holds the project
    keeps it until it exits; this one waits ``wait`` seconds, then gets a
    :class:`~aizac.errors.ConflictError` naming the owner (its pid and command). A process that
    was killed holds nothing (the lock is the operating system's). Claiming twice in one
    process is free; every thread of the owner may write (they share the project lock).
    """
    from filelock import FileLock, Timeout

    key = directory.resolve()
    with _OWNED_GUARD:
        if key in _OWNED:
            return
        lock = FileLock(str(key / OWNER_LOCK), thread_local=False)
        try:
            lock.acquire(timeout=wait)
        except Timeout as e:
            owner = _read_owner(key / OWNER_FILE)
            raise ConflictError("error.project.owned", name=key.name, owner=owner) from e
        record = {"pid": os.getpid(), "command": " ".join(sys.argv)[:200], "since": time.time()}
        with contextlib.suppress(OSError):  # a courtesy for the message; the lock is what counts
            (key / OWNER_FILE).write_text(json.dumps(record), encoding="utf-8")
        _OWNED[key] = lock


def release_project(directory: Path) -> None:
    """Give up this process's claim on the project in ``directory`` (if it holds one)."""
    with _OWNED_GUARD:
        lock = _OWNED.pop(directory.resolve(), None)
    if lock is not None:
        lock.release(force=True)


def _read_owner(path: Path) -> str:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return f" (pid {int(data['pid'])}: `{str(data.get('command', '?'))[:120]}`)"
    except (OSError, ValueError, KeyError, TypeError):
        return ""
