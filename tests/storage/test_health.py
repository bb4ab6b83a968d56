"""The cheap look at a SQLite file (``aizac.storage.health``): a file shorter than its header
says is cut short, unless a write-ahead log or a rollback journal beside it still holds what
the next open puts right (a full disk during a write leaves exactly that)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from aizac.storage.health import sqlite_damage


def _grown(path: Path) -> int:
    """A rollback-journal SQLite file of several pages; its size in bytes."""
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=DELETE")
    conn.execute("CREATE TABLE t (x TEXT)")
    conn.executemany("INSERT INTO t VALUES (?)", [("x" * 500,) for _ in range(200)])
    conn.commit()
    conn.close()
    return path.stat().st_size


def test_a_file_shorter_than_its_header_is_cut_short_unless_a_journal_will_restore_it(
        tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    size = _grown(path)
    assert sqlite_damage(path) is None
    with open(path, "r+b") as f:  # what a write that could not extend the file leaves
        f.truncate(size - 4096)
    found = sqlite_damage(path)
    assert found is not None and found.problem == "truncated"
    for beside in ("-journal", "-wal"):
        other = path.with_name(path.name + beside)
        other.write_bytes(b"\0" * 512)
        assert sqlite_damage(path) is None, beside  # the next open decides, not this look
        other.unlink()
        other.write_bytes(b"")  # an empty one restores nothing
        assert sqlite_damage(path) is not None, beside
        other.unlink()
