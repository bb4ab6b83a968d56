"""A project's step lock on PostgreSQL: one process at a time runs a multi-store step.

A step (an accept: memory on the Chroma server, then the project's rows) must not interleave
with another process's step on the same project. :class:`StepLock` is that lock for every
process on one database: a PostgreSQL *session* advisory lock held on a connection of its own
for the whole step (the database releases it if the process dies), inside a re-entrant thread
lock for the threads of this process (one lock object per project and process,
:func:`step_lock`).

Taking it bumps the project's ``epoch``. A process whose bump is not the one after its last
bump knows another process held the lock since, so what it cached of the project (the memory's
turn and summaries, a key index count) may be stale: it calls its listeners
(:meth:`StepLock.listen`) before the step runs. :meth:`StepLock.changed` answers the same for a
reader that takes no lock.
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from collections.abc import Callable, Iterator
from typing import Any

from sqlalchemy import Connection, func, select, update

from aizac.errors import StorageError
from aizac.storage.database import LOCK_STEP, Database, lock_key
from aizac.storage.tables import projects

_LOCKS: dict[tuple[int, str], StepLock] = {}
_GUARD = threading.Lock()


class StepLock:
    """The step lock of the project ``key`` in ``db`` (see the module docstring)."""

    def __init__(self, db: Database, key: str) -> None:
        self.db = db
        self.key = key
        self._thread = threading.RLock()
        self._depth = 0
        self._conn: Connection | None = None
        self._stepped: int | None = None  # the epoch our last step took
        self._seen: int | None = None  # the newest epoch we reloaded for or took
        self._listeners: list[weakref.WeakMethod[Any] | Callable[[bool], None]] = []

    # ---------------------------------------------------------------------- listeners
    def listen(self, callback: Callable[[bool], None]) -> None:
        """Call ``callback(full)`` when another process may have changed the project:
        ``full=True`` under the lock (recover and reload), ``False`` for a reader (reload only).
        A bound method is held weakly (a closed project's agent goes away)."""
        ref: Any = weakref.WeakMethod(callback) if hasattr(callback, "__self__") else callback
        with self._thread:
            self._listeners.append(ref)

    def _notify(self, full: bool) -> None:
        alive = []
        for ref in list(self._listeners):
            callback = ref() if isinstance(ref, weakref.WeakMethod) else ref
            if callback is None:
                continue
            alive.append(ref)
            callback(full)
        self._listeners = alive

    # ---------------------------------------------------------------------------- lock
    @contextlib.contextmanager
    def hold(self) -> Iterator[None]:
        """Hold the lock for a block (re-entrant in one thread)."""
        with self._thread:
            self._depth += 1
            try:
                if self._depth == 1:
                    self._acquire()
                yield
            finally:
                self._depth -= 1
                if self._depth == 0:
                    self._release()

    def _acquire(self) -> None:
        try:
            conn = self.db.engine.connect().execution_options(isolation_level="AUTOCOMMIT")
        except Exception as e:
            raise StorageError("error.db.unreachable", where=self.db.where, cause=str(e)) from e
        try:
            conn.execute(select(func.pg_advisory_lock(LOCK_STEP, lock_key(self.key))))
            epoch = conn.execute(
                update(projects).where(projects.c.id == self.key)
                .values(epoch=projects.c.epoch + 1).returning(projects.c.epoch)
            ).scalar()
        except Exception as e:
            conn.close()  # closing the session releases the advisory lock too
            raise StorageError("error.db.write", where=self.db.where, cause=str(e)) from e
        self._conn = conn
        if epoch is None:  # the project was deleted meanwhile: nothing cached is worth keeping
            return
        stale = self._stepped is None or int(epoch) != self._stepped + 1
        self._stepped = self._seen = int(epoch)
        if stale:
            try:
                self._notify(True)
            except BaseException:
                self._stepped = None  # the next step tries the reload again
                self._release()
                raise

    def _release(self) -> None:
        conn, self._conn = self._conn, None
        if conn is None:
            return
        with contextlib.suppress(Exception):
            conn.execute(select(func.pg_advisory_unlock(LOCK_STEP, lock_key(self.key))))
        with contextlib.suppress(Exception):
            conn.close()

    # ------------------------------------------------------------------------ readers
    def changed(self) -> bool:
        """For a reader: reload what is cached if another process stepped since (no lock is
        taken; while a thread of this process holds the lock, nothing can have changed)."""
        if not self._thread.acquire(blocking=False):
            return False
        try:
            if self._depth:
                return False
            with self.db.read() as conn:
                epoch = conn.execute(
                    select(projects.c.epoch).where(projects.c.id == self.key)).scalar()
            if epoch is None or int(epoch) == self._seen:
                return False
            self._seen = int(epoch)
            self._notify(False)
            return True
        finally:
            self._thread.release()


def step_lock(db: Database, key: str) -> StepLock:
    """The process's one :class:`StepLock` of project ``key`` in ``db``."""
    with _GUARD:
        lock = _LOCKS.get((id(db), key))
        if lock is None:
            lock = StepLock(db, key)
            _LOCKS[(id(db), key)] = lock
        return lock
