"""A chat model that retries transient failures and falls back to a second model.

``ResilientChatModel`` wraps the provider models of one role (primary, then an optional
fallback). It is itself a ``BaseChatModel``, so callers keep using ``invoke`` / ``stream`` /
``ainvoke`` / ``astream`` and :func:`aizac.llm.structured.generate_structured`; LangChain's
``with_retry`` / ``with_fallbacks`` return plain Runnables, which would lose that.

One ``tenacity`` policy serves every call kind (invoke, ainvoke, stream, astream): transient
errors (429, 5xx, timeouts, connection errors) are retried up to ``retries`` times, waiting what
the server's ``Retry-After`` says, else ``backoff_base * 2**attempt`` seconds plus jitter (capped
at ``backoff_max``). A stream is retried only while nothing of the answer has been delivered:
once a token went out, a retry would duplicate output. The candidate/fallback loop is written
once (:class:`_Fallback`): any other failure, or retries exhausted, moves on to the fallback; if
everything fails, a :class:`~aizac.errors.ModelError` says what happened (never the key) and
what to do next.

Replies carry their end: the finish reason stays in ``response_metadata`` (and in each chunk's
``generation_info``). A reply cut by the token limit (``length``), or a stream that stops without
any finish reason from a provider that always reports one, raises
:class:`~aizac.errors.IncompleteReplyError` instead of passing for a whole answer.
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
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable, RunnableLambda
from pydantic import BaseModel, ConfigDict, Field
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
    wait_random,
)

from aizac.errors import AizacError, IncompleteReplyError, ModelError
from aizac.llm.errors import (
    hint_for,
    is_length_cut,
    is_transient,
    redact,
    retry_after,
    summarize,
)
from aizac.llm.methods import (
    STRUCTURED_KWARG,
    apply_plan,
    call_options,
    output_text,
    plan_structured,
)
from aizac.llm.profiles import GENERIC, ModelProfile
from aizac.llm.replies import (
    LENGTH_REASONS,
    StreamLog,
    as_chunk,
    chat_result,
    estimate_usage,
    final_chunk,
    finish_of,
)

__all__ = ["Candidate", "ResilientChatModel", "estimate_usage"]

T = TypeVar("T")


class Candidate:
    """One model a role may use: its label (the spec), the setting naming it, the model and its
    profile (``profile.reports_finish``: the provider always ends a stream with a finish reason,
    so a stream without one was cut)."""

    def __init__(
        self, label: str, setting: str, model: BaseChatModel, *, profile: ModelProfile = GENERIC
    ) -> None:
        self.label = label
        self.setting = setting
        self.model = model
        self.profile = profile

    @property
    def reports_finish(self) -> bool:
        return self.profile.reports_finish

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
    asleep: Callable[[float], Awaitable[None]] = Field(default=asyncio.sleep, exclude=True)
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

    # ------------------------------------------------------------------ retry policy
    def _wait(self, state: RetryCallState) -> float:
        """``Retry-After`` when the server gives one, else exponential backoff with jitter."""
        error = state.outcome.exception() if state.outcome else None
        told = retry_after(error) if error is not None else None
        if told is not None:
            return min(self.backoff_max, told)
        backoff = wait_exponential(multiplier=self.backoff_base, max=self.backoff_max)
        jitter = wait_random(0, self.backoff_base / 2)
        return min(self.backoff_max, float(backoff(state)) + float(jitter(state)))

    def _policy(self) -> dict[str, Any]:
        return {
            "stop": stop_after_attempt(self.retries + 1),
            "wait": self._wait,
            "retry": retry_if_exception(_retryable),
            "reraise": True,
        }

    def _failure(self, cand: Candidate, error: BaseException, attempts: int) -> AizacError:
        if isinstance(error, AizacError):
            return error
        if isinstance(error, _CutBeforeFirstToken):
            return self._incomplete(cand, "cut", started=False)
        if is_length_cut(error):
            return self._incomplete(cand, "length", started=False)
        tries = f" after {attempts} attempts" if attempts > 1 else ""
        return ModelError(
            redact(f"{self.role}: {cand.label} failed{tries}: {summarize(error)}.", self.secrets),
            hint=hint_for(error, cand.setting),
        )

    def _call(self, cand: Candidate, fn: Callable[[], T]) -> T:
        retrying = Retrying(sleep=self.sleep, **self._policy())
        try:
            return retrying(fn)
        except AizacError:
            raise
        except Exception as e:
            raise self._failure(cand, e, _attempts(retrying)) from e

    async def _acall(self, cand: Candidate, fn: Callable[[], Awaitable[T]]) -> T:
        retrying = AsyncRetrying(sleep=self.asleep, **self._policy())
        try:
            return await retrying(fn)
        except AizacError:
            raise
        except Exception as e:
            raise self._failure(cand, e, _attempts(retrying)) from e

    def _tag(self, message: BaseMessage, cand: Candidate, sent: list[BaseMessage]) -> None:
        """Name the model that answered; estimate usage offline if the provider gave none;
        refuse a reply the token limit cut."""
        message.response_metadata = {**message.response_metadata, "aizac_model": cand.label}
        if isinstance(message, AIMessage) and not message.usage_metadata:
            message.usage_metadata = estimate_usage(sent, output_text(message))
            message.response_metadata["aizac_usage_estimated"] = True
        if finish_of(message) in LENGTH_REASONS:
            raise self._incomplete(cand, "length", started=True)

    def _incomplete(self, cand: Candidate, reason: str, *, started: bool) -> IncompleteReplyError:
        if reason == "length":
            what = "the reply was cut at the model's token limit (finish reason: length)"
        else:
            what = "the reply stream stopped before its end (no finish reason)"
        return IncompleteReplyError(
            redact(f"{self.role}: {cand.label}: {what}.", self.secrets),
            reason=reason,
            started=started,
        )

    def _broken(self, cand: Candidate, error: BaseException) -> IncompleteReplyError:
        """A stream that failed after its first token (not retried: output would repeat)."""
        return IncompleteReplyError(
            redact(
                f"{self.role}: {cand.label}: the reply stream broke off before its end "
                f"({'the connection dropped' if is_transient(error) else summarize(error)}).",
                self.secrets,
            ),
            reason="cut",
            started=True,
        )

    def _check_end(self, cand: Candidate, log: StreamLog) -> None:
        if log.finish in LENGTH_REASONS and cand.reports_finish:
            raise self._incomplete(cand, "length", started=log.started)
        if log.finish is None and cand.reports_finish:
            raise self._incomplete(cand, "cut", started=log.started)

    # ------------------------------------------------------------------ BaseChatModel
    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        fallback = _Fallback(self, messages, kwargs)
        for cand, msgs, kw in fallback:
            try:
                reply = self._call(cand, _invoker(cand.model, msgs, stop, kw))
            except IncompleteReplyError:
                raise
            except AizacError as e:
                fallback.failed(e)
                continue
            self._tag(reply, cand, msgs)
            return chat_result(reply)
        raise AssertionError("unreachable: _Fallback raises after the last candidate")

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        fallback = _Fallback(self, messages, kwargs)
        for cand, msgs, kw in fallback:
            try:
                reply = await self._acall(cand, _ainvoker(cand.model, msgs, stop, kw))
            except IncompleteReplyError:
                raise
            except AizacError as e:
                fallback.failed(e)
                continue
            self._tag(reply, cand, msgs)
            return chat_result(reply)
        raise AssertionError("unreachable: _Fallback raises after the last candidate")

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        fallback = _Fallback(self, messages, kwargs)
        for cand, msgs, kw in fallback:
            try:
                head, parts, log = self._call(cand, self._opener(cand, msgs, stop, kw))
            except AizacError as e:
                if isinstance(e, IncompleteReplyError) and e.reason == "length":
                    raise
                fallback.failed(e)
                continue
            yield from head
            try:
                for part in parts:  # past the first token: failures end the stream, no retry
                    yield log.add(as_chunk(part))
            except AizacError:
                raise
            except Exception as e:
                raise self._broken(cand, e) from e
            self._check_end(cand, log)
            yield final_chunk(cand.label, msgs, log)
            return

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        fallback = _Fallback(self, messages, kwargs)
        for cand, msgs, kw in fallback:
            try:
                head, parts, log = await self._acall(cand, self._aopener(cand, msgs, stop, kw))
            except AizacError as e:
                if isinstance(e, IncompleteReplyError) and e.reason == "length":
                    raise
                fallback.failed(e)
                continue
            for chunk in head:
                yield chunk
            try:
                async for part in parts:
                    yield log.add(as_chunk(part))
            except AizacError:
                raise
            except Exception as e:
                raise self._broken(cand, e) from e
            self._check_end(cand, log)
            yield final_chunk(cand.label, msgs, log)
            return

    def _opener(
        self, cand: Candidate, msgs: list[BaseMessage], stop: list[str] | None, kw: dict[str, Any]
    ) -> Callable[[], tuple[list[ChatGenerationChunk], Iterator[Any], StreamLog]]:
        """Opens the stream and reads up to its first token: the part a retry may repeat."""

        def open_stream() -> tuple[list[ChatGenerationChunk], Iterator[Any], StreamLog]:
            log, head = StreamLog(), []  # a retry starts from nothing
            parts = iter(cand.model.stream(msgs, stop=stop, **kw))
            while not log.started:
                part = next(parts, None)
                if part is None:
                    self._check_empty(cand, log)
                    break
                head.append(log.add(as_chunk(part)))
            return head, parts, log

        return open_stream

    def _aopener(
        self, cand: Candidate, msgs: list[BaseMessage], stop: list[str] | None, kw: dict[str, Any]
    ) -> Callable[[], Awaitable[tuple[list[ChatGenerationChunk], AsyncIterator[Any], StreamLog]]]:
        """Async :meth:`_opener`."""

        async def open_stream() -> tuple[list[ChatGenerationChunk], AsyncIterator[Any], StreamLog]:
            log, head = StreamLog(), []
            parts = aiter(cand.model.astream(msgs, stop=stop, **kw))
            while not log.started:
                part = await anext(parts, None)
                if part is None:
                    self._check_empty(cand, log)
                    break
                head.append(log.add(as_chunk(part)))
            return head, parts, log

        return open_stream

    def _check_empty(self, cand: Candidate, log: StreamLog) -> None:
        """A stream that ended before any answer: retryable if it was cut, an error if the
        token limit stopped it, fine if it simply finished empty."""
        if log.finish is None and cand.reports_finish:
            raise _CutBeforeFirstToken()
        if log.finish in LENGTH_REASONS:
            raise self._incomplete(cand, "length", started=False)


class _CutBeforeFirstToken(Exception):
    """A stream ended before its first token without a finish reason (retried)."""


class _Fallback:
    """The candidate loop, written once: yields each candidate's prepared call; after the last
    one failed, raises the combined failure."""

    def __init__(
        self, owner: ResilientChatModel, messages: list[BaseMessage], kwargs: dict[str, Any]
    ) -> None:
        self.owner = owner
        self.messages = messages
        self.kwargs = kwargs
        self.failures: list[AizacError] = []

    def failed(self, error: AizacError) -> None:
        self.failures.append(error)

    def __iter__(self) -> Iterator[tuple[Candidate, list[BaseMessage], dict[str, Any]]]:
        for cand in self.owner.candidates:
            yield (cand, *_prepare(cand, self.messages, self.kwargs))
        if len(self.failures) == 1:
            raise self.failures[0]
        joined = "; then the fallback: ".join(f.message for f in self.failures)
        raise ModelError(joined, hint=self.failures[-1].hint)


def _prepare(
    cand: Candidate, messages: list[BaseMessage], kwargs: dict[str, Any]
) -> tuple[list[BaseMessage], dict[str, Any]]:
    """The messages and kwargs for ``cand``: a structured request is planned per candidate."""
    kw = dict(kwargs)
    request = kw.pop(STRUCTURED_KWARG, None)
    if request is None:
        return messages, kw
    plan = plan_structured(cand.model, request["schema"], request.get("method"))
    options = call_options(cand.profile, request)
    return apply_plan(messages, plan), {**kw, **plan.kwargs, **options}


def _retryable(error: BaseException) -> bool:
    if isinstance(error, _CutBeforeFirstToken):
        return True
    return not isinstance(error, AizacError) and is_transient(error)


def _attempts(retrying: Retrying | AsyncRetrying) -> int:
    return int(retrying.statistics.get("attempt_number", 1))


def _invoker(
    model: BaseChatModel, msgs: list[BaseMessage], stop: list[str] | None, kw: dict[str, Any]
) -> Callable[[], BaseMessage]:
    return lambda: model.invoke(msgs, stop=stop, **kw)


def _ainvoker(
    model: BaseChatModel, msgs: list[BaseMessage], stop: list[str] | None, kw: dict[str, Any]
) -> Callable[[], Awaitable[BaseMessage]]:
    async def call() -> BaseMessage:  # a coroutine function: tenacity awaits those
        return await model.ainvoke(msgs, stop=stop, **kw)

    return call
