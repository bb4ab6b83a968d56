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
from aizac.storage.health import sqlite_damage

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


GHOST_FILES = {DB_NAME, *(DB_NAME + end for end in ("-wal", "-shm", "-journal")), ".lock",
               ".owner", ".owner.lock"}
"""What a folder left by a killed create of an older version may hold (and nothing else)."""


def is_ghost(directory: Path) -> bool:
    """Whether ``directory`` is what a create killed half way left (in an older version):
    a database without a project in it (empty, or without the project's name) and nothing
    else but lock files. Such a folder holds nothing of a writer's and does not block the
    name. A folder that holds anything more (a memory, pictures) is never a ghost: a damaged
    database beside a writer's data is named, not replaced (:func:`folder_contents`)."""
    try:
        names = {p.name for p in directory.iterdir()}
    except OSError:
        return False
    if DB_NAME not in names or not names <= GHOST_FILES:
        return False
    path = directory / DB_NAME
    try:
        if path.stat().st_size == 0:
            return True
    except OSError:
        return False
    if sqlite_damage(path) is not None:
        return False
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
    except sqlite3.Error:
        return False
    try:
        row = db.execute("SELECT value FROM meta WHERE key = 'name'").fetchone()
    except sqlite3.OperationalError as e:
        return "no such table" in str(e)
    except sqlite3.Error:
        return False
    finally:
        db.close()
    return row is None


def list_names(root: Path) -> list[str]:
    """The names of the embedded projects in ``root`` (folders with a project database, or
    any data: a damaged project is listed too, that are neither staging folders nor ghosts),
    sorted."""
    if not root.is_dir():
        return []
    return sorted(
        p.name for p in root.iterdir()
        if not p.name.startswith(".") and p.is_dir() and not is_ghost(p)
        and ((p / DB_NAME).exists() or holds_data(p))  # a damaged project is listed too
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


def folder_contents(directory: Path, limit: int = 6) -> str:
    """What ``directory`` holds, for a message: its entries (lock files left out) with their
    sizes, ``memory/ (1.1 MB)``; at most ``limit`` of them."""
    found: list[str] = []
    try:
        entries = sorted(directory.iterdir(), key=lambda p: p.name)
    except OSError:
        return ""
    shown = [p for p in entries if p.name not in (".lock", ".owner", ".owner.lock")]
    for entry in shown[:limit]:
        size = _size(entry)
        found.append(f"{entry.name}{'/' if entry.is_dir() else ''} ({_human(size)})")
    if len(shown) > limit:
        found.append(f"+{len(shown) - limit}")
    return ", ".join(found)


def holds_data(directory: Path) -> bool:
    """Whether ``directory`` holds anything but lock files (a writer's data, perhaps)."""
    try:
        return any(p.name not in (".lock", ".owner", ".owner.lock") for p in directory.iterdir())
    except OSError:
        return False


def _size(path: Path) -> int:
    try:
        if path.is_dir():
            return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
        return path.stat().st_size
    except OSError:
        return 0


def _human(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB"):
        if value < 1024:
            return f"{size} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GB"


def move_into_place(staging: Path, directory: Path, name: str) -> None:
    """Rename the finished staging folder to the project's folder (atomic on one disk).

    A folder already there is replaced only when it is a ghost (:func:`is_ghost`) or empty;
    one that holds anything else is refused, saying what it holds: nothing a writer made is
    ever deleted or overwritten by a create."""
    if directory.exists() and is_ghost(directory):
        shutil.rmtree(directory)
    elif directory.exists() and holds_data(directory):
        raise InvalidInputError("error.project.folder_taken", name=name, path=str(directory),
                                contents=folder_contents(directory))
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
