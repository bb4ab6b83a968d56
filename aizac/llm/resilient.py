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
once (:class:`Fallback`): any other failure, or retries exhausted, moves on to the fallback; if
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
from collections.abc import AsyncIterator, Awaitable, Callable, Generator, Iterator, Sequence
from typing import Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForLLMRun,
    CallbackManagerForLLMRun,
)
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.language_models.base import LangSmithParams
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable, RunnableConfig, RunnableLambda
from langchain_core.tools import BaseTool
from pydantic import ConfigDict, Field
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
    wait_random,
)

from aizac.errors import AizacError, IncompleteReplyError, ModelError, StructuredOutputError
from aizac.llm.candidates import (
    END,
    TOOLS_KWARG,
    Call,
    Candidate,
    Do,
    Effect,
    Emit,
    Fallback,
    Next,
)
from aizac.llm.errors import (
    hint_for,
    is_length_cut,
    is_transient,
    redact_text,
    retry_after,
    role_name,
    summarize,
)
from aizac.llm.methods import (
    output_text,
)
from aizac.llm.profiles import ModelProfile
from aizac.llm.replies import (
    LENGTH_REASONS,
    StreamLog,
    as_chunk,
    chat_result,
    estimate_usage,
    final_chunk,
    finish_of,
)
from aizac.llm.steps import Steps, arun, run
from aizac.text import Text

__all__ = ["Candidate", "ResilientChatModel", "estimate_usage"]


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

    structured_max_tokens: int | None = None
    """Token budget of a structured reply on the small local model (the router passes
    ``AIZAC_STRUCTURED_MAX_TOKENS``); ``None``: :data:`aizac.llm.structured.DEFAULT_BUDGET`."""

    @property
    def routed_profile(self) -> ModelProfile:
        """What the role's model can do: its primary's profile, routed (also when this model
        was built without the router, which tags its own)."""
        profile: ModelProfile = self.candidates[0].profile
        return profile.as_routed()

    def _get_ls_params(self, stop: list[str] | None = None, **kwargs: Any) -> LangSmithParams:
        """Tracing parameters: the primary's provider and model name (traces name the model
        that was meant to answer; ``aizac_model`` in a reply's metadata names the one that
        did)."""
        params = LangSmithParams(
            ls_provider=self.candidates[0].profile.provider,
            ls_model_name=str(kwargs.get("model") or model_name(self.primary)
                              or self.candidates[0].label),
            ls_model_type="chat",
        )
        for key, name in (("temperature", "ls_temperature"), ("max_tokens", "ls_max_tokens")):
            value = kwargs.get(key, getattr(self.primary, key, None))
            if isinstance(value, int | float) and not isinstance(value, bool):
                params[name] = value  # type: ignore[literal-required]
        if stop:
            params["ls_stop"] = stop
        return params

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | dict[str, Any] | bool | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Tools for every candidate, each bound its own way (its ``bind_tools``) when it is
        called: the fallback of an OpenAI model may be an Anthropic one."""
        request = {"tools": list(tools), "tool_choice": tool_choice, **kwargs}
        return self.bind(**{TOOLS_KWARG: request})

    def with_structured_output(
        self, schema: Any, *, include_raw: bool = False, **kwargs: Any
    ) -> Runnable[LanguageModelInput, Any]:
        """A Runnable running :func:`~aizac.llm.structured.generate_structured` (validation,
        repair, the structured budget, clear errors) for a Pydantic model, a TypedDict or a
        JSON-schema dict (the last two give dicts). ``include_raw=True`` gives ``{"raw":
        the last reply, "parsed": ..., "parsing_error": ...}`` and never raises for output
        that would not validate. ``method`` (``json_schema``, ``function_calling``,
        ``json_mode`` or one of :data:`aizac.llm.methods.METHODS`) forces how JSON is asked
        for; by default each candidate's own way."""
        from aizac.llm.structured import (
            DEFAULT_BUDGET,
            agenerate_structured,
            generate_structured,
            structured_schema,
        )

        target = structured_schema(schema)
        method = _METHODS.get(kwargs.get("method") or "", kwargs.get("method"))
        trace = {"kwargs": {"method": kwargs.get("method") or "json_schema"}, "schema": schema}
        budget = self.structured_max_tokens or DEFAULT_BUDGET

        def options(raw: list[BaseMessage]) -> dict[str, Any]:
            return {"retries": int(kwargs.get("retries", 2)), "method": method, "trace": trace,
                    "max_tokens": budget, "on_reply": raw.append}

        def shaped(raw: list[BaseMessage], parsed: Any, error: Exception | None) -> Any:
            if not include_raw:
                if error is not None:
                    raise error
                return parsed
            return {"raw": raw[-1] if raw else None, "parsed": parsed, "parsing_error": error}

        def run(value: LanguageModelInput) -> Any:
            messages = self._convert_input(value).to_messages()
            raw: list[BaseMessage] = []
            try:
                parsed = generate_structured(self, target, messages, **options(raw))
            except StructuredOutputError as e:
                return shaped(raw, None, e)
            return shaped(raw, parsed, None)

        async def arun(value: LanguageModelInput) -> Any:
            messages = self._convert_input(value).to_messages()
            raw: list[BaseMessage] = []
            try:
                parsed = await agenerate_structured(self, target, messages, **options(raw))
            except StructuredOutputError as e:
                return shaped(raw, None, e)
            return shaped(raw, parsed, None)

        return RunnableLambda(run, afunc=arun, name=f"structured:{target.__name__}")

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

    def _failure(self, cand: Candidate, error: BaseException) -> AizacError:
        """``error`` (what a retried call finally raised) as the aizac error to report."""
        if isinstance(error, AizacError):
            return error
        if isinstance(error, _CutBeforeFirstToken):
            failure: AizacError = self._incomplete(cand, "cut", started=False)
        elif is_length_cut(error):
            failure = self._incomplete(cand, "length", started=False)
        else:  # a retryable error got here only after every attempt
            retried = _retryable(error) and self.retries
            said = Text("error.model.failed_after" if retried else "error.model.failed",
                        role=role_name(self.role), model=cand.label, cause=summarize(error),
                        attempts=self.retries + 1)
            failure = ModelError(redact_text(said, self.secrets),
                                 hint=hint_for(error, cand.setting))
        failure.__cause__ = error
        return failure

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
        key = "error.model.cut_length" if reason == "length" else "error.model.cut_stream"
        said = Text(key, role=role_name(self.role), model=cand.label)
        return IncompleteReplyError(redact_text(said, self.secrets), reason=reason,
                                    started=started)

    def _broken(self, cand: Candidate, error: BaseException) -> IncompleteReplyError:
        """A stream that failed after its first token (not retried: output would repeat)."""
        cause = Text("error.model.cause.dropped") if is_transient(error) else summarize(error)
        said = Text("error.model.broke_off", role=role_name(self.role), model=cand.label,
                    cause=cause)
        return IncompleteReplyError(redact_text(said, self.secrets), reason="cut", started=True)

    def _check_end(self, cand: Candidate, log: StreamLog) -> None:
        # A length cut is refused whoever reports it, as invoke refuses it (_tag): a stream
        # is finished only when it says so, and "length" says it was not.
        if log.finish in LENGTH_REASONS:
            raise self._incomplete(cand, "length", started=log.started)
        if log.finish is None and cand.reports_finish:
            raise self._incomplete(cand, "cut", started=log.started)

    # ------------------------------------------------------------------ BaseChatModel
    # Each call kind is a thin shell over one core (aizac.llm.steps): the cores below hold the
    # fallback, retry and end-of-reply logic once; the shells only perform the effects.
    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return run(self._invoke_core(messages, stop, kwargs), self._perform)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return await arun(self._invoke_core(messages, stop, kwargs), self._aperform)

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        steps = Steps(self._stream_core(messages, stop, kwargs))
        for emit in steps.passing(Emit, self._perform):
            yield emit.chunk

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        steps = Steps(self._stream_core(messages, stop, kwargs))
        async for emit in steps.apassing(Emit, self._aperform):
            yield emit.chunk

    # ------------------------------------------------------------------ the shells' effects
    def _perform(self, effect: Effect) -> Any:
        """Do ``effect`` with the sync API (calls and stream openings retried by the policy)."""
        if isinstance(effect, Next):
            return next(effect.parts, END)
        call = effect.call
        if effect.what == "start":
            return iter(call.cand.model.stream(call.msgs, _QUIET, stop=call.stop, **call.kw))
        retrying = Retrying(sleep=self.sleep, **self._policy())
        if effect.what == "invoke":
            return retrying(call.cand.model.invoke, call.msgs, _QUIET, stop=call.stop, **call.kw)
        return retrying(lambda: run(self._open_core(call), self._perform))

    async def _aperform(self, effect: Effect) -> Any:
        """:meth:`_perform` with the async API."""
        if isinstance(effect, Next):
            return await anext(effect.parts, END)
        call = effect.call
        if effect.what == "start":
            return aiter(call.cand.model.astream(call.msgs, _QUIET, stop=call.stop, **call.kw))
        retrying = AsyncRetrying(sleep=self.asleep, **self._policy())
        if effect.what == "invoke":
            return await retrying(call.cand.model.ainvoke, call.msgs, _QUIET, stop=call.stop,
                                  **call.kw)

        async def open_stream() -> Any:  # a coroutine function: tenacity awaits those
            return await arun(self._open_core(call), self._aperform)

        return await retrying(open_stream)

    # ------------------------------------------------------------------ the cores
    def _invoke_core(
        self, messages: list[BaseMessage], stop: list[str] | None, kwargs: dict[str, Any]
    ) -> Generator[Effect, Any, ChatResult]:
        """One reply: each candidate in turn (its call retried by the shell's policy)."""
        fallback = Fallback(self.candidates, messages, kwargs)
        for call in fallback.calls(stop):
            try:
                reply = yield Do("invoke", call)
            except Exception as e:
                error = self._failure(call.cand, e)
                if isinstance(error, IncompleteReplyError):
                    raise error from error.__cause__  # the cause _failure set
                fallback.failed(error)
                continue
            self._tag(reply, call.cand, call.msgs)
            return chat_result(reply)
        raise fallback.error()

    def _stream_core(
        self, messages: list[BaseMessage], stop: list[str] | None, kwargs: dict[str, Any]
    ) -> Generator[Effect | Emit, Any, None]:
        """One streamed reply: a candidate's stream is opened (retried) up to its first token;
        past it, a failure ends the stream (a retry would repeat output)."""
        fallback = Fallback(self.candidates, messages, kwargs)
        for call in fallback.calls(stop):
            try:
                head, parts, log = yield Do("open", call)
            except Exception as e:
                error = self._failure(call.cand, e)
                if isinstance(error, IncompleteReplyError) and error.reason == "length":
                    raise error from error.__cause__  # the cause _failure set
                fallback.failed(error)
                continue
            for chunk in head:
                yield Emit(chunk)
            while (part := (yield from self._next_part(call.cand, parts))) is not END:
                yield Emit(log.add(as_chunk(part)))
            self._check_end(call.cand, log)
            yield Emit(final_chunk(call.cand.label, call.msgs, log))
            return
        raise fallback.error()

    def _next_part(self, cand: Candidate, parts: Any) -> Generator[Effect, Any, Any]:
        try:
            return (yield Next(parts))
        except AizacError:
            raise
        except Exception as e:
            raise self._broken(cand, e) from e

    def _open_core(
        self, call: Call
    ) -> Generator[Effect, Any, tuple[list[ChatGenerationChunk], Any, StreamLog]]:
        """Opens the stream and reads up to its first token: the part a retry may repeat."""
        log, head = StreamLog(), []  # a retry starts from nothing
        parts = yield Do("start", call)
        while not log.started:
            part = yield Next(parts)
            if part is END:
                self._check_empty(call.cand, log)
                break
            head.append(log.add(as_chunk(part)))
        return head, parts, log

    def _check_empty(self, cand: Candidate, log: StreamLog) -> None:
        """A stream that ended before any answer: retryable if it was cut, an error if the
        token limit stopped it, fine if it simply finished empty."""
        if log.finish is None and cand.reports_finish:
            raise _CutBeforeFirstToken()
        if log.finish in LENGTH_REASONS:
            raise self._incomplete(cand, "length", started=False)


_METHODS = {"json_schema": None, "function_calling": "tool", "json_mode": None}
"""LangChain's ``method`` names -> aizac's (``None``: each candidate's own way)."""
_QUIET: RunnableConfig = {"callbacks": []}
"""The config of a candidate's own call: the routed model is the run its caller's callbacks
see (once, with its options); inheriting them, each provider call would report a second
``on_chat_model_start`` without them."""


def model_name(model: Any) -> str:
    """A chat model's model name (``model_name`` or ``model``), or ``""``."""
    for attr in ("model_name", "model"):
        value = getattr(model, attr, None)
        if isinstance(value, str) and value:
            return value
    return ""


class _CutBeforeFirstToken(Exception):
    """A stream ended before its first token without a finish reason (retried)."""


def _retryable(error: BaseException) -> bool:
    if isinstance(error, _CutBeforeFirstToken):
        return True
    return not isinstance(error, AizacError) and is_transient(error)
