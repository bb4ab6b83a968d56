from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from aizac.cliches import ClicheDB
from aizac.errors import NotFoundError
from aizac.llm.embeddings import HashingEmbeddings
from aizac.llm.router import ModelRouter
from aizac.settings import Settings
from aizac.writer.agent import WriterAgent
from aizac.writer.project import ProjectStore

if TYPE_CHECKING:
    from aizac.storage.catalog import Catalog
from tests.fakes import DictMemory, RoutedFakeChatModel, fake_context, fake_models


@pytest.fixture(scope="session")
def cliches() -> ClicheDB:
    return ClicheDB(embeddings=HashingEmbeddings())


@pytest.fixture
def catalog(database_url: str | None) -> Catalog | None:
    """The projects of the test's engine: ``None`` (embedded files) or a fresh PostgreSQL
    database's."""
    if database_url is None:
        return None
    from aizac.storage.catalog import Catalog
    from aizac.storage.database import server_database

    return Catalog(server_database(database_url))


def twin(store: ProjectStore) -> ProjectStore:
    """Another store object on the same project (a second tab, another process's view)."""
    return ProjectStore(store.directory, catalog=store.catalog, key=store.key)


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", language="en", structured_retries=1)


AgentFactory = Callable[..., tuple[WriterAgent, dict[str, RoutedFakeChatModel], DictMemory]]


@pytest.fixture
def make_agent(settings: Settings, cliches: ClicheDB, catalog: Catalog | None) -> AgentFactory:
    """Agents over a project on the test's engine (embedded files, PostgreSQL)."""

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
            store = ProjectStore.open(root, name, catalog=catalog)
        except NotFoundError:
            store = ProjectStore.create(
                root, name, language="en", genre="modern fantasy",
                keywords=["회귀", "복수"], catalog=catalog,
            )
        router = ModelRouter(settings, models=dict(models))
        options.setdefault("context_builder", fake_context)
        agent = WriterAgent(store, memory, router, cliches, settings=settings, **options)
        return agent, models, memory

    return make
