"""The Models panel's store: role specs and API keys in the data directory (mode 0600), and a
connection test against a loopback server speaking the OpenAI chat-completions wire format."""

from __future__ import annotations

import json
import logging
import stat
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from aizac.errors import AizacError
from aizac.llm.model_config import ModelConfig
from aizac.llm.router import ModelRouter
from aizac.settings import Settings
from aizac.web.tab_models import with_stored

KEY = "sk-test-5f3a9c1e0b7d4e2a"


@pytest.fixture
def openai_server() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    seen: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            seen.append({"path": self.path, "auth": self.headers.get("Authorization"),
                         "body": body})
            reply = {
                "id": "chatcmpl-1", "object": "chat.completion", "created": 1,
                "model": body.get("model", "m"),
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": "OK"}}],
                "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6},
            }
            data = json.dumps(reply).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", seen
    finally:
        server.shutdown()
        server.server_close()


def test_keys_are_stored_owner_only_and_never_given_back(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    config = ModelConfig(tmp_path)
    config.set_key("openai", f"  {KEY} ")
    assert stat.S_IMODE(config.keys_path.stat().st_mode) == 0o600
    assert config.keys_set() == ["openai"]
    assert KEY not in caplog.text
    applied = with_stored(Settings(data_dir=tmp_path), config)
    assert applied.openai_api_key is not None
    assert applied.openai_api_key.get_secret_value() == KEY
    assert KEY not in repr(applied)
    with pytest.raises(AizacError, match="API key"):
        config.set_key("openai", "two words")
    with pytest.raises(AizacError):
        config.set_key("local", KEY)


def test_role_specs_are_checked_then_stored(tmp_path: Path) -> None:
    config = ModelConfig(tmp_path)
    assert config.set_spec("writer", " ollama:qwen2.5:7b ") == "ollama:qwen2.5:7b"
    assert stat.S_IMODE(config.models_path.stat().st_mode) == 0o600
    with pytest.raises(AizacError):
        config.set_spec("writer", "nonsense-provider:x")
    with pytest.raises(AizacError, match="role"):
        config.set_spec("poet", "local")
    assert config.specs() == {"writer": "ollama:qwen2.5:7b"}
    assert with_stored(Settings(data_dir=tmp_path), config).writer_model == "ollama:qwen2.5:7b"


def test_a_set_model_and_key_answer_the_connection_test(
    tmp_path: Path, openai_server: tuple[str, list[dict[str, Any]]]
) -> None:
    url, seen = openai_server
    settings = Settings(data_dir=tmp_path, transient_retries=0)
    router = ModelRouter(settings)
    config = ModelConfig(tmp_path)
    config.set_spec("writer", f"openai-compatible:{url}:tiny")
    config.set_key("openai-compatible", KEY)
    router.reconfigure(with_stored(router.settings, config))
    reply = router.model("writer").invoke("Reply with the word OK.")
    assert reply.text == "OK"
    assert seen[0]["path"].endswith("/chat/completions")
    assert seen[0]["auth"] == f"Bearer {KEY}" and seen[0]["body"]["model"] == "tiny"
    described = {s.role: s for s in router.describe()}
    assert described["writer"].provider == "openai-compatible"
