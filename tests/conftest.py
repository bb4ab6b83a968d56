"""Shared test setup: every test runs offline, in a throwaway data directory."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from aizac.settings import get_settings

if TYPE_CHECKING:
    from tests.pg import PostgresCluster

# Variables that would make a test depend on the developer's machine or reach a real service.
_ISOLATED_ENV = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "CLOVASTUDIO_API_KEY",
    "OLLAMA_HOST",
)


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresCluster]:
    """A PostgreSQL cluster of this test session (started on first use; tests/pg.py)."""
    from tests.pg import BIN, PostgresCluster, available

    if not available():
        pytest.fail(f"PostgreSQL's initdb/pg_ctl are missing in {BIN}: apt-get install "
                    "postgresql (or set AIZAC_TEST_PG_BIN)")
    cluster = PostgresCluster().start()
    yield cluster
    cluster.stop()


@pytest.fixture
def pg_url(postgres: PostgresCluster) -> Iterator[str]:
    """A fresh database of the session's cluster, at aizac's schema (dropped afterwards)."""
    url = postgres.fresh()
    yield url
    postgres.drop(url)


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request: pytest.FixtureRequest) -> str:
    """Which engine a test stores its rows on: the embedded files or PostgreSQL."""
    return str(request.param)


@pytest.fixture
def database_url(engine: str, request: pytest.FixtureRequest) -> str | None:
    """``AIZAC_DATABASE_URL`` for the test's engine (``None``: embedded SQLite)."""
    return None if engine == "sqlite" else str(request.getfixturevalue("pg_url"))


@pytest.fixture(autouse=True)
def _isolated_settings(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """Point AIZAC_DATA_DIR at a fresh folder and hide real keys and config files."""
    import os

    for name in list(os.environ):
        if name.startswith("AIZAC_") or name in _ISOLATED_ENV:
            monkeypatch.delenv(name, raising=False)
    data_dir: Path = tmp_path_factory.mktemp("aizac-data")
    monkeypatch.setenv("AIZAC_DATA_DIR", str(data_dir))
    monkeypatch.setenv("AIZAC_CONFIG", str(data_dir / "no-such-aizac.toml"))
    monkeypatch.chdir(data_dir)  # so a developer's ./.env is never read
    # The local-server search would ask this machine's real ports (another process's server
    # would show up in a test): tests of the search name the ports of their own servers.
    monkeypatch.setenv("AIZAC_DISCOVER", "false")
    # The product's default is the semantic model (AIZAC_EMBEDDING=local); tests use the
    # instant hash unless they pass embeddings in or ask for the real one.
    monkeypatch.setenv("AIZAC_EMBEDDING", "hash")
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()
