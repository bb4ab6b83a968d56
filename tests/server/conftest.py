"""Server fixtures: the real app (accounts, sandboxes, real Studios over SQLite and embedded
Chroma) with scripted models per user, through Starlette's TestClient."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from argon2 import PasswordHasher
from fastapi import FastAPI
from fastapi.testclient import TestClient
from pydantic import SecretStr

from aizac.cliches import ClicheDB
from aizac.llm.embeddings import HashingEmbeddings
from aizac.server import ServerConfig, create_app
from aizac.server.accounts import AccountStore
from aizac.settings import Settings
from aizac.writer.service import Studio
from tests.fakes import ScriptedChatModel

ROLES = ("planner", "writer", "extractor", "reviewer")
PASSWORD = "correct horse battery"
ORIGIN = "http://testserver"
"""What a browser on the server's own page sends with every state-changing request."""


def browser(app: FastAPI, **options: object) -> TestClient:
    """A client that behaves like the server's own page in a browser: a cookie jar of its
    own, and the page's ``Origin`` on every request (the server's origin check)."""
    base = str(options.get("base_url", "http://testserver"))
    headers = {"Origin": base.rstrip("/"), **dict(options.pop("headers", {}) or {})}  # type: ignore[call-overload]
    return TestClient(app, headers=headers, **options)  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def cliche_db() -> ClicheDB:
    return ClicheDB(embeddings=HashingEmbeddings())


class Models:
    """One scripted model per user id (so a test can slow one user's model down)."""

    def __init__(self) -> None:
        self.by_user: dict[str, ScriptedChatModel] = {}

    def of(self, user_id: str) -> ScriptedChatModel:
        return self.by_user.setdefault(user_id, ScriptedChatModel())


@pytest.fixture
def models() -> Models:
    return Models()


@pytest.fixture
def server_settings(tmp_path: Path, database_url: str | None) -> Settings:
    """The server's settings on the test's engine: embedded files, or every user's projects on
    a fresh PostgreSQL database (AIZAC_DATABASE_URL)."""
    return Settings(data_dir=tmp_path / "data", language="en", structured_retries=1,
                    transient_retries=0, database_url=database_url)


def fast_accounts(settings: Settings) -> AccountStore:
    # A cheap argon2 profile: the tests check behaviour, not the hash's cost.
    return AccountStore.open(settings,
                             hasher=PasswordHasher(time_cost=1, memory_cost=8, parallelism=1))


@pytest.fixture
def make_app(
    server_settings: Settings, models: Models, cliche_db: ClicheDB
) -> Callable[..., FastAPI]:
    def factory(user_settings: Settings, user_id: str) -> Studio:
        return Studio(user_settings, models=dict.fromkeys(ROLES, models.of(user_id)),
                      embeddings=HashingEmbeddings(), cliches=cliche_db, beats_per_episode=3,
                      owner_wait=0.5)

    def make(ui: bool = False, **config: object) -> FastAPI:
        options: dict[str, object] = {"secret_key": SecretStr("test-secret"), **config}
        return create_app(server_settings, config=ServerConfig(**options),  # type: ignore[arg-type]
                          studio_factory=factory, accounts=fast_accounts(server_settings),
                          ui=ui)

    return make


@pytest.fixture
def app(make_app: Callable[..., FastAPI]) -> FastAPI:
    return make_app()


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    with browser(app) as c:
        yield c


def signup(client: TestClient, name: str, password: str = PASSWORD) -> str:
    reply = client.post("/api/v1/auth/signup", json={"name": name, "password": password})
    assert reply.status_code == 201, reply.text
    return str(reply.json()["id"])


def new_client(app: FastAPI, name: str) -> TestClient:
    """A fresh browser-like client signed up as ``name`` (its own cookie jar)."""
    c = browser(app)
    c.__enter__()
    signup(c, name)
    return c


def write_one_beat(c: TestClient, project: str, *, accept: bool = True) -> dict[str, object]:
    """Create ``project`` (if needed), plan, design and (optionally) accept one beat."""
    if c.get(f"/api/v1/projects/{project}").status_code == 404:
        assert c.post("/api/v1/projects", json={"name": project, "keywords": "regression, revenge",
                                                "language": "en"}).status_code == 201
    assert c.post(f"/api/v1/projects/{project}/plot/generate").status_code == 200
    beat = c.post(f"/api/v1/projects/{project}/beats/next").json()
    if accept:
        beat = c.post(f"/api/v1/projects/{project}/beats/{beat['id']}/accept",
                      json={"version": beat["version"]}).json()
    return dict(beat)


@contextlib.contextmanager
def live(app: FastAPI) -> Iterator[str]:
    """``app`` under uvicorn on a free loopback port, in a thread (stopped afterwards): real
    streaming, real concurrency (the TestClient runs a request to its end before it answers)."""
    import uvicorn

    from tests.web.browser_kit import free_port

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True, name="aizac-test-server")
    thread.start()
    deadline = time.monotonic() + 120
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(60)
