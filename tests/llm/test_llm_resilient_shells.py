"""The resilient model's sync and async call kinds share one core (aizac.llm.steps): the same
failure, scripted on a real-wire server, ends the same way through invoke/ainvoke and
stream/astream (same reply or error, same number of requests)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Generator, Iterator
from typing import Any, cast

import pytest
from acceptance.openai_server import ChatReply, OpenAIServer, cut, truncated, unavailable
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessageChunk
from langchain_core.outputs import ChatGenerationChunk
from pydantic import Field

from aizac.errors import IncompleteReplyError, ModelError
from aizac.llm import runtime
from aizac.llm.router import ModelRouter
from aizac.settings import Settings

TEXT = "비가 내리는 밤, 진도준은 회귀한 첫날의 기억을 더듬었다."
MODES = ["sync", "async"]


def _router(server: OpenAIServer, **extra: object) -> ModelRouter:
    spec = f"openai-compatible:{server.base_url}:{server.model}"
    settings = Settings(writer_model=spec, transient_retries=2, **extra)  # type: ignore[arg-type]
    return ModelRouter(settings, backoff_base=0.01, sleep=lambda _: None)


def _stream(router: ModelRouter, mode: str) -> str:
    if mode == "sync":
        return "".join(router.stream("writer", "write"))

    async def main() -> str:
        return "".join([p async for p in router.astream("writer", "write")])

    return runtime.run_sync(main())


def _invoke(router: ModelRouter, mode: str) -> str:
    model = router.model("writer")
    reply = model.invoke("x") if mode == "sync" else runtime.run_sync(model.ainvoke("x"))
    return reply.text


CALLS: dict[str, Callable[[ModelRouter, str], str]] = {"stream": _stream, "invoke": _invoke}


@pytest.mark.parametrize("mode", MODES)
def test_a_stream_cut_after_its_first_token_is_not_retried(
    openai_server: OpenAIServer, mode: str
) -> None:
    openai_server.script(TEXT)
    openai_server.fault(cut(after=2))
    with pytest.raises(IncompleteReplyError, match="stopped before its end") as info:
        _stream(_router(openai_server), mode)
    assert info.value.started and info.value.reason == "cut"
    assert len(openai_server.chat_requests) == 1


@pytest.mark.parametrize("mode", MODES)
def test_a_stream_cut_before_its_first_token_is_retried(
    openai_server: OpenAIServer, mode: str
) -> None:
    openai_server.script(TEXT)
    openai_server.fault(cut(after=0))
    assert _stream(_router(openai_server), mode) == TEXT
    assert len(openai_server.chat_requests) == 2


@pytest.mark.parametrize("kind", sorted(CALLS))
@pytest.mark.parametrize("mode", MODES)
def test_the_fallback_answers_after_the_primary_s_retries(
    openai_server: OpenAIServer, mode: str, kind: str
) -> None:
    with OpenAIServer() as other:
        other.script("from the fallback")
        openai_server.fault(unavailable(), unavailable(), unavailable())
        fallback = f"openai-compatible:{other.base_url}:{other.model}"
        router = _router(openai_server, writer_fallback=fallback)
        assert CALLS[kind](router, mode) == "from the fallback"
        assert len(openai_server.chat_requests) == 3 and len(other.chat_requests) == 1


@pytest.mark.parametrize("kind", sorted(CALLS))
@pytest.mark.parametrize("mode", MODES)
def test_retries_exhausted_without_a_fallback_name_the_attempts(
    openai_server: OpenAIServer, mode: str, kind: str
) -> None:
    openai_server.fault(unavailable(), unavailable(), unavailable())
    with pytest.raises(ModelError, match="failed after 3 attempts: HTTP 503") as info:
        CALLS[kind](_router(openai_server), mode)
    assert info.value.__cause__ is not None  # the provider's error stays chained
    assert len(openai_server.chat_requests) == 3


@pytest.mark.parametrize("mode", MODES)
def test_a_reply_cut_at_the_token_limit_is_an_error_both_ways(
    openai_server: OpenAIServer, mode: str
) -> None:
    openai_server.script(ChatReply(content=TEXT))
    openai_server.fault(truncated())
    with pytest.raises(IncompleteReplyError, match="finish reason: length"):
        _invoke(_router(openai_server), mode)
    assert len(openai_server.chat_requests) == 1


class _Endless(BaseChatModel):
    """Streams numbered pieces forever; notes when its stream is closed."""

    closed: list[bool] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "endless"

    def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kw: Any) -> Any:
        raise NotImplementedError  # only streamed here

    def _stream(
        self, messages: Any, stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> Iterator[ChatGenerationChunk]:
        try:
            for i in itertools.count():
                yield ChatGenerationChunk(message=AIMessageChunk(content=f"{i} "))
        finally:
            self.closed.append(True)


def test_closing_the_routed_stream_early_closes_the_provider_stream() -> None:
    endless = _Endless()
    router = ModelRouter(Settings(), models={"writer": endless})
    pieces = cast(Generator[Any, None, None], router.model("writer").stream("x"))
    assert [next(pieces).text for _ in range(3)] == ["0 ", "1 ", "2 "]
    pieces.close()  # the reader walked away: the provider's stream stops now, not at GC
    assert endless.closed == [True]
