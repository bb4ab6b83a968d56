"""Web app fixtures: a real Studio (real SQLite, WriterMemory, cliché DB) over scripted fakes."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from aizac.cliches import ClicheDB
from aizac.llm.embeddings import HashingEmbeddings
from aizac.settings import Settings
from aizac.writer.service import Studio
from tests.fakes import ScriptedChatModel

if TYPE_CHECKING:
    from aizac.application.service import ApplicationService

ROLES = ("planner", "writer", "extractor", "reviewer")


@pytest.fixture(scope="session")
def cliche_db() -> ClicheDB:
    return ClicheDB(embeddings=HashingEmbeddings())


@pytest.fixture
def model() -> ScriptedChatModel:
    return ScriptedChatModel()


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", language="en", structured_retries=1,
                    transient_retries=0)


@pytest.fixture
def studio(settings: Settings, model: ScriptedChatModel, cliche_db: ClicheDB) -> Studio:
    return Studio(
        settings,
        models=dict.fromkeys(ROLES, model),
        embeddings=HashingEmbeddings(),
        cliches=cliche_db,
        beats_per_episode=3,
    )


@pytest.fixture
def service(studio: Studio, tmp_path: Path) -> ApplicationService:
    from aizac.application.service import ApplicationService

    return ApplicationService(studio, export_dir=tmp_path / "exports")
