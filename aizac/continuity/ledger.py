"""Foreshadowing ledger: planted threads with planted / last-advanced / due episodes and status.

Ordinary memories fade; an open thread must not. The ledger keeps every planted thread — the
memory's foreshadowing (``foreshadow=True``) — with the episode it was planted in, the last
episode that advanced it and the episode it is due by, and a status: ``open``, ``advanced``,
``paid_off`` or ``dropped``. :func:`urgency` *grows* with age (1.0 at the due episode, more past
it, more again the longer nothing advanced it), so :meth:`ForeshadowingLedger.for_context` keeps
the oldest open threads in the writer's context even after their memories decayed, and
:func:`overdue_findings` warns about threads left hanging past due.

Storage: table ``threads`` of ``continuity.sqlite`` in the project folder (beside the project
database), one transaction per change, so a crash never leaves half a record. The memory stays
the source of what was planted and paid off: :meth:`ForeshadowingLedger.sync` reads it (open
foreshadowing, and the ``paid_off`` mark of threads no longer open) and is idempotent.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from aizac.continuity.report import Finding, message
from aizac.continuity.text import containment
from aizac.errors import NotFoundError, StorageError
from aizac.memory.facts import name_key, text_key

if TYPE_CHECKING:
    from aizac.memory.store import WriterMemory

Status = Literal["open", "advanced", "paid_off", "dropped"]
OPEN_STATES: tuple[str, ...] = ("open", "advanced")
DUE_AFTER = 10
"""Episodes after planting a thread is due by, unless the writer sets its due episode."""
DB_NAME = "continuity.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS threads (
    memory_id TEXT PRIMARY KEY, keyword TEXT NOT NULL, text TEXT NOT NULL,
    planted INTEGER NOT NULL, last_advanced INTEGER NOT NULL, due INTEGER NOT NULL,
    status TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS secrets (
    memory_id TEXT PRIMARY KEY, keyword TEXT NOT NULL, text TEXT NOT NULL,
    created INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS knowers (
    memory_id TEXT NOT NULL, key TEXT NOT NULL, name TEXT NOT NULL, since INTEGER NOT NULL,
    PRIMARY KEY (memory_id, key)
);
"""


@contextmanager
def connect(folder: str | Path) -> Iterator[sqlite3.Connection]:
    """A connection to ``<folder>/continuity.sqlite`` inside one transaction."""
    path = Path(folder) / DB_NAME
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path, timeout=30)
    except (OSError, sqlite3.Error) as e:
        raise StorageError("error.continuity.open", path=str(path), cause=str(e)) from e
    try:
        with conn:
            if _fresh(conn):
                conn.executescript(_SCHEMA)
            yield conn
    except sqlite3.Error as e:
        raise StorageError("error.continuity.failed", path=str(path), cause=str(e)) from e
    finally:
        conn.close()


def _fresh(conn: sqlite3.Connection) -> bool:
    row = conn.execute("SELECT count(*) FROM sqlite_master WHERE name='knowers'").fetchone()
    return not row[0]


@dataclass(frozen=True)
class Thread:
    memory_id: str
    keyword: str
    text: str
    planted: int
    last_advanced: int
    due: int
    status: str


def urgency(thread: Thread, episode: int) -> float:
    """How pressing an open thread is at ``episode``: its age over its span (1.0 at due), plus
    half the time since it was last advanced over its span; 0 when closed (pure)."""
    if thread.status not in OPEN_STATES:
        return 0.0
    span = max(1, thread.due - thread.planted)
    age = max(0, episode - thread.planted)
    idle = max(0, episode - max(thread.planted, thread.last_advanced))
    return round(age / span + 0.5 * idle / span, 3)


def touched(threads: Iterable[Thread], texts: Sequence[str]) -> list[Thread]:
    """Open threads that ``texts`` (beats, candidate memories) advance: by keyword, or by
    restating most of the planted text (pure)."""
    joined = text_key(" ".join(texts))
    out = []
    for t in threads:
        if t.status not in OPEN_STATES:
            continue
        key = name_key(t.keyword)
        if (key and key in joined) or any(containment(t.text, x) >= 0.6 for x in texts):
            out.append(t)
    return out


def overdue_findings(threads: Iterable[Thread], episode: int, language: str) -> list[Finding]:
    """A warning for every open thread past its due episode (pure)."""
    return [
        Finding("foreshadowing_overdue", "warning",
                message("overdue", language, thread=t.text, due=t.due, planted=t.planted),
                t.memory_id, "", None)  # nothing in the draft is at fault: it is missing
        for t in threads
        if t.status in OPEN_STATES and episode > t.due
    ]


class ForeshadowingLedger:
    """The threads of one project, in ``<folder>/continuity.sqlite``."""

    def __init__(self, folder: str | Path, *, due_after: int = DUE_AFTER) -> None:
        self.folder = Path(folder)
        self.due_after = due_after

    def threads(self, status: Iterable[str] | None = None) -> list[Thread]:
        """Threads (optionally only those with a status in ``status``), oldest first."""
        with connect(self.folder) as conn:
            rows = conn.execute("SELECT memory_id, keyword, text, planted, last_advanced, due, "
                                "status FROM threads ORDER BY planted, memory_id").fetchall()
        found = [Thread(*row) for row in rows]
        wanted = set(status) if status is not None else None
        return [t for t in found if wanted is None or t.status in wanted]

    def open_threads(self) -> list[Thread]:
        return self.threads(OPEN_STATES)

    def plant(self, memory_id: str, text: str, *, keyword: str = "", planted: int,
              due: int | None = None) -> None:
        """Add a thread (no-op when the memory is already in the ledger)."""
        due = planted + self.due_after if due is None else due
        with connect(self.folder) as conn:
            conn.execute("INSERT OR IGNORE INTO threads VALUES (?, ?, ?, ?, ?, ?, 'open')",
                         (memory_id, keyword, text, planted, planted, due))

    def _set(self, memory_id: str, sql: str, *args: object) -> None:
        with connect(self.folder) as conn:
            done = conn.execute(f"UPDATE threads SET {sql} WHERE memory_id = ?",
                                (*args, memory_id)).rowcount
        if not done:
            raise NotFoundError("error.continuity.no_thread", id=memory_id)

    def set_due(self, memory_id: str, due: int) -> None:
        self._set(memory_id, "due = ?", due)

    def drop(self, memory_id: str) -> None:
        """The writer lets a thread go (it no longer counts as open)."""
        self._set(memory_id, "status = 'dropped'")

    def advance(self, episode: int, texts: Sequence[str]) -> list[str]:
        """Mark the open threads ``texts`` advance as advanced at ``episode``; their ids."""
        hit = touched(self.open_threads(), texts)
        with connect(self.folder) as conn:
            for t in hit:
                conn.execute("UPDATE threads SET status = 'advanced', last_advanced = "
                             "max(last_advanced, ?) WHERE memory_id = ?", (episode, t.memory_id))
        return [t.memory_id for t in hit]

    def sync(self, memory: WriterMemory, episode: int) -> None:
        """Read planted and paid-off threads from ``memory`` (idempotent adapter)."""
        # Decayed threads count: the ledger exists so a thread outlives its memory's fading.
        planted = memory.get_where({"foreshadow": True}, include_forgotten=True)
        open_hits = {h.id: h for h in planted if not h.metadata.get("forgotten")}
        for h in open_hits.values():
            self.plant(h.id, h.text, keyword=str(h.metadata.get("keyword", "")),
                       planted=h.chapter or episode)
        for t in self.threads():
            if t.memory_id in open_hits:
                if t.status == "paid_off":  # its payoff was undone
                    self._set(t.memory_id, "status = 'advanced'")
                continue
            if t.status not in OPEN_STATES:
                continue
            try:
                meta = memory.get(t.memory_id).metadata
            except NotFoundError:
                self._set(t.memory_id, "status = 'dropped'")
                continue
            if meta.get("paid_off"):
                self._set(t.memory_id, "status = 'paid_off'")
            elif meta.get("forgotten") or meta.get("superseded_by"):
                self._set(t.memory_id, "status = 'dropped'")

    def for_context(self, episode: int, k: int = 5) -> list[Thread]:
        """The ``k`` most urgent open threads at ``episode``, most urgent first."""
        ranked = sorted(self.open_threads(), key=lambda t: (-urgency(t, episode), t.planted))
        return ranked[:k]

    def overdue(self, episode: int) -> list[Thread]:
        return [t for t in self.open_threads() if episode > t.due]


__all__ = [
    "DUE_AFTER",
    "OPEN_STATES",
    "ForeshadowingLedger",
    "Status",
    "Thread",
    "connect",
    "overdue_findings",
    "touched",
    "urgency",
]
