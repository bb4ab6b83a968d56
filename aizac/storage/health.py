"""Whether a stored SQLite file can be used, and what is wrong with it when it cannot.

A damaged file must be named, never used as if it were new: SQLite treats a zero-byte file as
an empty database (opening it would create fresh tables and the project would look empty), and
a file cut short or overwritten fails with an error that says nothing about which file or what
to do. :func:`sqlite_damage` looks at a file the way SQLite would, cheaply (its size and its
100-byte header) or deeply (``PRAGMA quick_check`` / ``integrity_check``), and says what is
wrong as a :class:`Damage`; :func:`damaged` makes the :class:`~aizac.errors.DamagedError` a
store raises. Nothing here writes to the file.

aizac never leaves a zero-byte SQLite file itself: a new file is made under a temporary name
and linked into place with its tables (:func:`aizac.storage.database.sqlite_file`), so an empty
file is always damage.
"""

from __future__ import annotations

import contextlib
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from aizac.errors import DamagedError
from aizac.text import Text

SQLITE_HEADER = b"SQLite format 3\x00"
SQLITE_CORRUPT, SQLITE_NOTADB = 11, 26
"""SQLite's primary result codes of a damaged file (``sqlite3.Error.sqlite_errorcode``)."""

PROBLEM_KEYS = {
    "missing": "damage.missing",
    "empty": "damage.empty",
    "not_sqlite": "damage.not_sqlite",
    "truncated": "damage.truncated",
    "malformed": "damage.malformed",
    "unreadable": "damage.unreadable",
    "index_file_missing": "damage.index_file_missing",
    "index_file_empty": "damage.index_file_empty",
}
"""Each kind of damage and the catalogue key that says it."""


@dataclass(frozen=True)
class Damage:
    """What is wrong with one file.

    Attributes:
        path: the file.
        problem: a key of :data:`PROBLEM_KEYS`.
        detail: what SQLite said, or the sizes found (may be empty).
    """

    path: Path
    problem: str
    detail: str = ""

    def text(self) -> Text:
        """What is wrong, as the catalogue says it."""
        return Text(PROBLEM_KEYS[self.problem], detail=self.detail)

    def error(self, backup: Path | None = None) -> DamagedError:
        """The error a store raises for this damage (its hint names ``backup``, if any)."""
        return DamagedError("error.store.damaged", file=str(self.path), problem=self.text(),
                            backup=str(backup) if backup is not None else "")


def damaged(path: Path | str, problem: str, detail: str = "") -> DamagedError:
    """The :class:`DamagedError` of ``path`` with ``problem`` (a key of :data:`PROBLEM_KEYS`)."""
    return Damage(Path(path), problem, detail).error()


def sqlite_damage(path: Path, *, deep: bool = False, must_exist: bool = True) -> Damage | None:
    """What is wrong with the SQLite file ``path`` (``None``: nothing found).

    The cheap look (always): the file exists (unless not ``must_exist``), is not empty, starts
    with SQLite's header and is not shorter than its header says. ``deep`` also asks SQLite:
    ``PRAGMA integrity_check`` (every page and index), which reads the whole file.
    """
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return Damage(path, "missing") if must_exist else None
    except OSError as e:
        return Damage(path, "unreadable", e.strerror or str(e))
    if size == 0:
        return Damage(path, "empty")
    try:
        with open(path, "rb") as f:
            head = f.read(100)
    except OSError as e:
        return Damage(path, "unreadable", e.strerror or str(e))
    if len(head) < 100 or not head.startswith(SQLITE_HEADER):
        return Damage(path, "not_sqlite", f"{size} bytes")
    short = _shorter_than_header(path, head, size)
    if short is not None:
        return short
    return _asked(path, "integrity_check") if deep else None


def ask_sqlite(path: Path, *, deep: bool = False) -> Damage | None:
    """SQLite's own check of ``path`` (``quick_check``; ``deep``: ``integrity_check``), after
    the cheap look of :func:`sqlite_damage`: what a store asks when a read of the file failed,
    to tell a damaged file from a busy or full disk."""
    found = sqlite_damage(path)
    if found is not None:
        return found
    return _asked(path, "integrity_check" if deep else "quick_check")


def _shorter_than_header(path: Path, head: bytes, size: int) -> Damage | None:
    """A file cut short: the header's page count times its page size is past the end (the
    count is valid when the header's change counter matches its "valid for" number; a WAL file
    beside it may still hold pages, and a rollback journal beside it puts the pages a failed
    write changed back at the next open, as after a full disk: then nothing is concluded)."""
    page_size = int.from_bytes(head[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(head[28:32], "big")
    valid = head[24:28] == head[92:96]
    if not valid or not pages or page_size < 512:
        return None
    for beside in ("-wal", "-journal"):
        with contextlib.suppress(OSError):
            if path.with_name(path.name + beside).stat().st_size > 0:
                return None
    if pages * page_size > size:
        return Damage(path, "truncated", f"{size} of {pages * page_size} bytes")
    return None


def _asked(path: Path, pragma: str) -> Damage | None:
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
    except sqlite3.Error as e:
        return _classified(path, e)
    try:
        rows = [str(r[0]) for r in conn.execute(f"PRAGMA {pragma}").fetchmany(5)]
    except sqlite3.Error as e:
        return _classified(path, e)
    finally:
        conn.close()
    if rows == ["ok"]:
        return None
    return Damage(path, "malformed", "; ".join(rows)[:300])


def _classified(path: Path, error: sqlite3.Error) -> Damage | None:
    """A SQLite error as damage (``None``: not the file's fault, e.g. a lock)."""
    code = sqlite_code(error)
    first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    if code == SQLITE_NOTADB:
        return Damage(path, "not_sqlite", first)
    if code == SQLITE_CORRUPT:
        return Damage(path, "malformed", first)
    return None


def sqlite_code(error: BaseException | None) -> int | None:
    """SQLite's primary result code of ``error`` (a ``sqlite3`` error), else ``None``."""
    code = getattr(error, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def is_damage_code(error: BaseException | None) -> bool:
    """Whether ``error`` is SQLite saying the file is damaged (corrupt, or not a database)."""
    return sqlite_code(error) in (SQLITE_CORRUPT, SQLITE_NOTADB)


def copy_sqlite(source: Path, target: Path) -> None:
    """A consistent copy of the SQLite file ``source`` at ``target`` (the online backup API:
    one snapshot, whatever another connection writes meanwhile)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        src = sqlite3.connect(f"file:{source}?mode=ro", uri=True, timeout=60)
        try:
            dst = sqlite3.connect(target)
            try:
                src.backup(dst)
                dst.execute("PRAGMA journal_mode=DELETE")  # one file, no write-ahead log
                # the backup API copies pages as they are: a damaged page is found in the copy
                # (never the "newest backup" a damaged project's message points to)
                said = [str(r[0]) for r in dst.execute("PRAGMA quick_check").fetchmany(5)]
            finally:
                dst.close()
        finally:
            src.close()
    except sqlite3.DatabaseError as e:
        if not is_damage_code(e):
            raise
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise damaged(source, "malformed", first) from e
    if said != ["ok"]:
        raise damaged(source, "malformed", "; ".join(said)[:300])
