"""Replies carry their end, one retry policy: the routed model against a real-wire server."""

from __future__ import annotations

import pytest
from acceptance.openai_server import (
    ChatReply,
    OpenAIServer,
    cut,
    rate_limited,
    truncated,
    unavailable,
)
from langchain_core.messages import HumanMessage

from aizac.errors import IncompleteReplyError, ModelError
from aizac.llm import runtime
from aizac.llm.router import ModelRouter
from aizac.settings import Settings

TEXT = "비가 내리는 밤, 진도준은 회귀한 첫날의 기억을 더듬었다. The rain kept falling."


def _router(server: OpenAIServer, delays: list[float], **extra: object) -> ModelRouter:
    spec = f"openai-compatible:{server.base_url}:{server.model}"
    settings = Settings(writer_model=spec, transient_retries=2, **extra)  # type: ignore[arg-type]
    return ModelRouter(settings, backoff_base=0.01, sleep=delays.append)


def _drain(router: ModelRouter) -> str:
    return "".join(router.stream("writer", "write"))


def test_finish_reason_is_kept_through_the_routed_model(openai_server: OpenAIServer) -> None:
    openai_server.script(TEXT, TEXT)
    model = _router(openai_server, []).model("writer")
    reply = model.invoke("x")
    assert reply.response_metadata["finish_reason"] == "stop"
    assert reply.response_metadata["aizac_model"].startswith("openai-compatible:")
    finishes = [c.response_metadata.get("finish_reason") for c in model.stream("x")]
    assert finishes.count("stop") == 1


def test_generation_info_carries_the_finish_reason(openai_server: OpenAIServer) -> None:
    openai_server.script(TEXT)
    model = _router(openai_server, []).model("writer")
    result = model.generate([[HumanMessage(content="x")]])
    assert result.generations[0][0].generation_info == {"finish_reason": "stop"}


def test_cut_stream_after_first_token_is_an_error_and_not_retried(
    openai_server: OpenAIServer,
) -> None:
    openai_server.script(TEXT)
    openai_server.fault(cut(after=2))
    delays: list[float] = []
    router = _router(openai_server, delays)
    pieces: list[str] = []
    with pytest.raises(IncompleteReplyError, match="stopped before its end") as info:
        for piece in router.stream("writer", "write"):
            pieces.append(piece)
    assert info.value.reason == "cut" and info.value.started
    assert "".join(pieces) == TEXT[:16]
    assert len(openai_server.chat_requests) == 1 and delays == []
    assert "Nothing was saved" in str(info.value)


def test_dropped_connection_after_first_token_is_not_retried(
    openai_server: OpenAIServer,
) -> None:
    openai_server.script(TEXT)
    openai_server.fault(cut(after=1, abrupt=True))
    delays: list[float] = []
    with pytest.raises(IncompleteReplyError, match="broke off") as info:
        _drain(_router(openai_server, delays))
    assert info.value.started and "Nothing was saved" in str(info.value)
    assert "unavailable" not in str(info.value) and "connection dropped" in str(info.value)
    assert len(openai_server.chat_requests) == 1 and delays == []


def test_cut_before_first_token_is_retried(openai_server: OpenAIServer) -> None:
    openai_server.script(TEXT)
    openai_server.fault(cut(after=0))
    delays: list[float] = []
    assert _drain(_router(openai_server, delays)) == TEXT
    assert len(openai_server.chat_requests) == 2 and len(delays) == 1


def test_stream_cut_at_the_token_limit_is_an_error(openai_server: OpenAIServer) -> None:
    openai_server.script(TEXT)
    openai_server.fault(truncated())
    with pytest.raises(IncompleteReplyError, match="token limit") as info:
        _drain(_router(openai_server, []))
    assert info.value.reason == "length"
    assert len(openai_server.chat_requests) == 1


def test_a_stream_cut_at_the_token_limit_counts_what_it_wrote(
    openai_server: OpenAIServer,
) -> None:
    """Issue 39 item 12: the embedded model's prose ends at its token limit (the writer keeps
    its whole sentences), and the usage log counted 0 completion tokens for it: the demo's
    writer line said so. What was streamed before the end is counted (the call still failed)."""
    openai_server.script(TEXT)
    openai_server.fault(truncated())
    router = _router(openai_server, [])
    with pytest.raises(IncompleteReplyError):
        _drain(router)
    [record] = router.usage.records
    assert record.role == "writer" and not record.ok
    assert record.completion_tokens > 0 and record.prompt_tokens > 0
    assert router.usage.totals("writer").completion_tokens == record.completion_tokens


def test_invoke_cut_at_the_token_limit_is_an_error(openai_server: OpenAIServer) -> None:
    openai_server.script(ChatReply(content=TEXT))
    openai_server.fault(truncated())
    with pytest.raises(IncompleteReplyError, match="finish reason: length"):
        _router(openai_server, []).model("writer").invoke("x")


def test_429_honours_retry_after_then_succeeds(openai_server: OpenAIServer) -> None:
    openai_server.script(TEXT)
    openai_server.fault(rate_limited(retry_after=0.25))
    delays: list[float] = []
    assert _router(openai_server, delays).model("writer").invoke("x").text == TEXT
    assert delays == [0.25]
    assert len(openai_server.chat_requests) == 2


def test_503_is_retried_with_jittered_backoff(openai_server: OpenAIServer) -> None:
    openai_server.script(TEXT)
    openai_server.fault(unavailable(), unavailable())
    delays: list[float] = []
    assert _drain(_router(openai_server, delays)) == TEXT
    assert len(delays) == 2
    assert 0.01 <= delays[0] <= 0.015 and 0.02 <= delays[1] <= 0.025


def test_retries_exhausted_name_the_attempts(openai_server: OpenAIServer) -> None:
    openai_server.fault(unavailable(), unavailable(), unavailable())
    with pytest.raises(ModelError, match="failed after 3 attempts: HTTP 503"):
        _router(openai_server, []).model("writer").invoke("x")


def test_fallback_answers_when_the_primary_keeps_failing(openai_server: OpenAIServer) -> None:
    with OpenAIServer() as other:
        other.script("from the fallback")
        openai_server.fault(unavailable(), unavailable(), unavailable())
        fallback = f"openai-compatible:{other.base_url}:{other.model}"
        router = _router(openai_server, [], writer_fallback=fallback)
        assert _drain(router) == "from the fallback"
        assert len(openai_server.chat_requests) == 3 and len(other.chat_requests) == 1


def test_async_stream_cut_and_rate_limit(openai_server: OpenAIServer) -> None:
    openai_server.script(TEXT, TEXT)
    openai_server.fault(rate_limited(retry_after=0))
    router = _router(openai_server, [])

    async def main() -> tuple[str, BaseException | None]:
        first = "".join([p async for p in router.astream("writer", "a")])
        openai_server.fault(cut(after=1))
        try:
            _ = [p async for p in router.astream("writer", "b")]
        except IncompleteReplyError as e:
            return first, e
        return first, None

    first, error = runtime.run_sync(main())
    assert first == TEXT
    assert isinstance(error, IncompleteReplyError) and error.started
    assert len(openai_server.chat_requests) == 3  # 429, ok, cut (not retried)
