"""A migration never runs on data that was not kept first (issue 37, item 3): an embedded file
at an older revision is copied beside itself before Alembic touches it (and left as it was
when the migration fails), and `aizac db upgrade` dumps a PostgreSQL database that holds data
with pg_dump before migrating it."""

from __future__ import annotations

import sqlite3
import subprocess
from pathlib import Path

import pytest
from sqlalchemy import delete, text

from aizac.errors import StorageError
from aizac.storage.database import forget_file, sqlite_file
from aizac.writer.project import ProjectStore
from tests.pg import PostgresCluster
from tests.storage.test_db_cli import _aizac, _env


def _rows(path: Path) -> list[tuple[str, str]]:
    conn = sqlite3.connect(path)
    try:
        return sorted(conn.execute("SELECT key, value FROM meta").fetchall())
    finally:
        conn.close()


def test_an_embedded_file_is_copied_before_it_is_migrated(tmp_path: Path) -> None:
    store = ProjectStore.create(tmp_path, "saga", language="en", keywords=["회귀"])
    path = store.db_path
    forget_file(path)
    conn = sqlite3.connect(path)
    conn.execute("UPDATE alembic_version SET version_num = 'project_0000'")  # an older one
    conn.commit()
    conn.close()
    before = _rows(path)
    with pytest.raises(StorageError) as failed:  # a revision this aizac cannot migrate from
        sqlite_file(path, "project")
    assert failed.value.key == "error.db.migrate"
    kept = sorted(path.parent.glob("project.sqlite3.before-project_0000.*.bak"))
    assert len(kept) == 1 and _rows(kept[0]) == before
    assert _rows(path) == before  # the failed migration left the file as it was
    forget_file(path)


def test_db_upgrade_dumps_a_database_with_data_before_migrating_it(
    tmp_path: Path, postgres: PostgresCluster
) -> None:
    from aizac.storage.catalog import Catalog
    from aizac.storage.database import forget_server, server_database
    from aizac.storage.schema import version_table
    from aizac.storage.tables import sessions, tokens, users

    url = postgres.fresh()
    try:
        db = server_database(url)
        catalog = Catalog(db)
        ProjectStore.create(tmp_path / "projects", "saga", language="en", catalog=catalog)
        with db.engine.begin() as conn:  # the accounts' branch is missing: it needs migrating
            conn.execute(delete(version_table).where(
                version_table.c.version_num == "accounts_0001"))
            for table in (sessions, tokens, users):
                conn.execute(text(f'DROP TABLE "{table.name}"'))
        forget_server(url)
        env = _env(tmp_path, url)
        done = _aizac("db", "upgrade", env=env)
        assert done.returncode == 0, done.stderr
        dumps = sorted((tmp_path / "data" / "backups" / "database").glob("*.dump"))
        assert len(dumps) == 1 and "before-migration" in dumps[0].name, done.stdout
        assert str(dumps[0]) in done.stdout
        listed = subprocess.run(["pg_restore", "--list", str(dumps[0])], capture_output=True,
                                text=True, timeout=120)
        assert listed.returncode == 0 and "TABLE public projects" in listed.stdout
        assert "TABLE public users" not in listed.stdout  # taken before the migration
        again = _aizac("db", "upgrade", env=env)  # up to date: nothing to dump
        assert again.returncode == 0 and len(list(dumps[0].parent.glob("*.dump"))) == 1
        assert Catalog(server_database(url)).names() == ["saga"]
    finally:
        postgres.drop(url)
