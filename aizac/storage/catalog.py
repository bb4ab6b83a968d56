"""The projects of one owner in a PostgreSQL database (``AIZAC_DATABASE_URL``).

Embedded, a project is its folder and its SQLite files. On PostgreSQL it is a row of
:data:`~aizac.storage.tables.projects` — an id, its owner (the user id of an ``aizac serve``
account; ``""`` for a single writer) and its name — and every table's rows carry that id. A
project is created in one transaction (its row, its meta, its first step), so a create killed
half way leaves nothing, and deleted in one (every row of every concern).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import Connection, delete, select
from sqlalchemy.exc import IntegrityError

from aizac.errors import InvalidInputError
from aizac.storage.database import Database
from aizac.storage.locks import StepLock, step_lock
from aizac.storage.tables import CONCERNS, PROJECT_CONCERNS, projects


@dataclass(frozen=True)
class Catalog:
    """Where one owner's projects live on the server database.

    Args:
        db: the PostgreSQL database.
        owner: whose projects these are (a user id; ``""`` for a single writer).
    """

    db: Database
    owner: str = ""

    def create(self, name: str, write: Callable[[Connection, str], None]) -> str:
        """A new project ``name``: its row, and ``write(conn, key)`` in the same transaction;
        returns its key.

        Raises:
            InvalidInputError: the owner has a project of that name.
        """
        key = uuid.uuid4().hex
        try:
            with self.db.write(name) as conn:
                conn.execute(projects.insert().values(id=key, owner=self.owner, name=name,
                                                      created_at=time.time()))
                write(conn, key)
        except IntegrityError as e:
            raise InvalidInputError("error.project.exists", name=name) from e
        return key

    def find(self, name: str) -> str | None:
        """The key of the owner's project ``name``, or ``None``."""
        with self.db.read(name) as conn:
            return conn.execute(select(projects.c.id).where(
                projects.c.owner == self.owner, projects.c.name == name)).scalar()

    def names(self) -> list[str]:
        """The owner's project names, sorted."""
        with self.db.read() as conn:
            rows = conn.execute(select(projects.c.name).where(projects.c.owner == self.owner)
                                .order_by(projects.c.name)).scalars()
            return list(rows)

    def delete(self, key: str) -> None:
        """Remove project ``key`` and every row of it, in one transaction."""
        with self.db.write(key) as conn:
            self.db.serialise(conn, key)
            for concern in PROJECT_CONCERNS:
                for table in reversed(CONCERNS[concern]):  # a placement before its picture
                    conn.execute(delete(table).where(table.c.project == key))
            conn.execute(delete(projects).where(projects.c.id == key))

    def lock(self, key: str) -> StepLock:
        """The step lock of project ``key`` (shared by every store object of this process)."""
        return step_lock(self.db, key)


def owners(db: Database) -> list[str]:
    """Every owner with a project in ``db``."""
    with db.read() as conn:
        return list(conn.execute(select(projects.c.owner).distinct().order_by(projects.c.owner))
                    .scalars())
