from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from aizac.cliches import ClicheDB
from aizac.llm.embeddings import HashingEmbeddings
from aizac.llm.router import ModelRouter
from aizac.settings import Settings
from aizac.writer.agent import WriterAgent
from aizac.writer.project import ProjectStore
from tests.fakes import DictMemory, RoutedFakeChatModel, fake_context, fake_models


@pytest.fixture(scope="session")
def cliches() -> ClicheDB:
    return ClicheDB(embeddings=HashingEmbeddings())


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", language="en", structured_retries=1)


AgentFactory = Callable[..., tuple[WriterAgent, dict[str, RoutedFakeChatModel], DictMemory]]


@pytest.fixture
def make_agent(settings: Settings, cliches: ClicheDB) -> AgentFactory:
    def make(
        models: dict[str, RoutedFakeChatModel] | None = None,
        memory: DictMemory | None = None,
        name: str = "novel",
        **options: Any,
    ) -> tuple[WriterAgent, dict[str, RoutedFakeChatModel], DictMemory]:
        models = models or fake_models()
        memory = memory or DictMemory()
        root = settings.data_dir / "projects"
        try:
            store = ProjectStore.open(root, name)
        except KeyError:
            store = ProjectStore.create(
                root, name, language="en", genre="modern fantasy",
                keywords=["회귀", "복수"],
            )
        router = ModelRouter(settings, models=dict(models))
        options.setdefault("context_builder", fake_context)
        agent = WriterAgent(store, memory, router, cliches, settings=settings, **options)
        return agent, models, memory

    return make
