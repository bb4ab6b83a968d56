"""The loopback model server a bench talks to: the acceptance tests' OpenAI-compatible server
telling the Korean story, in a child process (its work is not the measured process's)."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_SERVE = (
    "import sys; sys.path[:0] = [{root!r}, {tests!r}]\n"
    "from acceptance.openai_server import OpenAIServer\n"
    "from acceptance.story import KoreanStory\n"
    "server = OpenAIServer(KoreanStory()).start()\n"
    "print(server.base_url, flush=True)\n"
    "sys.stdin.read()\n"
)


@contextlib.contextmanager
def story_server() -> Iterator[str]:
    """Start the server; yields its base URL; it stops when its stdin closes."""
    server = subprocess.Popen(
        [sys.executable, "-c", _SERVE.format(root=str(ROOT), tests=str(ROOT / "tests"))],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        assert server.stdout is not None
        yield server.stdout.readline().strip()
    finally:
        if server.stdin is not None:
            server.stdin.close()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
