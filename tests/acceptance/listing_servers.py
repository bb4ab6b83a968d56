"""Loopback servers that list models the way local model servers do, for the discovery tests.

- :class:`OllamaServer`: Ollama's ``GET /api/tags`` (``{"models": [{"name", "model", "size",
  "digest", "details"}]}``) and its OpenAI-compatible ``GET /v1/models``; ``POST
  /v1/chat/completions`` answers through an :class:`~acceptance.openai_server.OpenAIServer`
  responder, so the found model can also be used.
- :class:`SilentServer`: accepts a connection and answers only after ``delay`` seconds (a port
  that is slow or hung).
- :class:`KeyedServer`: an OpenAI-compatible server that wants a key (401 with an OpenAI error
  body, as Jan's does without one).
- :func:`closed_port`: a port nothing listens on.
"""

from __future__ import annotations

import socket
import time
from typing import Any

from acceptance.loopback import Handler, LoopbackServer, Seen


def tags(*names: str) -> dict[str, Any]:
    """An Ollama ``/api/tags`` body listing ``names``."""
    return {
        "models": [
            {
                "name": name,
                "model": name,
                "modified_at": "2025-05-01T10:00:00.000000000+09:00",
                "size": 4_683_087_332,
                "digest": "845dbda0ea48ed749caafd9e6037047aa19acfcfd82e704d7ca97d631a0b697e",
                "details": {"parent_model": "", "format": "gguf", "family": "qwen2",
                            "families": ["qwen2"], "parameter_size": "7.6B",
                            "quantization_level": "Q4_K_M"},
            }
            for name in names
        ]
    }


def model_list(*ids: str) -> dict[str, Any]:
    """An OpenAI-compatible ``/v1/models`` body listing ``ids``."""
    return {"object": "list",
            "data": [{"id": i, "object": "model", "created": 1715000000, "owned_by": "library"}
                     for i in ids]}


class OllamaServer(LoopbackServer):
    """Ollama's listings (and chat through an OpenAI-compatible ``chat`` server, if given)."""

    def __init__(self, *names: str, chat: Any = None) -> None:
        super().__init__()
        self.names = names
        self.chat = chat
        self.port = int(self.httpd.server_address[1])

    def handle(self, handler: Handler, seen: Seen) -> None:
        path = seen.path.split("?", 1)[0]
        if path == "/api/tags":
            handler.send_json(tags(*self.names))
        elif path == "/v1/models":
            handler.send_json(model_list(*self.names))
        elif self.chat is not None and path.startswith("/v1/"):
            self.chat.handle(handler, seen)
        else:
            handler.send_body(404, b"404 page not found", "text/plain")


class SilentServer(LoopbackServer):
    """Answers nothing for ``delay`` seconds (then a 404)."""

    def __init__(self, delay: float = 10.0) -> None:
        super().__init__()
        self.delay = delay
        self.port = int(self.httpd.server_address[1])

    def handle(self, handler: Handler, seen: Seen) -> None:
        time.sleep(self.delay)
        handler.send_body(404, b"", "text/plain")


class KeyedServer(LoopbackServer):
    """An OpenAI-compatible listing behind a key (401 without one)."""

    def __init__(self) -> None:
        super().__init__()
        self.port = int(self.httpd.server_address[1])

    def handle(self, handler: Handler, seen: Seen) -> None:
        error = {"message": "Invalid API key", "type": "invalid_request_error"}
        handler.send_json({"error": error}, 401)


def closed_port() -> int:
    """A loopback port that was free a moment ago (bound, then closed)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
