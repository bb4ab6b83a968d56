"""The embedded local model (SmolLM2 via llama.cpp in xllamacpp) and the offline guarantee."""

from __future__ import annotations

import contextlib
import importlib.util
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import pytest
import pytest_socket
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from aizac.errors import ConfigError, IncompleteReplyError
from aizac.llm.embeddings import HashingEmbeddings
from aizac.llm.providers.local import (
    local_status,
    resolve_model_path,
    to_llama_messages,
    usage_from_llama,
)
from aizac.llm.router import ModelRouter
from aizac.settings import Settings
from aizac.text import render

HAVE_LLAMA = importlib.util.find_spec("xllamacpp") is not None
needs_llama = pytest.mark.skipif(
    not HAVE_LLAMA, reason="xllamacpp is not installed (pip install -e \".[local]\")"
)

Short = Annotated[str, StringConstraints(max_length=24)]


class Character(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: Short
    role: Short
    traits: list[Short] = Field(max_length=3)


# --------------------------------------------------------------------------- pure parts
def test_message_conversion() -> None:
    messages = [SystemMessage("sys"), HumanMessage("hi"), AIMessage("hello")]
    assert to_llama_messages(messages) == [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"},
    ]
    usage = usage_from_llama({"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7})
    assert usage == {"input_tokens": 3, "output_tokens": 4, "total_tokens": 7}
    assert usage_from_llama(None) is None


def test_configured_model_path_must_exist(tmp_path: Path) -> None:
    settings = Settings(local_model_path=tmp_path / "missing.gguf")
    with pytest.raises(ConfigError, match="AIZAC_LOCAL_MODEL_PATH"):
        resolve_model_path(settings)
    usable, reason = local_status(settings)
    said = render(reason, "en")
    assert not usable and ("missing.gguf" in said or "xllamacpp" in said)


# --------------------------------------------------------------------------- offline guarantee
@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Block every socket (pytest-socket) and record each blocked attempt, including attempts
    that library code catches and swallows (telemetry, update checks)."""
    attempts: list[str] = []
    original = pytest_socket.SocketBlockedError.__init__

    def record(self: Exception, *args: Any, **kwargs: Any) -> None:
        attempts.append(" ".join(map(str, args)))
        original(self, *args, **kwargs)

    monkeypatch.setattr(pytest_socket.SocketBlockedError, "__init__", record)
    pytest_socket.disable_socket(allow_unix_socket=True)
    try:
        yield attempts
    finally:
        pytest_socket.enable_socket()


def test_default_configuration_opens_no_network_connection(no_network: list[str]) -> None:
    settings = Settings()
    router = ModelRouter(settings)
    statuses = router.describe()
    assert [s.spec for s in statuses] == [*["local"] * 4, "typographic"]  # image: offline
    vectors = HashingEmbeddings().embed_documents(["기억", "memory", "记忆"])
    assert len(vectors) == 3
    if HAVE_LLAMA:
        try:
            reply = router.model("extractor").invoke("Say hi.", max_tokens=8)
            assert isinstance(reply.text, str)
        except IncompleteReplyError as e:  # 8 tokens may cut the reply: the model still ran
            assert e.reason == "length"
        assert router.usage.records[0].model == "local"
    assert no_network == []


@pytest.mark.filterwarnings("ignore:A test tried to use socket")
def test_a_swallowed_connection_attempt_is_still_noticed(no_network: list[str]) -> None:
    with contextlib.suppress(Exception):
        socket.create_connection(("example.com", 80), timeout=0.1)
    assert no_network  # recorded although the error never reached the test


# --------------------------------------------------------------------------- the real model
@pytest.fixture(scope="module")
def local_router() -> ModelRouter:
    return ModelRouter(Settings(local_max_tokens=160))


@pytest.mark.local_model
@needs_llama
def test_local_structured_output_is_schema_constrained(
    local_router: ModelRouter, no_network: list[str]
) -> None:
    hero = local_router.structured(
        "planner",
        Character,
        "Invent the main character of a fantasy web novel.",
    )
    assert isinstance(hero, Character)
    assert len(hero.traits) <= 3 and all(len(t) <= 24 for t in hero.traits)
    record = local_router.usage.records[-1]
    assert record.role == "planner" and record.model == "local" and not record.estimated
    assert record.prompt_tokens > 0 and record.completion_tokens > 0
    assert no_network == []


@pytest.mark.local_model
@needs_llama
def test_local_streaming_yields_many_pieces(local_router: ModelRouter) -> None:
    pieces = list(
        local_router.stream("writer", "Write two sentences about a dragon who loves tea.")
    )
    assert len(pieces) > 5
    assert "".join(pieces).strip()
    record = local_router.usage.records[-1]
    assert record.role == "writer" and record.completion_tokens >= len(pieces) - 1


@pytest.mark.local_model
@needs_llama
def test_local_async_structured(local_router: ModelRouter) -> None:
    import asyncio

    hero = asyncio.run(local_router.astructured("extractor", Character, "Name a villain."))
    assert isinstance(hero, Character)


@pytest.mark.local_model
@needs_llama
def test_cli_ask_model_streams_offline(no_network: list[str]) -> None:
    import typer
    from typer.testing import CliRunner

    from aizac.cli import models as models_cli

    app = typer.Typer()
    app.callback()(lambda: None)
    models_cli.register(app)
    result = CliRunner().invoke(app, ["ask-model", "planner", "Give a title for a web novel."])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip()
    assert "[planner · local ·" in result.stderr
    assert no_network == []
