"""aizac with AIZAC_CHROMA_HOST set, against a real ``chroma run`` on loopback: the Studio's
design -> accept -> recall flow, namespaces, the embedding check, the key index, and the errors
a writer sees when the server is missing or stops."""

from __future__ import annotations

from pathlib import Path

import chromadb
import pytest

from aizac.cliches import ClicheDB
from aizac.errors import ConfigError, InvalidInputError, StorageError
from aizac.llm.embeddings import HashingEmbeddings
from aizac.memory import WriterMemory
from aizac.memory.chroma_client import ChromaClients, namespace_database, project_collection
from aizac.memory.key_index import FILE_NAME as KEY_INDEX
from aizac.memory.store import open_server_memory
from aizac.settings import Settings, load_settings
from aizac.writer.project import ProjectStore
from aizac.writer.service import Studio
from tests.acceptance.invariants import check_project
from tests.fakes import fake_models

from .conftest import ChromaServer, free_port, start_chroma

ASK_REPLY = '```json\n{"query": "gate", "filter": "NO_FILTER"}\n```'


@pytest.fixture(scope="module")
def cliches() -> ClicheDB:
    return ClicheDB(embeddings=HashingEmbeddings())


def studio_on(settings: Settings, cliches: ClicheDB, namespace: str | None) -> Studio:
    return Studio(
        settings, models=dict(fake_models(extractor={"unknown": ASK_REPLY})),
        embeddings=HashingEmbeddings(), cliches=cliches, beats_per_episode=2,
        chroma_namespace=namespace, owner_wait=0.5,
    )


def server_settings(server: ChromaServer, data_dir: Path) -> Settings:
    return server.settings(
        Settings(data_dir=data_dir, language="en", structured_retries=1, transient_retries=0)
    )


def collections(server: ChromaServer, namespace: str) -> list[str]:
    """Collection names in ``namespace``'s database, read by a client of its own."""
    client = chromadb.HttpClient(
        host="127.0.0.1", port=server.port, database=namespace_database(namespace),
        settings=chromadb.config.Settings(anonymized_telemetry=False),
    )
    return sorted(c.name for c in client.list_collections())


def test_design_accept_recall_on_the_server(
    chroma_server: ChromaServer, tmp_path: Path, cliches: ClicheDB
) -> None:
    settings = server_settings(chroma_server, tmp_path / "data")
    studio = studio_on(settings, cliches, "writer-1")
    agent = studio.create("두번째 삶", "회귀, 복수", genre="modern fantasy", language="en")
    agent.plan()
    for _ in range(3):
        agent.accept(agent.next_beat().id)
    assert agent.memory.turn == 3
    assert "Kang Jun" in agent.memory.characters()
    docs = agent.ask("what happened at the gate?")
    assert docs and all(d.page_content for d in docs)

    memory = agent.memory
    assert isinstance(memory, WriterMemory)
    name = project_collection("두번째 삶", agent.store.info().created_at)
    assert collections(chroma_server, "writer-1") == [name]
    files = {p.name for p in agent.store.memory_dir.iterdir()}
    assert KEY_INDEX in files and "chroma.sqlite3" not in files  # no embedded Chroma
    studio.close()

    again = studio_on(settings, cliches, "writer-1").open("두번째 삶")
    assert again.memory.turn == 3 and "Kang Jun" in again.memory.characters()
    assert again.next_position() == (2, 2)
    again_memory = again.memory
    assert isinstance(again_memory, WriterMemory)
    ids = {h.id for h in again_memory.all()}
    assert ids == {h.id for h in memory.all()} and len(ids) >= 3

    clients = ChromaClients(settings)
    report = check_project(
        again.store.directory,
        open_memory=lambda store: open_server_memory(
            clients, "writer-1", memory_dir=store.memory_dir, project=store.info().name,
            created_at=store.info().created_at, embeddings=HashingEmbeddings(),
            settings=settings,
        ),
    )
    assert report.problems == [] and report.accepted == 3 and report.memories == len(ids)


def test_two_namespaces_never_see_each_other(chroma_server: ChromaServer, tmp_path: Path) -> None:
    settings = chroma_server.settings(Settings())
    clients = ChromaClients(settings)

    def memory(namespace: str, folder: str) -> WriterMemory:
        # The same project name and creation time: only the namespace tells them apart.
        return open_server_memory(
            clients, namespace, memory_dir=tmp_path / folder, project="novel", created_at=1.0,
            embeddings=HashingEmbeddings(), settings=settings,
        )

    alice, bob = memory("alice", "a"), memory("Alice", "b")
    alice.remember("Mira hides the One Ring.", tag="Story", pinned=True)
    alice.remember("Mira trusts Kai.", tag="CharacterRelation", character1="Mira",
                   character2="Kai")  # fmt: skip
    assert len(alice) == 2
    assert len(bob) == 0 and bob.all() == [] and bob.recall("One Ring") == []
    assert bob.relation("Mira", "Kai") is None and bob.characters() == {}
    assert namespace_database("alice") != namespace_database("Alice")
    # The control: the same namespace does share (so the check above can fail).
    assert len(memory("alice", "c")) == 2
    for namespace in ("alice", "Alice"):
        clients.drop_namespace(namespace)


def test_changed_embeddings_are_refused_on_the_server(
    chroma_server: ChromaServer, tmp_path: Path
) -> None:
    settings = chroma_server.settings(Settings())
    clients = ChromaClients(settings)
    options = {"memory_dir": tmp_path, "project": "p", "created_at": 2.0, "settings": settings}
    first = open_server_memory(clients, "emb", embeddings=HashingEmbeddings(), **options)
    first.remember("Kai is a knight.", tag="Character", character_name="Kai")
    with pytest.raises(StorageError, match="AIZAC_EMBEDDING changed"):
        open_server_memory(clients, "emb", embeddings=HashingEmbeddings(dim=64), **options)
    clients.drop_namespace("emb")


def test_the_key_index_is_rebuilt_from_the_server(
    chroma_server: ChromaServer, tmp_path: Path
) -> None:
    settings = chroma_server.settings(Settings())
    clients = ChromaClients(settings)
    options = {"memory_dir": tmp_path, "project": "p", "created_at": 3.0, "settings": settings}
    first = open_server_memory(clients, "keys", embeddings=HashingEmbeddings(), **options)
    for name in ("Mira", "Kai", "Yuna"):
        first.remember(f"{name} is a thief.", tag="Character", character_name=name)
    assert first.rows.index is not None and first.rows.index.count() == 3
    first.rows.index.close()
    (tmp_path / KEY_INDEX).unlink()  # e.g. the project folder moved to another node
    again = open_server_memory(clients, "keys", embeddings=HashingEmbeddings(), **options)
    assert again.rows.index is not None and again.rows.index.count() == 3
    assert [h.text for h in again.character_state("Kai")] == ["Kai is a thief."]
    clients.drop_namespace("keys")


def test_an_unreachable_server_says_what_to_do(tmp_path: Path, cliches: ClicheDB) -> None:
    port = free_port()  # nothing listens there
    settings = Settings(data_dir=tmp_path, language="en", chroma_host="127.0.0.1",
                        chroma_port=port)  # fmt: skip
    studio = studio_on(settings, cliches, "writer-1")
    with pytest.raises(StorageError) as info:
        studio.create("novel", "회귀, 복수", language="en")
    message = str(info.value)
    assert f"Cannot reach the Chroma server at http://127.0.0.1:{port}" in message
    assert "AIZAC_CHROMA_HOST" in message and "chroma run" in message
    assert ProjectStore.list_names(studio.root) == []  # a create that failed leaves no project


def test_a_server_that_stops_mid_session_is_a_clear_error(tmp_path: Path) -> None:
    server = start_chroma(tmp_path / "chroma", tmp_path / "chroma.log")
    try:
        settings = server.settings(Settings())
        clients = ChromaClients(settings)
        options = {"memory_dir": tmp_path / "m", "project": "p", "created_at": 4.0,
                   "settings": settings, "embeddings": HashingEmbeddings()}  # fmt: skip
        memory = open_server_memory(clients, "stops", **options)
        kept = memory.remember("Kai is a knight.", tag="Character", character_name="Kai")
        server.stop()
        with pytest.raises(StorageError, match="the Chroma server did not answer") as info:
            memory.remember("Kai fell.", tag="Story")
        assert "AIZAC_CHROMA_HOST" in info.value.hint and "AIZAC_DATA_DIR" not in str(info.value)
        with pytest.raises(StorageError, match="Chroma server did not answer"):
            memory.recall("knight")
    finally:
        server.stop()
    restarted = start_chroma(tmp_path / "chroma", tmp_path / "chroma2.log")
    try:
        again = open_server_memory(
            ChromaClients(restarted.settings(Settings())), "stops", **options
        )
        assert [h.id for h in again.all()] == [kept]  # nothing half-written
    finally:
        restarted.stop()


def test_settings_errors_name_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIZAC_CHROMA_PORT", "eighty")
    with pytest.raises(ConfigError, match="AIZAC_CHROMA_PORT='eighty' is not valid"):
        load_settings()
    monkeypatch.setenv("AIZAC_CHROMA_PORT", "70000")
    with pytest.raises(ConfigError, match="AIZAC_CHROMA_PORT='70000' is not valid"):
        load_settings()
    monkeypatch.delenv("AIZAC_CHROMA_PORT")
    monkeypatch.setenv("AIZAC_CHROMA_HOST", "http://chroma:8000")
    with pytest.raises(ConfigError, match=r"AIZAC_CHROMA_HOST=.* the port goes to AIZAC_CHROMA"):
        load_settings()
    monkeypatch.setenv("AIZAC_CHROMA_HOST", " ")
    assert load_settings().chroma_host is None  # blank: embedded Chroma
    with pytest.raises(InvalidInputError, match="namespace"):
        Studio(Settings(), chroma_namespace="../bob")
