"""A project's step lock on PostgreSQL: one process at a time runs a multi-store step.

A step (an accept: memory on the Chroma server, then the project's rows) must not interleave
with another process's step on the same project. :class:`StepLock` is that lock for every
process on one database: a PostgreSQL *session* advisory lock held on a connection of its own
for the whole step (the database releases it if the process dies), inside a re-entrant thread
lock for the threads of this process (one lock object per project and process,
:func:`step_lock`).

Taking it bumps the project's ``epoch`` and :meth:`StepLock.hold` yields the new value. Whoever
caches something of the project (a store's listeners: the memory's turn and summaries, a key
index count) compares it with the epoch of its own last step: anything but the next number
means another holder stepped in between, so the cache is reloaded before the step runs
(:meth:`aizac.writer.project.ProjectStore.lock`). :meth:`StepLock.epoch` answers the same for
a reader that takes no lock.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

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
        self._epoch: int | None = None  # while held: the epoch this hold took

    @contextlib.contextmanager
    def hold(self) -> Iterator[int | None]:
        """Hold the lock for a block (re-entrant in one thread); yields the project's epoch of
        this hold (``None``: the project is gone)."""
        with self._thread:
            self._depth += 1
            try:
                if self._depth == 1:
                    self._acquire()
                yield self._epoch
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
        self._epoch = None if epoch is None else int(epoch)

    def _release(self) -> None:
        conn, self._conn, self._epoch = self._conn, None, None
        if conn is None:
            return
        with contextlib.suppress(Exception):
            conn.execute(select(func.pg_advisory_unlock(LOCK_STEP, lock_key(self.key))))
        with contextlib.suppress(Exception):
            conn.close()

    @contextlib.contextmanager
    def quiet(self) -> Iterator[bool]:
        """For a reader: ``True`` when no thread of this process is inside a step of the
        project (its caches may then be reloaded); ``False`` when one is."""
        if not self._thread.acquire(blocking=False):
            yield False
            return
        try:
            yield self._depth == 0
        finally:
            self._thread.release()

    def epoch(self) -> int | None:
        """The project's epoch now (``None``: it is gone)."""
        with self.db.read() as conn:
            found = conn.execute(
                select(projects.c.epoch).where(projects.c.id == self.key)).scalar()
        return None if found is None else int(found)


def step_lock(db: Database, key: str) -> StepLock:
    """The process's one :class:`StepLock` of project ``key`` in ``db``."""
    with _GUARD:
        lock = _LOCKS.get((id(db), key))
        if lock is None:
            lock = StepLock(db, key)
            _LOCKS[(id(db), key)] = lock
        return lock
