"""``aizac serve`` with AIZAC_CHROMA_HOST set, against a real ``chroma run``: the server's own
Studio factory gives every user a Chroma database of their own."""

from __future__ import annotations

from pathlib import Path

from argon2 import PasswordHasher
from pydantic import SecretStr

from aizac.server import ServerConfig, create_app
from aizac.server.accounts import AccountStore
from aizac.settings import Settings
from tests.server.conftest import browser

from .conftest import ChromaServer
from .test_studio_server import collections

PROJECT = "두번째 삶"
PASSWORD = "correct horse battery"


def test_serve_keeps_each_users_memories_in_their_own_database(
    chroma_server: ChromaServer, tmp_path: Path
) -> None:
    settings = chroma_server.settings(Settings(data_dir=tmp_path / "data", language="en"))
    accounts = AccountStore(settings.data_dir / "server" / "accounts.sqlite3",
                            hasher=PasswordHasher(time_cost=1, memory_cost=8, parallelism=1))
    app = create_app(settings, config=ServerConfig(secret_key=SecretStr("test-secret")),
                     accounts=accounts, ui=False)  # the default, shared Studio factory
    ids: dict[str, str] = {}
    clients = {name: browser(app) for name in ("alice", "bob")}  # a cookie jar each
    for name, client in clients.items():
        reply = client.post("/api/v1/auth/signup", json={"name": name, "password": PASSWORD})
        assert reply.status_code == 201, reply.text
        ids[name] = reply.json()["id"]
        reply = client.post("/api/v1/projects", json={"name": PROJECT, "keywords": "회귀, 복수"})
        assert reply.status_code == 201, reply.text

    box = app.state.aizac.sandboxes.cached(ids["alice"])
    memory = box.service.agent(PROJECT).memory  # as an accepted beat would write it
    secret = memory.remember("Mira hides the One Ring.", tag="Story", pinned=True)

    path = f"/api/v1/projects/{PROJECT}/memories"
    assert [m["id"] for m in clients["alice"].get(path).json()] == [secret]
    assert clients["bob"].get(path).json() == []
    refused = clients["bob"].post(f"{path}/pin", json={"ids": [secret], "pinned": False})
    assert refused.status_code == 404
    assert memory.get(secret).pinned

    alice_collections = collections(chroma_server, ids["alice"])
    bob_collections = collections(chroma_server, ids["bob"])
    assert len(alice_collections) == 1 and len(bob_collections) == 1
    assert alice_collections != bob_collections  # same project name, other creation time
    app.state.aizac.sandboxes.close()
