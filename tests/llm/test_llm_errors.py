"""Classifying provider failures by their SDK types, Retry-After, and hints kept through routing."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import httpx
import openai
import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.outputs import ChatGenerationChunk

from aizac.errors import ModelError
from aizac.llm import runtime
from aizac.llm.errors import hint_for, is_transient, retry_after, summarize
from aizac.llm.router import ModelRouter
from aizac.settings import Settings
from aizac.text import render

REQUEST = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")
CONTEXT_HINT = "Shorten the prompt or raise AIZAC_LOCAL_CONTEXT."


@pytest.mark.parametrize(
    ("error", "summary", "transient"),
    [
        (httpx.ReadTimeout("slow", request=REQUEST), "the request timed out", True),
        (openai.APITimeoutError(request=REQUEST), "the request timed out", True),
        (httpx.RemoteProtocolError("peer closed"), "could not connect to the server", True),
        (openai.APIConnectionError(request=REQUEST), "could not connect to the server", True),
        (ConnectionResetError("reset"), "could not connect to the server", True),
        (
            openai.APIResponseValidationError(httpx.Response(200, request=REQUEST), None),
            "the provider returned a malformed (non-JSON or unexpected) response",
            False,
        ),
        (ValueError("odd"), "ValueError: odd", False),
    ],
)
def test_errors_are_classified_by_their_sdk_types(
    error: BaseException, summary: str, transient: bool
) -> None:
    assert render(summarize(error), "en") == summary
    assert is_transient(error) is transient
    unavailable = "seems unavailable" in render(hint_for(error, "AIZAC_WRITER_MODEL"), "en")
    assert unavailable is transient  # only a transient failure blames the provider


def _status(headers: dict[str, str]) -> openai.RateLimitError:
    response = httpx.Response(429, headers=headers, request=REQUEST)
    return openai.RateLimitError("slow down", response=response, body=None)


def test_retry_after_in_seconds_milliseconds_and_as_a_date() -> None:
    assert retry_after(_status({"retry-after": "3"})) == 3.0
    assert retry_after(_status({"retry-after-ms": "250", "retry-after": "9"})) == 0.25
    later = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    told = retry_after(_status({"retry-after": later}))
    assert told is not None and 25 <= told <= 31
    assert retry_after(_status({})) is None
    assert retry_after(ValueError("no response")) is None


class _Refusing(FakeListChatModel):
    """A provider model that rejects an over-long prompt the way the local model does."""

    def _stream(self, *args: Any, **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        raise ModelError("The local model rejected the request: too long", hint=CONTEXT_HINT)
        yield  # pragma: no cover

    async def _astream(self, *args: Any, **kwargs: Any) -> AsyncIterator[ChatGenerationChunk]:
        raise ModelError("The local model rejected the request: too long", hint=CONTEXT_HINT)
        yield  # pragma: no cover


def test_a_streamed_over_long_prompt_keeps_the_providers_hint() -> None:
    router = ModelRouter(Settings(), models={"writer": _Refusing(responses=["x"])})
    with pytest.raises(ModelError) as info:
        list(router.stream("writer", "long"))
    assert info.value.hint == CONTEXT_HINT

    async def drain() -> None:
        _ = [p async for p in router.astream("writer", "long")]

    with pytest.raises(ModelError) as ainfo:
        runtime.run_sync(drain())
    assert ainfo.value.hint == CONTEXT_HINT
