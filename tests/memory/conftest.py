"""Fixtures for the memory tests: an in-memory WriterMemory with offline embeddings."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from aizac.llm.embeddings import HashingEmbeddings
from aizac.memory import WriterMemory
from aizac.settings import Settings
from aizac.storage.database import Scope


@pytest.fixture
def settings() -> Settings:
    return Settings(
        memory_threshold=1.0,
        strength_story=10.0,
        strength_character=30.0,
        strength_relation=20.0,
        strength_setting=40.0,
        short_term_tokens=64,
    )


@pytest.fixture
def tables(database_url: str | None) -> Scope | None:
    """Where a memory keeps its key index and journal: ``None`` (SQLite beside the store or in
    memory) or a project's rows on a fresh PostgreSQL database."""
    if database_url is None:
        return None
    from aizac.storage.database import server_database

    return Scope(server_database(database_url), "project-1")


@pytest.fixture
def mem(settings: Settings) -> Iterator[WriterMemory]:
    memory = WriterMemory(embeddings=HashingEmbeddings(), settings=settings)
    yield memory
    memory.close()
