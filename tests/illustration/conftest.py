"""A real Studio (SQLite project, WriterMemory, cliché DB) over prompt-routed fake chat models,
with one project whose first beat is accepted and written (what an illustration needs)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from aizac.cliches import ClicheDB
from aizac.llm.embeddings import HashingEmbeddings
from aizac.settings import Settings
from aizac.writer.agent import WriterAgent
from aizac.writer.service import Studio
from tests.fakes import fake_models


@functools.cache
def cliche_db() -> ClicheDB:
    return ClicheDB(embeddings=HashingEmbeddings())


StudioFactory = Callable[..., Studio]


@pytest.fixture
def make_studio(tmp_path: Path) -> StudioFactory:
    def make(**settings: Any) -> Studio:
        settings.setdefault("transient_retries", 0)
        return Studio(Settings(data_dir=tmp_path / "data", language="en", **settings),
                      models=fake_models(), embeddings=HashingEmbeddings(), cliches=cliche_db(),
                      beats_per_episode=3)

    return make


Written = Callable[..., tuple[WriterAgent, int]]


@pytest.fixture
def written() -> Written:
    return written_project


def written_project(studio: Studio, name: str = "saga") -> tuple[WriterAgent, int]:
    """A project with a plan and its first beat accepted with prose: (agent, beat id)."""
    agent = studio.create(name, ["regression", "revenge"], genre="fantasy", language="en")
    agent.plan()
    beat = agent.next_beat()
    agent.accept(beat.id)
    text = "".join(agent.write_prose(beat.id))
    agent.save_prose(beat.id, text)
    return agent, beat.id
