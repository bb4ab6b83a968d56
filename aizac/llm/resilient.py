"""A chat model that retries transient failures and falls back to a second model.

``ResilientChatModel`` wraps the provider models of one role (primary, then an optional
fallback). It is itself a ``BaseChatModel``, so callers keep using ``invoke`` / ``stream`` /
``ainvoke`` / ``astream`` and :func:`aizac.llm.structured.generate_structured`; LangChain's
``with_retry`` / ``with_fallbacks`` return plain Runnables, which would lose that.

Transient errors (429, 5xx, timeouts, connection errors) are retried with exponential backoff
(``backoff_base * 2**attempt`` seconds, capped) up to ``retries`` times; a stream is retried
only if it failed before its first token. Any other failure, or retries exhausted, moves on to
the fallback; if everything fails, a :class:`~aizac.errors.ModelError` says what happened
(never the key) and what to do next.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any, TypeVar

from langchain_core.callbacks import (
    AsyncCallbackManagerForLLMRun,
    CallbackManagerForLLMRun,
)
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.ai import UsageMetadata
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable, RunnableLambda
from pydantic import BaseModel, ConfigDict, Field

from aizac.errors import AizacError, ModelError
from aizac.llm.errors import hint_for, is_transient, redact, summarize
from aizac.llm.methods import STRUCTURED_KWARG, apply_plan, output_text, plan_structured
from aizac.tokens import count_tokens

T = TypeVar("T")


class Candidate:
    """One model a role may use: its label (the spec), the setting naming it, the model."""

    def __init__(self, label: str, setting: str, model: BaseChatModel) -> None:
        self.label = label
        self.setting = setting
        self.model = model

    def __repr__(self) -> str:
        return f"Candidate({self.label!r})"


class ResilientChatModel(BaseChatModel):
    """Retries + fallback around the provider models of one role."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    role: str
    candidates: list[Any]  # list[Candidate]; primary first
    retries: int = 3
    backoff_base: float = 1.0
    backoff_max: float = 30.0
    sleep: Callable[[float], None] = Field(default=time.sleep, exclude=True)
    secrets: list[str] = Field(default_factory=list, exclude=True, repr=False)

    @property
    def _llm_type(self) -> str:
        return "aizac-resilient"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"role": self.role, "models": [c.label for c in self.candidates]}

    @property
    def primary(self) -> BaseChatModel:
        """The role's primary provider model."""
        model: BaseChatModel = self.candidates[0].model
        return model

    def with_structured_output(
        self, schema: Any, *, include_raw: bool = False, **kwargs: Any
    ) -> Runnable[LanguageModelInput, Any]:
        """For a Pydantic ``schema``: a Runnable running
        :func:`~aizac.llm.structured.generate_structured` (validation, repair, clear errors)."""
        if include_raw or not (isinstance(schema, type) and issubclass(schema, BaseModel)):
            return super().with_structured_output(schema, include_raw=include_raw, **kwargs)
        from aizac.llm.structured import agenerate_structured, generate_structured

        retries = int(kwargs.get("retries", 2))

        def run(value: LanguageModelInput) -> Any:
            messages = self._convert_input(value).to_messages()
            return generate_structured(self, schema, messages, retries=retries)

        async def arun(value: LanguageModelInput) -> Any:
            messages = self._convert_input(value).to_messages()
            return await agenerate_structured(self, schema, messages, retries=retries)

        return RunnableLambda(run, afunc=arun, name=f"structured:{schema.__name__}")

    # ------------------------------------------------------------------ helpers
    def _delay(self, attempt: int) -> float:
        return min(self.backoff_max, self.backoff_base * (2**attempt))

    def _prepare(
        self, cand: Candidate, messages: list[BaseMessage], kwargs: dict[str, Any]
    ) -> tuple[list[BaseMessage], dict[str, Any]]:
        kw = dict(kwargs)
        request = kw.pop(STRUCTURED_KWARG, None)
        if request is None:
            return messages, kw
        plan = plan_structured(cand.model, request["schema"], request.get("method"))
        return apply_plan(messages, plan), {**kw, **plan.kwargs}

    def _failure(self, cand: Candidate, error: BaseException, attempts: int) -> AizacError:
        if isinstance(error, AizacError):
            return error
        tries = f" after {attempts} attempts" if attempts > 1 else ""
        return ModelError(
            redact(f"{self.role}: {cand.label} failed{tries}: {summarize(error)}.", self.secrets),
            hint=hint_for(error, cand.setting),
        )

    def _final(self, failures: list[AizacError]) -> AizacError:
        if len(failures) == 1:
            return failures[0]
        joined = "; then the fallback: ".join(f.message for f in failures)
        return ModelError(joined, hint=failures[-1].hint)

    @staticmethod
    def _tag(message: BaseMessage, cand: Candidate, sent: list[BaseMessage]) -> None:
        """Name the model that answered; estimate usage offline if the provider gave none."""
        message.response_metadata = {**message.response_metadata, "aizac_model": cand.label}
        if isinstance(message, AIMessage) and not message.usage_metadata:
            message.usage_metadata = estimate_usage(sent, output_text(message))
            message.response_metadata["aizac_usage_estimated"] = True

    def _call(self, cand: Candidate, fn: Callable[[], T]) -> T:
        attempt = 0
        while True:
            try:
                return fn()
            except AizacError:
                raise
            except Exception as e:
                if attempt < self.retries and is_transient(e):
                    self.sleep(self._delay(attempt))
                    attempt += 1
                    continue
                raise self._failure(cand, e, attempt + 1) from e

    async def _acall(self, cand: Candidate, fn: Callable[[], Awaitable[T]]) -> T:
        attempt = 0
        while True:
            try:
                return await fn()
            except AizacError:
                raise
            except Exception as e:
                if attempt < self.retries and is_transient(e):
                    await asyncio.sleep(self._delay(attempt))
                    attempt += 1
                    continue
                raise self._failure(cand, e, attempt + 1) from e

    # ------------------------------------------------------------------ BaseChatModel
    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        failures: list[AizacError] = []
        for cand in self.candidates:
            msgs, kw = self._prepare(cand, messages, kwargs)
            try:
                reply = self._call(cand, _invoker(cand.model, msgs, stop, kw))
            except AizacError as e:
                failures.append(e)
                continue
            self._tag(reply, cand, msgs)
            return ChatResult(generations=[ChatGeneration(message=reply)])
        raise self._final(failures)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        failures: list[AizacError] = []
        for cand in self.candidates:
            msgs, kw = self._prepare(cand, messages, kwargs)
            try:
                reply = await self._acall(cand, _ainvoker(cand.model, msgs, stop, kw))
            except AizacError as e:
                failures.append(e)
                continue
            self._tag(reply, cand, msgs)
            return ChatResult(generations=[ChatGeneration(message=reply)])
        raise self._final(failures)

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        failures: list[AizacError] = []
        for cand in self.candidates:
            msgs, kw = self._prepare(cand, messages, kwargs)
            attempt = 0
            while True:
                started = False
                seen = _Seen()
                try:
                    for part in cand.model.stream(msgs, stop=stop, **kw):
                        started = True
                        yield seen.add(_as_chunk(part))
                    yield _final_chunk(cand, msgs, seen)
                    return
                except AizacError as e:
                    if started:
                        raise
                    failures.append(e)
                    break
                except Exception as e:
                    if not started and attempt < self.retries and is_transient(e):
                        self.sleep(self._delay(attempt))
                        attempt += 1
                        continue
                    failure = self._failure(cand, e, attempt + 1)
                    if started:
                        raise failure from e
                    failures.append(failure)
                    break
        raise self._final(failures)

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        failures: list[AizacError] = []
        for cand in self.candidates:
            msgs, kw = self._prepare(cand, messages, kwargs)
            attempt = 0
            while True:
                started = False
                seen = _Seen()
                try:
                    async for part in cand.model.astream(msgs, stop=stop, **kw):
                        started = True
                        yield seen.add(_as_chunk(part))
                    yield _final_chunk(cand, msgs, seen)
                    return
                except AizacError as e:
                    if started:
                        raise
                    failures.append(e)
                    break
                except Exception as e:
                    if not started and attempt < self.retries and is_transient(e):
                        await asyncio.sleep(self._delay(attempt))
                        attempt += 1
                        continue
                    failure = self._failure(cand, e, attempt + 1)
                    if started:
                        raise failure from e
                    failures.append(failure)
                    break
        raise self._final(failures)


def _invoker(
    model: BaseChatModel, msgs: list[BaseMessage], stop: list[str] | None, kw: dict[str, Any]
) -> Callable[[], BaseMessage]:
    return lambda: model.invoke(msgs, stop=stop, **kw)


def _ainvoker(
    model: BaseChatModel, msgs: list[BaseMessage], stop: list[str] | None, kw: dict[str, Any]
) -> Callable[[], Awaitable[BaseMessage]]:
    return lambda: model.ainvoke(msgs, stop=stop, **kw)


def _as_chunk(part: BaseMessage) -> ChatGenerationChunk:
    """A fresh chunk (no inner run id or chunk position) carrying ``part``'s payload."""
    if isinstance(part, AIMessageChunk):
        message = AIMessageChunk(
            content=part.content,
            additional_kwargs=part.additional_kwargs,
            response_metadata=part.response_metadata,
            usage_metadata=part.usage_metadata,
            tool_call_chunks=part.tool_call_chunks,
        )
    elif isinstance(part, AIMessage):
        message = AIMessageChunk(
            content=part.content,
            response_metadata=part.response_metadata,
            usage_metadata=part.usage_metadata,
        )
    else:
        message = AIMessageChunk(content=part.text)
    return ChatGenerationChunk(message=message)


class _Seen:
    """What a stream has produced so far (to estimate usage when the provider reports none)."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.has_usage = False

    def add(self, chunk: ChatGenerationChunk) -> ChatGenerationChunk:
        self.text.append(chunk.text)
        message = chunk.message
        if isinstance(message, AIMessageChunk) and message.usage_metadata:
            self.has_usage = True
        return chunk


def estimate_usage(sent: list[BaseMessage], reply_text: str) -> UsageMetadata:
    """Offline token estimate of a call (used when the provider reports no usage)."""
    prompt = count_tokens("\n".join(m.text for m in sent))
    completion = count_tokens(reply_text)
    return UsageMetadata(
        input_tokens=prompt, output_tokens=completion, total_tokens=prompt + completion
    )


def _final_chunk(cand: Candidate, sent: list[BaseMessage], seen: _Seen) -> ChatGenerationChunk:
    metadata: dict[str, Any] = {"aizac_model": cand.label}
    usage = None
    if not seen.has_usage:
        usage = estimate_usage(sent, "".join(seen.text))
        metadata["aizac_usage_estimated"] = True
    return ChatGenerationChunk(
        message=AIMessageChunk(content="", response_metadata=metadata, usage_metadata=usage)
    )
