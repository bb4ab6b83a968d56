"""A real Chroma server on loopback (``chroma run``, started once per session, bounded in time,
stopped), and the memory fixtures of ``tests/memory`` re-pointed at it."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from aizac.llm.embeddings import HashingEmbeddings
from aizac.memory import WriterMemory
from aizac.memory.chroma_client import ChromaClients
from aizac.memory.store import open_server_memory
from aizac.settings import Settings
from tests.memory.conftest import settings

__all__ = ["settings"]

LIFETIME = 1800  # seconds: the server dies with its `timeout` even if pytest is killed
START_WAIT = 90.0  # seconds for the heartbeat on a busy 2-core machine


@dataclass
class ChromaServer:
    """A running ``chroma run`` on 127.0.0.1."""

    port: int
    path: Path
    process: subprocess.Popen[bytes]

    def settings(self, base: Settings | None = None, **overrides: object) -> Settings:
        """``base`` (or default settings) pointed at this server."""
        update = {"chroma_host": "127.0.0.1", "chroma_port": self.port, **overrides}
        return (base or Settings()).model_copy(update=update)

    def server_pid(self) -> int:
        """The ``chroma`` process itself (``timeout`` is its parent)."""
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        found = children.read_text().split() if children.exists() else []
        return int(found[0]) if found else self.process.pid

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()  # `timeout` passes SIGTERM on to chroma
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def chroma_command() -> list[str]:
    """How to run Chroma's own CLI: the ``chroma`` script installed beside this Python (a venv's
    ``bin``, which need not be on PATH), else the one on PATH, else its module."""
    beside = Path(sys.executable).with_name("chroma")
    if beside.is_file():
        return [str(beside)]
    found = shutil.which("chroma")
    if found is not None:
        return [found]
    return [sys.executable, "-c", "import sys; from chromadb.cli.cli import app; "
            "sys.argv[0] = 'chroma'; app()"]


def start_chroma(path: Path, log: Path) -> ChromaServer:
    """Start ``chroma run`` on a free loopback port and wait for its heartbeat."""
    port = free_port()
    command = ["timeout", str(LIFETIME), *chroma_command(), "run", "--host", "127.0.0.1",
               "--port", str(port), "--path", str(path)]  # fmt: skip
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    server = ChromaServer(port, path, process)
    deadline = time.monotonic() + START_WAIT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"chroma run exited: {log.read_text(errors='replace')[-2000:]}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/v2/heartbeat", timeout=2).is_success:
                return server
        except httpx.TransportError:
            pass
        time.sleep(0.3)
    server.stop()
    raise RuntimeError(f"chroma run did not answer within {START_WAIT:.0f} s")


@pytest.fixture(scope="session")
def chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChromaServer]:
    root = tmp_path_factory.mktemp("chroma-server")
    server = start_chroma(root / "data", root / "chroma.log")
    yield server
    server.stop()


@pytest.fixture
def server_settings(chroma_server: ChromaServer, settings: Settings) -> Settings:
    return chroma_server.settings(settings)


@pytest.fixture
def mem(server_settings: Settings, tmp_path: Path) -> Iterator[WriterMemory]:
    """tests/memory's ``mem``, on the Chroma server: a namespace of its own per test, the key
    index and journal in the test's folder."""
    clients = ChromaClients(server_settings)
    namespace = f"test-{uuid.uuid4().hex[:12]}"
    memory = open_server_memory(
        clients, namespace, memory_dir=tmp_path / "memory", project="novel", created_at=0.0,
        embeddings=HashingEmbeddings(), settings=server_settings,
    )
    assert type(memory.client).__name__ == "Client" and memory.rows.index is not None
    yield memory
    memory.close()
    clients.drop_namespace(namespace)
