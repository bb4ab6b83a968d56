"""Foreshadowing ledger: planted threads with planted / last-advanced / due episodes and status.

Ordinary memories fade; an open thread must not. The ledger keeps every planted thread — the
memory's foreshadowing (``foreshadow=True``) — with the episode it was planted in, the last
episode that advanced it and the episode it is due by, and a status: ``open``, ``advanced``,
``paid_off`` or ``dropped``. :func:`urgency` *grows* with age (1.0 at the due episode, more past
it, more again the longer nothing advanced it), so :meth:`ForeshadowingLedger.for_context` keeps
the oldest open threads in the writer's context even after their memories decayed, and
:func:`overdue_findings` warns about threads left hanging past due.

Storage: table ``threads`` of ``continuity.sqlite`` in the project folder (beside the project
database), or of the server database (:mod:`aizac.storage`), one transaction per change, so a
crash never leaves half a record. The memory stays
the source of what was planted and paid off: :meth:`ForeshadowingLedger.sync` reads it (open
foreshadowing, and the ``paid_off`` mark of threads no longer open) and is idempotent.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from sqlalchemy import Connection, case, select, update
from sqlalchemy.exc import DBAPIError

from aizac.continuity.report import Finding, message
from aizac.continuity.text import containment
from aizac.errors import NotFoundError, StorageError
from aizac.memory.facts import name_key, text_key
from aizac.storage.database import EMBEDDED_FILES, ProjectPlace, Scope, scope_of
from aizac.storage.tables import threads

if TYPE_CHECKING:
    from aizac.memory.store import WriterMemory

Status = Literal["open", "advanced", "paid_off", "dropped"]
OPEN_STATES: tuple[str, ...] = ("open", "advanced")
DUE_AFTER = 10
"""Episodes after planting a thread is due by, unless the writer sets its due episode."""
DB_NAME = EMBEDDED_FILES["continuity"]


@contextmanager
def connect(scope: Scope, *, write: bool = True) -> Iterator[Connection]:
    """One transaction on the continuity books of ``scope`` (a project's)."""
    db = scope.db
    try:
        with (db.write if write else db.read)(db.where) as conn:
            if write:
                db.serialise(conn, scope.project)
            yield conn
    except (StorageError, DBAPIError) as e:
        cause = e.text if isinstance(e, StorageError) else str(e)
        raise StorageError("error.continuity.failed", path=str(db.where), cause=cause) from e


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


def overdue_threads(threads: Iterable[Thread], episode: int) -> list[Thread]:
    """The open threads past their due episode at ``episode``, ranked as the continuity check
    lists them: oldest planted first (pure). The one ranking of overdue threads: the check's
    findings and the planner's context (:mod:`aizac.writer.planning`) both take it from here,
    so the planner is shown first what the check holds it to first."""
    late = [t for t in threads if t.status in OPEN_STATES and episode > t.due]
    return sorted(late, key=lambda t: (t.planted, t.memory_id))


def overdue_findings(threads: Iterable[Thread], episode: int, language: str) -> list[Finding]:
    """A warning for every open thread past its due episode, in :func:`overdue_threads`'
    order (pure)."""
    return [
        Finding("foreshadowing_overdue", "warning",
                message("overdue", language, thread=t.text, due=t.due, planted=t.planted),
                t.memory_id, "", None)  # nothing in the draft is at fault: it is missing
        for t in overdue_threads(threads, episode)
    ]


class ForeshadowingLedger:
    """The threads of one project (its store, or an embedded project's folder)."""

    def __init__(self, where: ProjectPlace, *, due_after: int = DUE_AFTER) -> None:
        self.scope = scope_of(where, "continuity")
        self.key = self.scope.project
        self.due_after = due_after

    def threads(self, status: Iterable[str] | None = None) -> list[Thread]:
        """Threads (optionally only those with a status in ``status``), oldest first."""
        t = threads.c
        with connect(self.scope, write=False) as conn:
            rows = conn.execute(
                select(t.memory_id, t.keyword, t.text, t.planted, t.last_advanced, t.due,
                       t.status).where(t.project == self.key).order_by(t.planted, t.memory_id)
            ).all()
        found = [Thread(*row) for row in rows]
        wanted = set(status) if status is not None else None
        return [t for t in found if wanted is None or t.status in wanted]

    def open_threads(self) -> list[Thread]:
        return self.threads(OPEN_STATES)

    def plant(self, memory_id: str, text: str, *, keyword: str = "", planted: int,
              due: int | None = None) -> None:
        """Add a thread (no-op when the memory is already in the ledger)."""
        due = planted + self.due_after if due is None else due
        stmt = self.scope.db.insert(threads).values(
            project=self.key, memory_id=memory_id, keyword=keyword, text=text, planted=planted,
            last_advanced=planted, due=due, status="open")
        with connect(self.scope) as conn:
            conn.execute(stmt.on_conflict_do_nothing(index_elements=["project", "memory_id"]))

    def _set(self, memory_id: str, **values: Any) -> None:
        with connect(self.scope) as conn:
            done = conn.execute(update(threads).where(
                threads.c.project == self.key, threads.c.memory_id == memory_id,
            ).values(**values)).rowcount
        if not done:
            raise NotFoundError("error.continuity.no_thread", id=memory_id)

    def set_due(self, memory_id: str, due: int) -> None:
        self._set(memory_id, due=due)

    def drop(self, memory_id: str) -> None:
        """The writer lets a thread go (it no longer counts as open)."""
        self._set(memory_id, status="dropped")

    def advance(self, episode: int, texts: Sequence[str]) -> list[str]:
        """Mark the open threads ``texts`` advance as advanced at ``episode``; their ids."""
        hit = touched(self.open_threads(), texts)
        later = case((threads.c.last_advanced < episode, episode),
                     else_=threads.c.last_advanced)
        with connect(self.scope) as conn:
            for t in hit:
                conn.execute(update(threads).where(
                    threads.c.project == self.key, threads.c.memory_id == t.memory_id,
                ).values(status="advanced", last_advanced=later))
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
                    self._set(t.memory_id, status="advanced")
                continue
            if t.status not in OPEN_STATES:
                continue
            try:
                meta = memory.get(t.memory_id).metadata
            except NotFoundError:
                self._set(t.memory_id, status="dropped")
                continue
            if meta.get("paid_off"):
                self._set(t.memory_id, status="paid_off")
            elif meta.get("forgotten") or meta.get("superseded_by"):
                self._set(t.memory_id, status="dropped")

    def for_context(self, episode: int, k: int = 5) -> list[Thread]:
        """The ``k`` most urgent open threads at ``episode``, most urgent first."""
        ranked = sorted(self.open_threads(), key=lambda t: (-urgency(t, episode), t.planted))
        return ranked[:k]

    def overdue(self, episode: int) -> list[Thread]:
        """The open threads past due at ``episode`` (:func:`overdue_threads`' order)."""
        return overdue_threads(self.open_threads(), episode)


__all__ = [
    "DUE_AFTER",
    "OPEN_STATES",
    "ForeshadowingLedger",
    "Status",
    "Thread",
    "connect",
    "overdue_findings",
    "overdue_threads",
    "touched",
    "urgency",
]
