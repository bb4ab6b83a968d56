"""SIGTERM while a prose stream runs: the server (a child process under uvicorn, a real
signal) ends the stream with an ``error`` event the client can read, then exits in time."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import httpx
import pytest

import aizac
from tests.server.conftest import PASSWORD
from tests.web.browser_kit import free_port

pytestmark = pytest.mark.timeout(600)
ROOT = Path(aizac.__file__).resolve().parents[1]
CHILD = """
import sys, types, uvicorn
tests = types.ModuleType("tests"); tests.__path__ = [{root!r} + "/tests"]
sys.modules["tests"] = tests
from pathlib import Path
from argon2 import PasswordHasher
from pydantic import SecretStr
from aizac.cliches import ClicheDB
from aizac.llm.embeddings import HashingEmbeddings
from aizac.server import ServerConfig, create_app
from aizac.server.accounts import AccountStore
from aizac.settings import Settings
from aizac.writer.service import Studio
from tests.fakes import ScriptedChatModel

data = Path({data!r})
settings = Settings(data_dir=data, language="en", structured_retries=1, transient_retries=0)
cliches = ClicheDB(embeddings=HashingEmbeddings())
model = ScriptedChatModel()
model.slow(0.4)  # streamed replies (the prose) one word at a time

def factory(user_settings, user_id):
    return Studio(user_settings, models=dict.fromkeys(
        ("planner", "writer", "extractor", "reviewer"), model), embeddings=HashingEmbeddings(),
        cliches=cliches, beats_per_episode=3)

accounts = AccountStore(data / "server" / "accounts.sqlite3",
                        hasher=PasswordHasher(time_cost=1, memory_cost=8, parallelism=1))
app = create_app(settings, config=ServerConfig(secret_key=SecretStr("t")),
                 studio_factory=factory, accounts=accounts, ui=False)
uvicorn.run(app, host="127.0.0.1", port={port}, log_level="warning",
            timeout_graceful_shutdown=10)
"""


def _events(lines: list[str]) -> list[tuple[str, dict[str, object]]]:
    out, kind = [], ""
    for line in lines:
        if line.startswith("event:"):
            kind = line[6:].strip()
        elif line.startswith("data:") and kind:
            out.append((kind, json.loads(line[5:])))
            kind = ""
    return out


def test_sigterm_during_a_prose_stream_ends_it_with_an_error_event(tmp_path: Path) -> None:
    port = free_port()
    script = tmp_path / "child.py"
    script.write_text(textwrap.dedent(CHILD).format(root=str(ROOT), data=str(tmp_path / "d"),
                                                     port=port), encoding="utf-8")
    child = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, env={**os.environ,
                                                            "PYTHONPATH": str(ROOT)})
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
            c.post("/api/v1/auth/signup", json={"name": "mina", "password": PASSWORD})
            c.post("/api/v1/projects", json={"name": "novel", "keywords": "ring"})
            assert c.post("/api/v1/projects/novel/plot/generate").status_code == 200
            beat = c.post("/api/v1/projects/novel/beats/next").json()
            accepted = c.post(f"/api/v1/projects/novel/beats/{beat['id']}/accept",
                              json={"version": beat["version"]})
            assert accepted.status_code == 200, accepted.text
            lines: list[str] = []
            chunked = threading.Event()

            def read() -> None:
                with c.stream("POST", f"/api/v1/projects/novel/beats/{beat['id']}/prose") as r:
                    for line in r.iter_lines():
                        lines.append(line)
                        if line.startswith("event: chunk"):
                            chunked.set()

            reader = threading.Thread(target=read, daemon=True)
            reader.start()
            assert chunked.wait(120), lines
            child.send_signal(signal.SIGTERM)
            stopped = time.monotonic()
            reader.join(30)
            assert not reader.is_alive(), "the stream never ended"
            child.wait(timeout=30)
            assert time.monotonic() - stopped < 20
        events = _events(lines)
        kinds = [k for k, _ in events]
        assert kinds[0] == "run" and "chunk" in kinds and kinds[-1] == "error", kinds
        said = events[-1][1]
        assert said["code"] == "error.server.shutting_down" and said["message"], said
        assert "done" not in kinds
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(timeout=30)
