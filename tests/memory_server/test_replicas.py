"""Replicas without affinity: several aizac servers on one PostgreSQL database and one Chroma
server, any of them serving any request of any user; and a process killed mid-accept, whose
project the next process finishes (nothing lost, nothing twice)."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from acceptance.killtrials import model_env
from acceptance.openai_server import OpenAIServer
from acceptance.story import KoreanStory
from argon2 import PasswordHasher
from fastapi import FastAPI
from fastapi.testclient import TestClient
from pydantic import SecretStr

from aizac.cliches import ClicheDB
from aizac.llm.embeddings import HashingEmbeddings
from aizac.memory.chroma_client import ChromaClients
from aizac.memory.store import open_server_memory
from aizac.server import ServerConfig, create_app
from aizac.server.accounts import AccountStore
from aizac.settings import Settings
from aizac.storage.catalog import Catalog
from aizac.storage.database import server_database
from aizac.storage.killpoints import KILL_ENV, STEPS
from aizac.upkeep.invariants import check_project
from aizac.writer.project import ProjectStore
from aizac.writer.service import Studio
from tests.fakes import ScriptedChatModel
from tests.server.conftest import browser

from .conftest import ChromaServer

ROLES = ("planner", "writer", "extractor", "reviewer")
PASSWORD = "correct horse battery"
PROJECT = "세 개의 서버"


@pytest.fixture(scope="module")
def cliches() -> ClicheDB:
    return ClicheDB(embeddings=HashingEmbeddings())


def _replica(settings: Settings, cliches: ClicheDB) -> FastAPI:
    """One aizac server of its own (its sandboxes, Studios and Chroma clients), as a separate
    process would have; only the database and the Chroma server are shared."""
    clients = ChromaClients(settings)
    model = ScriptedChatModel()

    def studio(user_settings: Settings, user_id: str) -> Studio:
        return Studio(user_settings, models=dict.fromkeys(ROLES, model),
                      embeddings=HashingEmbeddings(), cliches=cliches, beats_per_episode=3,
                      chroma_namespace=user_id, chroma_clients=clients)

    accounts = AccountStore.open(  # on the database: every replica knows every account
        settings, hasher=PasswordHasher(time_cost=1, memory_cost=8, parallelism=1))
    return create_app(settings, config=ServerConfig(secret_key=SecretStr("replica-secret")),
                      studio_factory=studio, accounts=accounts, ui=False)


def _accepted(settings: Settings, user_id: str) -> int:
    db = server_database(str(settings.database))
    return ProjectStore.open(settings.data_dir / "users" / user_id / "projects", PROJECT,
                             catalog=Catalog(db, user_id)).count_beats("accepted")


def _check(settings: Settings, user_id: str) -> list[str]:
    db = server_database(str(settings.database))
    store = ProjectStore.open(settings.data_dir / "users" / user_id / "projects", PROJECT,
                              catalog=Catalog(db, user_id))
    info = store.info()

    def memory(s: ProjectStore) -> Any:
        return open_server_memory(
            ChromaClients(settings), user_id, memory_dir=s.memory_dir, project=info.name,
            created_at=info.created_at, embeddings=HashingEmbeddings(), settings=settings,
            tables=s.scope("keys"))

    return check_project(store, open_memory=memory).problems


def test_any_replica_serves_any_request_of_one_writer(
    chroma_server: ChromaServer, pg_url: str, tmp_path: Path, cliches: ClicheDB
) -> None:
    settings = chroma_server.settings(Settings(data_dir=tmp_path / "data", language="en",
                                               database_url=pg_url))
    apps = [_replica(settings, cliches) for _ in range(3)]
    with browser(apps[0]) as first:  # the page's Origin: the server's origin check
        user = first.post("/api/v1/auth/signup", json={"name": "mina", "password": PASSWORD})
        assert user.status_code == 201, user.text
        token = first.post("/api/v1/auth/tokens", json={"label": "script"}).json()["token"]
        for app in apps[1:]:  # the session the first replica started is every replica's
            with browser(app, cookies=dict(first.cookies)) as other:
                assert other.get("/api/v1/auth/me").json()["name"] == "mina"
    auth = {"Authorization": f"Bearer {token}"}
    clients = [TestClient(app, headers=auth) for app in apps]
    for client in clients:
        client.__enter__()
    pick = random.Random(29)
    try:
        def any_replica() -> TestClient:
            return clients[pick.randrange(len(clients))]

        assert any_replica().post("/api/v1/projects", json={
            "name": PROJECT, "keywords": "회귀, 복수", "language": "en"}).status_code == 201
        path = f"/api/v1/projects/{PROJECT}"
        assert any_replica().post(f"{path}/plot/generate").status_code == 200
        for _ in range(5):
            beat = any_replica().post(f"{path}/beats/next").json()
            again = any_replica().post(f"{path}/beats/next").json()  # another replica: the same
            assert (again["id"], again["version"]) == (beat["id"], beat["version"])
            edited = any_replica().put(f"{path}/beats/{beat['id']}", json={
                "version": beat["version"], "beat": {**beat["beat"], "location": "성문 앞"}})
            assert edited.status_code == 200, edited.text
            stale = any_replica().post(f"{path}/beats/{beat['id']}/accept",
                                       json={"version": beat["version"]})
            assert stale.status_code == 409  # an optimistic version is one for every replica
            done = any_replica().post(f"{path}/beats/{beat['id']}/accept",
                                      json={"version": edited.json()["version"]})
            assert done.status_code == 200 and done.json()["status"] == "accepted", done.text
            assert done.json()["beat"]["location"] == "성문 앞"
        listed = [c.get(f"{path}/beats").json() for c in clients]  # every replica sees it all
        assert listed[0] == listed[1] == listed[2]
        assert _accepted(settings, user.json()["id"]) == 5
        undone = any_replica().post(f"{path}/undo")  # the undo tree is the database's
        assert undone.status_code == 200, undone.text
        assert _accepted(settings, user.json()["id"]) == 4
    finally:
        for client in clients:
            client.__exit__(None, None, None)
    assert _check(settings, user.json()["id"]) == []


def test_two_replicas_accepting_at_once_serialise_on_the_database(
    chroma_server: ChromaServer, pg_url: str, tmp_path: Path, cliches: ClicheDB
) -> None:
    settings = chroma_server.settings(Settings(data_dir=tmp_path / "data", language="en",
                                               database_url=pg_url))
    apps = [_replica(settings, cliches) for _ in range(2)]
    with browser(apps[0]) as first:  # the page's Origin: the server's origin check
        user = first.post("/api/v1/auth/signup", json={"name": "jun", "password": PASSWORD})
        token = first.post("/api/v1/auth/tokens", json={"label": "s"}).json()["token"]
    clients = [TestClient(app, headers={"Authorization": f"Bearer {token}"}) for app in apps]
    for client in clients:
        client.__enter__()
    path = f"/api/v1/projects/{PROJECT}"
    try:
        clients[0].post("/api/v1/projects", json={"name": PROJECT, "keywords": "회귀",
                                                  "language": "en"})
        clients[1].post(f"{path}/plot/generate")
        for _ in range(4):
            beat = clients[0].post(f"{path}/beats/next").json()
            answers: list[int] = []

            def accept(client: TestClient, beat: dict[str, Any] = beat,
                       answers: list[int] = answers) -> None:
                answers.append(client.post(f"{path}/beats/{beat['id']}/accept",
                                           json={"version": beat["version"]}).status_code)

            both = [threading.Thread(target=accept, args=(c,)) for c in clients]
            for t in both:
                t.start()
            for t in both:
                t.join(120)
            # one accept lands; the other finds it stale (or already accepted), never twice
            assert sorted(answers)[0] == 200 and sorted(answers)[1] in (409, 422), answers
    finally:
        for client in clients:
            client.__exit__(None, None, None)
    assert _check(settings, user.json()["id"]) == []


@pytest.mark.parametrize("step", STEPS["accept"])
def test_a_process_killed_mid_accept_is_finished_by_the_next_one(
    chroma_server: ChromaServer, pg_url: str, tmp_path: Path, step: str
) -> None:
    """``aizac beat --accept`` SIGKILLed at each step of an accept, on the server database and
    the Chroma server; the next command (another process) repairs and goes on."""
    with OpenAIServer(KoreanStory()) as server:
        env = model_env(server, tmp_path / "data")
        env.update(AIZAC_DATABASE_URL=pg_url, AIZAC_CHROMA_HOST="127.0.0.1",
                   AIZAC_CHROMA_PORT=str(chroma_server.port), AIZAC_EMBEDDING="hash")

        def aizac(*args: str, kill: bool = False) -> subprocess.CompletedProcess[str]:
            run = {**env, **({KILL_ENV: step} if kill else {})}
            return subprocess.run([sys.executable, "-c", "from aizac.cli import main; main()",
                                   *args], capture_output=True, text=True, env=run,
                                  timeout=300, cwd=os.getcwd())

        for args in (["new", "셋", "--keywords", "회귀, 복수", "--lang", "ko"], ["plot"],
                     ["beat"], ["beat", "--accept"], ["beat"]):
            done = aizac(*args)
            assert done.returncode == 0, done.stderr
        killed = aizac("beat", "--accept", kill=True)
        assert killed.returncode == -9, killed.stderr  # the step was reached
        for args in (["beat"], ["beat", "--accept"]):  # where it stands, then accept it
            after = aizac(*args)
            assert after.returncode == 0, after.stderr
    db = server_database(pg_url)
    store = ProjectStore.open(tmp_path / "data" / "projects", "셋", catalog=Catalog(db))
    accepted = store.count_beats("accepted")
    assert accepted in (2, 3)  # the killed beat once (or not at all), then the next one
    settings = Settings(data_dir=tmp_path / "data", database_url=pg_url,
                        chroma_host="127.0.0.1", chroma_port=chroma_server.port)
    info = store.info()
    memory = open_server_memory(
        ChromaClients(settings), None, memory_dir=store.memory_dir, project=info.name,
        created_at=info.created_at, embeddings=HashingEmbeddings(), settings=settings,
        tables=store.scope("keys"))
    report = check_project(store, open_memory=lambda _: memory)
    assert report.problems == [] and report.turn == accepted
    assert not (tmp_path / "data" / "projects" / "셋" / "memory" / "aizac-commits.sqlite3").exists()
