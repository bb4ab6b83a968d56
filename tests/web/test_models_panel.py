"""The Models panel's store: role specs and API keys in the data directory (mode 0600), and a
connection test against a loopback server speaking the OpenAI chat-completions wire format."""

from __future__ import annotations

import json
import logging
import re
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


def _english_words(text: str) -> set[str]:
    """English words left in ``text`` once names that stay as they are (environment variables,
    URLs, model specs and files, provider names) are taken out."""
    import re

    text = re.sub(r"[A-Z][A-Z0-9_]+|\S+://\S+|\S+:\S+|\S+\.gguf|\([^)]*pip install[^)]*\)",
                  " ", text)
    return set(re.findall(r"[A-Za-z]{2,}", text)) - {"MB", "xllamacpp", "local"}


def test_the_models_tab_speaks_korean_why_column_and_connection_errors_included(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from aizac.web.labels import labels
    from aizac.web.runner import Ui
    from aizac.web.tab_models import role_rows

    for env in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(env, raising=False)
    settings = Settings(data_dir=tmp_path, planner_model="openai:gpt-4o",
                        writer_model="openai-compatible:http://127.0.0.1:9/v1:tiny",
                        extractor_model="anthropic:claude-sonnet-4-5",
                        reviewer_model="openai:gpt-4o", reviewer_fallback="local")
    router = ModelRouter(settings)
    L = labels("ko")
    rows = role_rows(router, L)
    assert [r[0] for r in rows] == ["기획", "집필", "추출", "검토", "그림"]
    for row in rows:
        assert row[3] in ("예", "아니오")
        assert _english_words(row[4]) == set(), row[4]  # the "why" column, in Korean
    assert "없음" in rows[0][4] and "서버" in rows[1][4]
    assert L["ui.m.test"] == "연결 시험" and L["ui.h.roles"].split("|")[-1] == "이유"
    with pytest.raises(AizacError) as failed:  # what "test connection" shows without a key
        router.model("planner").invoke("Reply with the word OK.")
    said = Ui(None, L, "ko").message(failed.value)  # type: ignore[arg-type]
    said = re.sub(r"\\(.)", r"\1", said)  # as rendered: the status is escaped Markdown
    assert "OPENAI_API_KEY" in said and _english_words(said) == set(), said
    english = role_rows(router, labels("en"))
    assert english[0][4] == "OPENAI_API_KEY is not set"


def test_test_connection_shows_the_models_reply_literally() -> None:
    from aizac.web.labels import labels
    from aizac.web.tab_models import answered
    from tests.web.markdown_kit import HEADING, MARKUP, assert_literal, tags_of

    said = answered(labels("ko"), "기획", 1.25, f"{MARKUP}\n{HEADING}")
    assert_literal(said, f"기획 모델이 1.2초 만에 답했습니다: “{MARKUP} {HEADING}”")
    assert tags_of(said) == ["p"], said
