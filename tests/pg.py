"""A throwaway PostgreSQL cluster for the tests (Debian's ``postgresql`` package, no Docker).

:class:`PostgresCluster` runs ``initdb`` in a temporary folder and ``pg_ctl start`` on a free
loopback port (its Unix socket in the same folder), with durability off (``fsync=off``: a test
cluster loses nothing that matters when the machine dies). As root, the server runs as the
``postgres`` system user (``initdb`` refuses root). A template database is migrated once with
``aizac db upgrade``'s code; :meth:`PostgresCluster.fresh` copies it for each test, so every
test starts from an empty, current schema in about a tenth of a second.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import uuid
from pathlib import Path


def _bin() -> Path:
    """``AIZAC_TEST_PG_BIN``, else the newest ``/usr/lib/postgresql/<version>/bin`` that has
    ``initdb`` (Debian's ``postgresql`` package: 15 on bookworm, 17 on trixie)."""
    if "AIZAC_TEST_PG_BIN" in os.environ:
        return Path(os.environ["AIZAC_TEST_PG_BIN"])
    found = [d / "bin" for d in Path("/usr/lib/postgresql").glob("*")
             if d.name.isdigit() and (d / "bin" / "initdb").is_file()]
    found.sort(key=lambda b: int(b.parent.name))
    return found[-1] if found else Path("/usr/lib/postgresql/15/bin")


BIN = _bin()
USER = "aizac"
TEMPLATE = "aizac_template"


def available() -> bool:
    return (BIN / "initdb").is_file() and (BIN / "pg_ctl").is_file()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PostgresCluster:
    """A PostgreSQL server of the tests' own (start with :meth:`start`, end with :meth:`stop`)."""

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="aizac-pg-"))
        self.data = self.folder / "data"
        self.port = _free_port()
        self._lock = threading.Lock()
        self._run_as: list[str] = []
        if os.geteuid() == 0:  # initdb and postgres refuse to run as root
            pwd.getpwnam("postgres")
            shutil.chown(self.folder, "postgres")
            self._run_as = ["runuser", "-u", "postgres", "--"]

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{USER}@127.0.0.1:{self.port}/{database}"

    def _pg(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*self._run_as, *args], capture_output=True, text=True,
                              timeout=120, check=True)

    def start(self) -> PostgresCluster:
        self._pg(str(BIN / "initdb"), "-D", str(self.data), "-A", "trust", "-U", USER,
                 "-E", "UTF8", "--locale=C.UTF-8", "--no-sync")
        self.resume()
        self._template()
        return self

    def resume(self) -> None:
        """Start the server on its data (again, after :meth:`pause`)."""
        options = (f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.folder} "
                   "-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
                   "-c max_connections=300 -c shared_buffers=32MB")
        self._pg(str(BIN / "pg_ctl"), "-D", str(self.data), "-o", options,
                 "-l", str(self.folder / "server.log"), "-w", "-t", "60", "start")

    def pause(self) -> None:
        """Stop the server, keeping its data for :meth:`resume` (a fast shutdown: the test
        cluster runs without fsync, so an immediate one would lose what it acknowledged)."""
        self._pg(str(BIN / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")

    def _admin(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(sql)

    def _template(self) -> None:
        from aizac.storage.checkpointer import setup_postgres_saver
        from aizac.storage.database import Database
        from aizac.storage.schema import upgrade_server

        self._admin(f"CREATE DATABASE {TEMPLATE}")
        db = Database.postgresql(self.url(TEMPLATE), poolclass=_null_pool())
        try:
            upgrade_server(db)
        finally:
            db.dispose()
        setup_postgres_saver(self.url(TEMPLATE))

    def fresh(self) -> str:
        """The URL of a new database, a copy of the migrated template."""
        name = f"t_{uuid.uuid4().hex[:12]}"
        with self._lock:  # a template can be copied by one CREATE DATABASE at a time
            for attempt in range(50):
                try:
                    self._admin(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE}")
                    break
                except Exception:
                    if attempt == 49:
                        raise
                    time.sleep(0.1)
        return self.url(name)

    def empty(self) -> str:
        """The URL of a new database with no tables (for ``aizac db upgrade`` to fill)."""
        name = f"e_{uuid.uuid4().hex[:12]}"
        self._admin(f"CREATE DATABASE {name}")
        return self.url(name)

    def drop(self, url: str) -> None:
        from aizac.storage.database import forget_server

        forget_server(url)
        name = url.rsplit("/", 1)[1]
        with contextlib.suppress(Exception):
            self._admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self._pg(str(BIN / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.folder, ignore_errors=True)


def _null_pool() -> object:
    from sqlalchemy.pool import NullPool

    return NullPool
