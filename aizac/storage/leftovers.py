"""Temporary files that say who writes them, so a killed writer's leftovers can be cleaned.

Everything aizac writes whole (an export, a backup, a restore being staged) is written under a
hidden temporary name in the folder it goes to, then renamed into place: a reader sees the old
file or the new one, never half of one. A process killed before the rename leaves the
temporary file; :func:`temporary_name` puts the writer's process id in it, so the next writer
removes exactly the leftovers of processes that are gone (:func:`stale`), never a file another
running process is still writing.
"""

from __future__ import annotations

import contextlib
import os
import re
import uuid
from pathlib import Path

_TEMPORARY = re.compile(r"\.(\d+)-[A-Za-z0-9_]{6,32}\.(tmp|new)$")


def temporary_name(name: str, suffix: str = "tmp") -> str:
    """A hidden temporary name for ``name`` that says which process writes it:
    ``.<name>.<pid>-<random>.<suffix>`` (see :func:`stale`)."""
    return f".{name}.{os.getpid()}-{uuid.uuid4().hex[:12]}.{suffix}"


def writer_pid(name: str) -> int | None:
    """The process id in a temporary ``name`` (:func:`temporary_name`), else ``None``."""
    found = _TEMPORARY.search(name)
    return int(found.group(1)) if found else None


def alive(pid: int) -> bool:
    """Whether the process ``pid`` runs (this one does)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # alive, another user's
        return True
    return True


def stale(name: str) -> bool:
    """Whether the temporary ``name`` was left by a process that is gone (killed while writing
    it); a file of a running process, this one's included, is not stale, nor is a name that
    is not a temporary one."""
    pid = writer_pid(name)
    return pid is not None and not alive(pid)


def remove_stale(folder: Path, prefix: str = ".") -> list[Path]:
    """Remove the stale temporary files and folders directly in ``folder`` whose names start
    with ``prefix``; returns what was removed."""
    import shutil

    removed: list[Path] = []
    try:
        entries = list(folder.iterdir())
    except OSError:
        return removed
    for entry in entries:
        if entry.name.startswith(prefix) and stale(entry.name):
            with contextlib.suppress(OSError):
                if entry.is_dir():
                    shutil.rmtree(entry)
                else:
                    entry.unlink()
                removed.append(entry)
    return removed


def fsync_dir(folder: Path) -> None:
    """Make a rename or a new file in ``folder`` durable (where the system allows it)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
