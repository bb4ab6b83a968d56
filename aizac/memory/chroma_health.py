"""Whether an embedded Chroma store (a project's ``memory/`` folder) is whole (thin adapter).

An embedded Chroma store is ``chroma.sqlite3`` (rows, metadata and the log of recent writes)
and, per collection, a folder of vector-index files that Chroma persists every
:data:`~aizac.memory.rows.SYNC_THRESHOLD` writes (the log keeps what came since). Opened
without ``chroma.sqlite3``, Chroma makes a new, empty store there: the project's memory would
be silently gone and the next commit would write into the new one. :func:`chroma_damage` finds
what is wrong before that (a missing or damaged ``chroma.sqlite3`` beside the project's key
index and journal; a vector index that was persisted but lost a file), and
:func:`forget_system` drops the half-built client a failed open leaves in Chroma's process-wide
cache (the next open in the same process would otherwise fail with Chroma's own internal
error instead of the store's).

Everything here only reads the folder.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
from pathlib import Path

from aizac.storage.health import Damage, ask_sqlite, sqlite_damage
from aizac.text import Text

log = logging.getLogger(__name__)

CHROMA_FILE = "chroma.sqlite3"
MARKERS = ("aizac-keys.sqlite3", "aizac-commits.sqlite3", "collections.json")
"""Files of a memory folder that exist only once its Chroma store was made."""
VECTOR_SEGMENT = "urn:chroma:segment/vector/hnsw-local-persisted"
INDEX_FILES = ("header.bin", "data_level0.bin", "length.bin", "link_lists.bin",
               "index_metadata.pickle")
NOT_EMPTY = ("header.bin", "data_level0.bin", "length.bin", "index_metadata.pickle")


def chroma_damage(folder: Path, *, deep: bool = False) -> Damage | None:
    """The first thing wrong with the embedded Chroma store in ``folder`` (``None``: nothing
    found, or no store there yet). ``deep`` asks SQLite to check ``chroma.sqlite3`` whole
    (``integrity_check``); otherwise its size and header are looked at, and the files of each
    persisted vector index."""
    db = folder / CHROMA_FILE
    if not db.exists():
        made = any((folder / marker).exists() for marker in MARKERS) or _has_segments(folder)
        return Damage(db, "missing") if made else None
    found = ask_sqlite(db, deep=True) if deep else sqlite_damage(db)
    if found is not None:
        return found
    for segment in persisted_segments(db):
        for name in INDEX_FILES:
            path = folder / segment / name
            try:
                size = path.stat().st_size
            except FileNotFoundError:
                return Damage(path, "index_file_missing", f"{segment}/{name}")
            except OSError as e:
                return Damage(path, "unreadable", e.strerror or str(e))
            if size == 0 and name in NOT_EMPTY:
                return Damage(path, "index_file_empty", f"{segment}/{name}")
    return None


def _has_segments(folder: Path) -> bool:
    """Whether ``folder`` holds a vector-index folder of a Chroma store (named by a uuid)."""
    try:
        return any(p.is_dir() and len(p.name) == 36 and p.name.count("-") == 4
                   for p in folder.iterdir())
    except OSError:
        return False


def persisted_segments(db: Path) -> list[str]:
    """The vector-index segments of ``db`` that Chroma persisted at least once (their folder
    must then hold every index file); empty when the file cannot be read (the caller's check
    of the file itself says why)."""
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    except sqlite3.Error:
        return []
    try:
        rows = conn.execute(
            "SELECT s.id FROM segments s JOIN max_seq_id m ON m.segment_id = s.id "
            "WHERE s.type = ?", (VECTOR_SEGMENT,)).fetchall()
    except sqlite3.Error:
        return []
    finally:
        conn.close()
    return [str(r[0]) for r in rows if r[0] and "/" not in str(r[0])]


def diagnosed(folder: Path | None, error: BaseException) -> Damage | None:
    """After Chroma failed on the embedded store in ``folder``: what is damaged there (SQLite
    asked about ``chroma.sqlite3``, the index files looked at), or ``None`` (the failure is not
    the files': a full disk, a lock, Chroma itself). The failure is logged either way."""
    log.warning("the memory store in %s failed: %r", folder, error)
    if folder is None:
        return None
    try:
        return chroma_damage(folder, deep=True)
    except Exception:  # a diagnosis must never hide the failure it explains
        log.exception("could not look at the memory store in %s", folder)
        return None


def forget_system(path: Path | str) -> None:
    """Drop Chroma's cached system of the embedded store at ``path`` after a failed open.

    Chroma keeps one system per persist directory for the process and keeps it even when
    starting it failed, so the next client of that directory gets the half-built one and fails
    with an internal error (``'RustBindingsAPI' object has no attribute 'bindings'``) that says
    nothing about the store."""
    from chromadb.api.shared_system_client import SharedSystemClient

    with contextlib.suppress(Exception):
        system = SharedSystemClient._identifier_to_system.pop(str(path), None)
        SharedSystemClient._identifier_to_refcount.pop(str(path), None)
        if system is not None:
            with contextlib.suppress(Exception):
                system.stop()


CAUSES = (
    (("no space left", "disk is full", "database or disk is full"), "error.memory.cause.disk_full"),
    (("permission denied", "readonly database", "read-only file system"),
     "error.memory.cause.read_only"),
    (("database is locked",), "error.memory.cause.locked"),
)
"""What a store failure says about the disk, and the catalogue key that says it to a writer."""


def chroma_internal(error: BaseException) -> bool:
    """Whether ``error`` is Chroma's own (its error classes, its Rust bindings' messages, a
    half-built client's missing attribute): words for the log, not for a writer."""
    said = str(error)
    return (type(error).__module__.startswith("chromadb") or isinstance(error, AttributeError)
            or "RustBindings" in said or "Error executing plan" in said)


def safe_cause(error: BaseException) -> Text | str:
    """Why the memory store failed, in words a writer can act on: the disk is full, the folder
    is read-only, another process holds the file; Chroma's own failures are "an internal
    error of the memory store" (their message is for the log, :func:`diagnosed` and the
    error's chain); another error (a caller's store, a test's) is said as it is."""
    said = str(error).lower()
    for needles, key in CAUSES:
        if any(needle in said for needle in needles):
            return Text(key)
    if chroma_internal(error):
        log.warning("the memory store failed: %r", error)
        return Text("error.memory.cause.internal", kind=type(error).__name__)
    first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return first[:300]
