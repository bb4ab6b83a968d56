"""``aizac serve`` against a real ``chroma run`` that stops answering (SIGSTOP) and comes back
(SIGCONT): every request ends within its time limit, reported as the memory server being down
(503); a project create that failed leaves no project; an accept that failed stays not
accepted after the server comes back; a deleted project's collection and a deleted user's
database go from the server."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from argon2 import PasswordHasher
from fastapi import FastAPI
from pydantic import SecretStr

from aizac.cliches import ClicheDB
from aizac.llm.embeddings import HashingEmbeddings
from aizac.memory.chroma_client import ChromaClients
from aizac.server import ServerConfig, create_app
from aizac.server.accounts import AccountStore
from aizac.settings import Settings
from aizac.writer.service import Studio
from tests.fakes import ScriptedChatModel
from tests.server.conftest import PASSWORD, browser, signup, write_one_beat

from .conftest import ChromaServer, chroma_command, start_chroma
from .test_studio_server import collections

pytestmark = pytest.mark.timeout(900)
LIMIT_S = 2.0  # AIZAC_CHROMA_TIMEOUT_S in these tests
ROLES = ("planner", "writer", "extractor", "reviewer")


@pytest.fixture
def own_chroma(tmp_path: Path) -> Iterator[ChromaServer]:
    """A Chroma server of this test's own (it is stopped and resumed)."""
    server = start_chroma(tmp_path / "chroma", tmp_path / "chroma.log")
    try:
        yield server
    finally:
        os.kill(server.server_pid(), signal.SIGCONT)
        server.stop()


def _app(chroma: ChromaServer, tmp_path: Path) -> tuple[FastAPI, Settings]:
    settings = chroma.settings(Settings(data_dir=tmp_path / "data", language="en",
                                        structured_retries=1, transient_retries=0,
                                        chroma_timeout_s=LIMIT_S))
    clients = ChromaClients(settings)
    cliches = ClicheDB(embeddings=HashingEmbeddings())

    def factory(user_settings: Settings, user_id: str) -> Studio:
        return Studio(user_settings, models=dict.fromkeys(ROLES, ScriptedChatModel()),
                      embeddings=HashingEmbeddings(), cliches=cliches, beats_per_episode=3,
                      chroma_namespace=user_id, chroma_clients=clients, owner_wait=0.5)

    accounts = AccountStore(settings.data_dir / "server" / "accounts.sqlite3",
                            hasher=PasswordHasher(time_cost=1, memory_cost=8, parallelism=1))
    app = create_app(settings, config=ServerConfig(secret_key=SecretStr("t"),
                                                   generation_wait_s=5),
                     studio_factory=factory, accounts=accounts, ui=False)
    return app, settings


def _timed(call: Callable[[], Any]) -> tuple[float, Any]:
    start = time.monotonic()
    reply = call()
    return time.monotonic() - start, reply


def test_a_hung_memory_server_ends_every_request_within_its_limit(
        own_chroma: ChromaServer, tmp_path: Path) -> None:
    app, _ = _app(own_chroma, tmp_path)
    users = {name: browser(app) for name in ("mina", "jun", "kim", "lee")}
    for name, c in users.items():
        c.__enter__()
        signup(c, name)
    draft = write_one_beat(users["mina"], "novel", accept=False)
    write_one_beat(users["jun"], "novel")
    users["kim"].post("/api/v1/projects", json={"name": "novel", "keywords": "ring"})

    os.kill(own_chroma.server_pid(), signal.SIGSTOP)
    asks: dict[str, Callable[[], Any]] = {
        "mina accept": lambda: users["mina"].post(
            f"/api/v1/projects/novel/beats/{draft['id']}/accept",
            json={"version": draft["version"]}),
        "jun memories": lambda: users["jun"].get("/api/v1/projects/novel/memories"),
        "jun next beat": lambda: users["jun"].post("/api/v1/projects/novel/beats/next"),
        "kim plot": lambda: users["kim"].post("/api/v1/projects/novel/plot/generate"),
        "lee create": lambda: users["lee"].post("/api/v1/projects", json={
            "name": "fresh", "keywords": "sea"}),
        "lee second create": lambda: users["lee"].post("/api/v1/projects", json={
            "name": "fresh2", "keywords": "sea"}),
    }
    results: dict[str, tuple[float, Any]] = {}
    threads = [threading.Thread(target=lambda k=k, f=f: results.__setitem__(k, _timed(f)))
               for k, f in asks.items()]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    took = time.monotonic() - started
    print("\n| request | seconds | status | code |\n|---|---|---|---|")
    for label, (seconds, reply) in results.items():
        print(f"| {label} | {seconds:.1f} | {reply.status_code} | {reply.json().get('code')} |")
    assert len(results) == len(asks), "a request never ended"
    for label, (seconds, reply) in results.items():
        assert reply.status_code == 503, (label, reply.status_code, reply.text)
        assert reply.json()["code"] == "error.server.memory_down", label
        assert seconds < 4 * LIMIT_S + 6, (label, seconds)
    assert took < 4 * LIMIT_S + 10
    assert users["lee"].get("/api/v1/projects").json() == []  # no half-made project
    assert users["mina"].get("/healthz").status_code == 200
    assert users["mina"].get("/readyz").status_code == 503

    os.kill(own_chroma.server_pid(), signal.SIGCONT)
    time.sleep(1.0)  # the stopped server applies what was waiting in its socket
    beats = users["mina"].get("/api/v1/projects/novel/beats").json()
    assert beats["draft"]["id"] == draft["id"]  # still not accepted
    assert all(b["status"] == "draft" for b in beats["beats"])
    # The next write takes back whatever of the failed accept reached the server late.
    accepted = users["mina"].post(f"/api/v1/projects/novel/beats/{draft['id']}/accept",
                                  json={"version": beats["draft"]["version"]})
    assert accepted.status_code == 200, accepted.text
    accepted_ids = set(accepted.json().get("memory_ids", []) or [])
    again = users["mina"].get("/api/v1/projects/novel/memories").json()
    assert len(again) == len({m["id"] for m in again})  # no memory twice
    box = app.state.aizac.sandboxes.cached(users["mina"].get("/api/v1/auth/me").json()["id"])
    steps = [s.kind for s in box.service.agent("novel").store.steps(limit=10)]
    if "accept-failed" in steps:  # the failure came after the accept was logged
        assert steps.index("accept-undone") < steps.index("accept-failed"), steps
    assert accepted_ids <= {m["id"] for m in again}
    assert users["lee"].post("/api/v1/projects", json={"name": "fresh", "keywords": "sea"}
                             ).status_code == 201
    for c in users.values():
        c.__exit__(None, None, None)
    app.state.aizac.sandboxes.close()


def test_deleting_removes_the_memory_from_the_server(own_chroma: ChromaServer,
                                                   tmp_path: Path) -> None:
    app, _ = _app(own_chroma, tmp_path)
    app.state.aizac.accounts.add_user("boss", PASSWORD, role="admin")
    with browser(app) as admin, browser(app) as mina:
        admin.post("/api/v1/auth/login", json={"name": "boss", "password": PASSWORD})
        mina_id = signup(mina, "mina")
        write_one_beat(mina, "one")
        write_one_beat(mina, "two")
        assert len(collections(own_chroma, mina_id)) == 2
        assert mina.delete("/api/v1/projects/one").status_code == 204
        assert len(collections(own_chroma, mina_id)) == 1
        assert admin.delete(f"/api/v1/admin/users/{mina_id}").status_code == 204
        with pytest.raises(Exception, match=r"(?i)not found|does not exist"):
            collections(own_chroma, mina_id)
    app.state.aizac.sandboxes.close()


def test_the_chroma_command_is_found_without_path() -> None:
    """The Test command's own venv puts ``chroma`` in its ``bin``, not on PATH: the fixture
    still finds it (so the Chroma-server tests never skip)."""
    command = chroma_command()
    done = subprocess.run([*command, "--help"], env={**os.environ, "PATH": "/nonexistent"},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "run" in done.stdout, done.stderr[-500:]
    assert command[0] == str(Path(sys.executable).with_name("chroma")) or (
        command[0] == sys.executable)


SERVE_CHILD = """
import sys, types, uvicorn
tests = types.ModuleType("tests"); tests.__path__ = [{root!r} + "/tests"]
sys.modules["tests"] = tests
from pathlib import Path
from argon2 import PasswordHasher
from pydantic import SecretStr
from aizac.cliches import ClicheDB
from aizac.llm.embeddings import HashingEmbeddings
from aizac.memory.chroma_client import ChromaClients
from aizac.server import ServerConfig, create_app
from aizac.server.accounts import AccountStore
from aizac.settings import Settings
from aizac.writer.service import Studio
from tests.fakes import ScriptedChatModel

data = Path({data!r})
settings = Settings(data_dir=data, language="en", structured_retries=1, transient_retries=0,
                    chroma_host="127.0.0.1", chroma_port={chroma_port}, chroma_timeout_s={limit})
clients = ChromaClients(settings)
cliches = ClicheDB(embeddings=HashingEmbeddings())

def factory(user_settings, user_id):
    return Studio(user_settings, models=dict.fromkeys(
        ("planner", "writer", "extractor", "reviewer"), ScriptedChatModel()),
        embeddings=HashingEmbeddings(), cliches=cliches, beats_per_episode=3,
        chroma_namespace=user_id, chroma_clients=clients, owner_wait=0.5)

accounts = AccountStore(data / "server" / "accounts.sqlite3",
                        hasher=PasswordHasher(time_cost=1, memory_cost=8, parallelism=1))
config = ServerConfig(secret_key=SecretStr("t"), shutdown_timeout_s={grace})
app = create_app(settings, config=config, studio_factory=factory, accounts=accounts, ui=False)
# as `aizac serve` runs it
uvicorn.run(app, host="127.0.0.1", port={port}, log_level="warning",
            timeout_graceful_shutdown=int(config.shutdown_timeout_s))
"""


def test_sigterm_while_the_memory_server_hangs_stops_in_bounded_time(
        own_chroma: ChromaServer, tmp_path: Path) -> None:
    """The issue: SIGTERM waited until Chroma resumed. A real child server, its memory server
    SIGSTOPped with requests waiting on it: the child exits within the Chroma limit plus its
    grace period, the memory server still stopped, and the waiting requests were answered."""
    import httpx

    from tests.web.browser_kit import free_port

    root = Path(__file__).resolve().parents[2]
    port, grace = free_port(), 15  # the shipped shutdown_timeout_s
    script = tmp_path / "child.py"
    script.write_text(SERVE_CHILD.format(
        root=str(root), data=str(tmp_path / "d"), chroma_port=own_chroma.port, limit=LIMIT_S,
        grace=grace, port=port), encoding="utf-8")
    child = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT,
                             env={**os.environ, "PYTHONPATH": str(root)})
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert child.poll() is None and time.monotonic() < deadline, "the child did not start"
            time.sleep(0.3)
        with httpx.Client(base_url=base, headers={"Origin": base}, timeout=120) as c:
            assert c.post("/api/v1/auth/signup", json={
                "name": "mina", "password": PASSWORD}).status_code == 201
            assert c.post("/api/v1/projects", json={
                "name": "novel", "keywords": "ring", "language": "en"}).status_code == 201
            assert c.post("/api/v1/projects/novel/plot/generate").status_code == 200
            beat = c.post("/api/v1/projects/novel/beats/next").json()
            cookie = c.cookies["aizac_session"]

        os.kill(own_chroma.server_pid(), signal.SIGSTOP)
        replies: list[int] = []

        def ask(method: str, url: str, **kw: Any) -> None:
            try:
                with httpx.Client(base_url=base, headers={"Origin": base}, timeout=120,
                                  cookies={"aizac_session": cookie}) as c:
                    replies.append(c.request(method, url, **kw).status_code)
            except httpx.TransportError:
                replies.append(0)  # cut off: counted, and fails the assertion below

        waiting = [
            threading.Thread(target=ask, args=("POST", f"/api/v1/projects/novel/beats/"
                                               f"{beat['id']}/accept"),
                             kwargs={"json": {"version": beat["version"]}}),
            threading.Thread(target=ask, args=("GET", "/api/v1/projects/novel/memories")),
        ]
        for thread in waiting:
            thread.start()
        time.sleep(0.5)  # both are inside a Chroma call now
        child.send_signal(signal.SIGTERM)
        stopped = time.monotonic()
        child.wait(timeout=4 * LIMIT_S + grace + 30)
        took = time.monotonic() - stopped
        for thread in waiting:
            thread.join(30)
        assert took < 4 * LIMIT_S + grace + 5, took
        assert Path(f"/proc/{own_chroma.server_pid()}/status").read_text().count(
            "(stopped)") == 1  # still hung: the child did not wait for it
        assert sorted(replies) == [503, 503], replies
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(timeout=30)
