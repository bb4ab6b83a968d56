"""One persistent model loop per process (``aizac.llm.runtime``) against a real-wire server."""

from __future__ import annotations

import asyncio

import pytest
from acceptance.openai_server import OpenAIServer
from pydantic import BaseModel, ConfigDict

from aizac.errors import ModelError
from aizac.llm import runtime
from aizac.llm.errors import hint_for, is_transient, summarize
from aizac.llm.router import ModelRouter
from aizac.settings import Settings
from aizac.text import render


class Note(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str


def _router(server: OpenAIServer) -> ModelRouter:
    spec = f"openai-compatible:{server.base_url}:{server.model}"
    return ModelRouter(Settings(extractor_model=spec, transient_retries=0))


def test_five_consecutive_run_sync_calls_reuse_one_cached_client(
    openai_server: OpenAIServer,
) -> None:
    """With ``asyncio.run`` per call the second call fails: "Event loop is closed"."""
    router = _router(openai_server)
    for i in range(5):
        openai_server.script({"text": f"노트 {i}"})
        note = runtime.run_sync(router.astructured("extractor", Note, f"call {i}"))
        assert note.text == f"노트 {i}"
    assert len(openai_server.chat_requests) == 5
    # one keep-alive connection served all five: the pooled client stayed on one live loop
    assert len({seen.peer for seen in openai_server.chat_requests}) == 1


def test_concurrent_calls_in_one_run_sync(openai_server: OpenAIServer) -> None:
    router = _router(openai_server)

    async def both() -> list[Note]:
        calls = [router.astructured("extractor", Note, str(i)) for i in range(3)]
        return list(await asyncio.gather(*calls))

    for _ in range(2):
        assert len(runtime.run_sync(both())) == 3


def test_run_sync_works_inside_a_running_loop(openai_server: OpenAIServer) -> None:
    router = _router(openai_server)

    async def caller() -> str:  # e.g. a sync helper called from an async web handler
        return runtime.run_sync(router.astructured("extractor", Note, "x")).text

    assert asyncio.run(caller())
    assert runtime.run_sync(router.astructured("extractor", Note, "y")).text


def test_run_sync_on_the_model_loop_itself_is_refused() -> None:
    async def nested() -> None:
        async def inner() -> int:
            return 1

        runtime.run_sync(inner())

    with pytest.raises(RuntimeError, match="await the coroutine"):
        runtime.run_sync(nested())


def test_errors_come_back_to_the_caller() -> None:
    async def boom() -> None:
        raise ValueError("bad")

    with pytest.raises(ValueError, match="bad"):
        runtime.run_sync(boom())


def test_closed_loop_is_not_reported_as_an_unavailable_provider() -> None:
    import httpx
    import openai

    request = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")
    inner = RuntimeError("Event loop is closed")
    try:
        try:
            raise inner
        except RuntimeError as e:
            raise openai.APIConnectionError(request=request) from e
    except openai.APIConnectionError as wrapped:
        error: BaseException = wrapped
    for case in (inner, error):
        assert not is_transient(case)
        assert "unavailable" not in render(hint_for(case, "AIZAC_WRITER_MODEL"), "en")
        assert "run_sync" in render(hint_for(case, "AIZAC_WRITER_MODEL"), "en")
        assert "event loop" in render(summarize(case), "en").lower()
    assert isinstance(ModelError("x"), Exception)
