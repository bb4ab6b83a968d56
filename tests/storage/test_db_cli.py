"""``aizac db upgrade`` and ``aizac db import`` as an operator runs them (the real command line
in a child process, on the session's PostgreSQL)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.pg import PostgresCluster

ROOT = Path(__file__).resolve().parents[2]


def _aizac(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", "from aizac.cli import main; main()", *args],
                          capture_output=True, text=True, env=env, timeout=300)


def _env(tmp_path: Path, url: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AIZAC_")}
    env.update(AIZAC_DATA_DIR=str(tmp_path / "data"), PYTHONPATH=str(ROOT))
    if url is not None:
        env["AIZAC_DATABASE_URL"] = url
    return env


def test_upgrade_creates_the_schema_once_and_the_projects_live_there(
    tmp_path: Path, postgres: PostgresCluster
) -> None:
    url = postgres.empty()
    try:
        env = _env(tmp_path, url)
        refused = _aizac("projects", env=env)  # before the upgrade: told what to run
        assert refused.returncode == 1 and "aizac db upgrade" in refused.stderr
        first = _aizac("db", "upgrade", env=env)
        assert first.returncode == 0, first.stderr
        assert "was migrated from - to" in first.stdout and "project_0001" in first.stdout
        second = _aizac("db", "upgrade", env=env)
        assert second.returncode == 0 and "is up to date" in second.stdout
        made = _aizac("new", "서버 소설", "--keywords", "회귀, 복수", env=env)
        assert made.returncode == 0, made.stderr
        listed = _aizac("projects", env=env)
        assert "서버 소설" in listed.stdout
        assert not (tmp_path / "data" / "projects" / "서버 소설" / "project.sqlite3").exists()
    finally:
        postgres.drop(url)


def test_import_moves_an_embedded_project_and_a_bad_url_is_named(
    tmp_path: Path, pg_url: str
) -> None:
    embedded = _env(tmp_path, None)
    assert _aizac("new", "옛 소설", "--keywords", "회귀", env=embedded).returncode == 0
    env = _env(tmp_path, pg_url)
    moved = _aizac("db", "import", str(tmp_path / "data"), env=env)
    assert moved.returncode == 0, moved.stdout + moved.stderr
    assert "1 projects: 1 moved" in moved.stdout
    assert "옛 소설" in _aizac("projects", env=env).stdout
    again = _aizac("db", "import", str(tmp_path / "data"), env=env)
    assert again.returncode == 0 and "1 already there and checked" in again.stdout
    bad = _aizac("db", "upgrade", env={**env, "AIZAC_DATABASE_URL": "mysql://x@h/db"})
    assert bad.returncode == 1 and "AIZAC_DATABASE_URL" in bad.stderr
    unset = _aizac("db", "import", str(tmp_path / "data"), env=embedded)
    assert unset.returncode == 1 and "AIZAC_DATABASE_URL is not set" in unset.stderr
