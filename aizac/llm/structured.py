"""Structured output for every role: ask with the JSON schema, validate, repair, or fail clearly.

:func:`generate_structured` requests output following a Pydantic model's JSON schema in the way
the model does best (see :mod:`aizac.llm.methods`), parses and validates it, runs the caller's
semantic ``check`` (a callable raising ``ValueError``), and on failure shows the model its bad
output plus the problem and asks again (the small embedded model is asked the original question
with a new seed instead: it copies a repair message into its reply), at most ``retries`` more
times, then raises
:class:`~aizac.errors.StructuredOutputError` whose hint names what can actually help.

Structured replies have their own token budget (``max_tokens``; the router passes
``AIZAC_STRUCTURED_MAX_TOKENS``, applied to the small local model, whose prose budget is much
smaller). A reply cut at the token limit (finish reason ``length``, or JSON that stops mid-way)
is not "invalid JSON": it is asked again with twice the room, up to ``max_tokens_cap``. Every
retry varies the seed on models that take one, so a deterministic failure is not repeated.
Fake chat models that return JSON text (optionally in a ```json fence) work through the
``prompt`` method.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Generator
from typing import Any, Generic, TypedDict, TypeVar, Unpack

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from pydantic import BaseModel, ValidationError

from aizac.errors import IncompleteReplyError, StructuredOutputError
from aizac.llm import instructions
from aizac.llm.methods import (
    STRUCTURED_KWARG,
    apply_plan,
    call_options,
    output_text,
    plan_structured,
)
from aizac.llm.profiles import profile_of
from aizac.llm.replies import LENGTH_REASONS, finish_of
from aizac.llm.steps import arun, run
from aizac.text import Text, Verbatim

M = TypeVar("M", bound=BaseModel)
Check = Callable[[Any], None]
"""A semantic validator: raises ``ValueError`` with a message the model can act on."""
_NAME_CHARS = re.compile(r"[^a-zA-Z0-9_]")
_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
_MAX_ERROR_CHARS = 1500
_Ask = tuple[list[BaseMessage], dict[str, Any]]
"""One attempt's request: the conversation and the call's keyword arguments."""


class _Invalid(Exception):
    """Output that is not JSON or does not validate; ``str()`` is the error in English,
    :meth:`shown` the error to feed back in the prompt's language.

    ``key`` names the fixed line (:data:`aizac.llm.instructions.TEXTS`), ``fields`` fill it and
    ``detail`` follows it as written (validation errors, the check's own message).
    ``cut``: the JSON stops before its end (the reply ran out of tokens)."""

    def __init__(self, key: str, detail: str = "", *, cut: bool = False, **fields: object) -> None:
        self.key, self.detail, self.fields, self.cut = key, detail, fields, cut
        super().__init__(self.shown("en"))

    def shown(self, language: str) -> str:
        return instructions.text(self.key, language).format(**self.fields) + self.detail


def extract_json(text: str) -> Any:
    """The JSON value in ``text``: bare, inside a ```json fence, or the outermost ``{...}``.

    Raises:
        _Invalid: no JSON value could be read.
    """
    candidates = [text.strip()]
    fenced = _FENCE.search(text)
    if fenced:
        candidates.append(fenced.group(1).strip())
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start : end + 1])
    error, cut = _Invalid("empty"), False
    for candidate in candidates:
        if not candidate:
            continue
        try:
            # strict=False accepts raw tabs/newlines inside strings: small models under a JSON
            # grammar emit them, and they carry no ambiguity worth a retry.
            return json.loads(candidate, strict=False)
        except json.JSONDecodeError as e:
            error = _Invalid("not_json", msg=e.msg, line=e.lineno, column=e.colno)
            cut = cut or _stops_midway(text, e)
    error.cut = cut
    raise error


def _stops_midway(text: str, error: json.JSONDecodeError) -> bool:
    """Whether ``text`` is JSON that ends before it closes (a token-limit cut): a string or
    an object/array is still open at the end."""
    body = text.strip()
    if not body.startswith(("{", "[")):
        return False
    depth, in_string, escaped = 0, False, False
    for char in body:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
    return in_string or depth > 0


class SchemaMismatch(ValueError):
    """A value that does not follow a plain JSON schema (:class:`StructuredSchema`)."""


class StructuredSchema:
    """A TypedDict, a JSON-schema dict or a ``pydantic.v1`` model in the shape
    :func:`generate_structured` asks of a Pydantic model (``__name__``, ``model_json_schema``,
    ``model_validate``): a TypedDict is validated by Pydantic, a JSON schema by ``jsonschema``
    (a Chroma dependency), a v1 model by itself; the first two give a plain dict, as
    LangChain's ``with_structured_output`` does for these schemas."""

    def __init__(self, schema: Any) -> None:
        from langchain_core.utils.function_calling import convert_to_json_schema
        from pydantic import TypeAdapter

        self.original = schema
        self._adapter: Any = None
        self._v1 = is_pydantic_v1(schema)
        if self._v1 or isinstance(schema, dict):
            self._json: dict[str, Any] = convert_to_json_schema(schema)
        else:  # a TypedDict
            self._adapter = TypeAdapter(schema)
            self._json = {"title": getattr(schema, "__name__", "Output"),
                          **self._adapter.json_schema()}
        self.__name__ = _NAME_CHARS.sub("_", str(self._json.get("title") or "Output"))

    def model_json_schema(self) -> dict[str, Any]:
        return dict(self._json)

    def model_validate(self, value: Any) -> Any:
        if self._v1:
            try:
                return self.original.parse_obj(value)
            except Exception as e:  # pydantic.v1's ValidationError
                raise SchemaMismatch(str(e)) from e
        if self._adapter is not None:
            return self._adapter.validate_python(value)
        import jsonschema

        try:
            jsonschema.validate(value, self._json)
        except jsonschema.ValidationError as e:
            where = ".".join(str(p) for p in e.absolute_path) or "(root)"
            raise SchemaMismatch(f"- {where}: {e.message}") from e
        return value


def is_pydantic_v1(schema: Any) -> bool:
    """Whether ``schema`` is a ``pydantic.v1`` model class."""
    try:
        from pydantic import v1
    except ImportError:  # pragma: no cover - pydantic 2 ships it
        return False
    return isinstance(schema, type) and issubclass(schema, v1.BaseModel)


def structured_schema(schema: Any) -> Any:
    """``schema`` as :func:`generate_structured` takes it: a Pydantic model class as it is,
    a TypedDict or JSON-schema dict wrapped in :class:`StructuredSchema`."""
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        return schema
    return StructuredSchema(schema)


def parse_output(schema: type[M], text: str, check: Check | None = None) -> M:
    """Parse and validate ``text`` as ``schema``, then run ``check`` on the result.

    Raises:
        _Invalid: with a message suitable to show the model.
    """
    value = extract_json(text)
    try:
        result = schema.model_validate(value)
    except ValidationError as e:
        raise _Invalid("mismatch", _describe(e)) from e
    except SchemaMismatch as e:
        raise _Invalid("mismatch", str(e)) from e
    if check is not None:
        try:
            check(result)
        except ValueError as e:
            raise _Invalid("rejected", str(e)) from e
    return result


def _describe(error: ValidationError) -> str:
    lines = []
    for item in error.errors(include_url=False):
        where = ".".join(str(p) for p in item["loc"]) or "(root)"
        lines.append(f"- {where}: {item['msg']}")
    return "\n".join(lines)


def repair_message(error: str, language: str = "en") -> HumanMessage:
    """The follow-up asking the model to fix its previous reply, in ``language``."""
    return HumanMessage(
        content=instructions.text("repair", language).format(error=error[:_MAX_ERROR_CHARS])
    )


def _as_messages(messages: list[BaseMessage] | str) -> list[BaseMessage]:
    return [HumanMessage(content=messages)] if isinstance(messages, str) else list(messages)


class _Session(Generic[M]):
    """One structured call's attempts: the conversation, token budget, seed and last problem.
    The sync and async loops only send what :meth:`request` says and hand the reply back."""

    def __init__(
        self,
        model: BaseChatModel,
        schema: type[M],
        messages: list[BaseMessage] | str,
        opts: _Options,
    ) -> None:
        self.schema, self.opts = schema, opts
        self.profile = profile_of(model)
        self.budget = opts.max_tokens
        self.attempt = 0
        self.last: Text | None = None  # the last attempt's problem, for the writer
        self.cuts = 0
        json_schema = schema.model_json_schema()
        messages = _as_messages(messages)
        self.language = instructions.prompt_language(messages)
        if self.profile.routed:  # the routed model plans per candidate (primary and fallback)
            self.conversation, self.kwargs = messages, {}
        else:
            plan = plan_structured(model, json_schema, opts.method, self.language)
            self.conversation, self.kwargs = apply_plan(messages, plan), dict(plan.kwargs)
        self.json_schema = json_schema

    def more(self) -> bool:
        return self.attempt <= self.opts.retries

    def request(self) -> _Ask:
        """What to send for the next attempt (with the tracing note of LangChain's
        ``with_structured_output``, which the chat model takes out before the provider)."""
        conversation, kwargs = self._request()
        if self.opts.trace is not None:
            kwargs = {**kwargs, "ls_structured_output_format": self.opts.trace}
        return conversation, kwargs

    def _request(self) -> _Ask:
        wanted: dict[str, Any] = {
            "budget": self.budget,
            "grown": self.cuts > 0,
            # A retry changes the seed: the same seed reproduces the same failure.
            "seed": self.opts.seed + self.attempt if self.attempt else None,
        }
        self.attempt += 1
        if self.profile.routed:
            request = {"schema": self.json_schema, "method": self.opts.method, **wanted}
            return self.conversation, {STRUCTURED_KWARG: request}
        return self.conversation, {**self.kwargs, **call_options(self.profile, wanted)}

    def cut(self) -> None:
        """The reply ran out of tokens: ask again with twice the room (up to the cap)."""
        self.cuts += 1
        room = self.budget or self.opts.base_budget
        self.budget = min(self.opts.max_tokens_cap, room * 2)
        self.last = Text("error.structured.cut", tokens=room)

    def take(self, reply: BaseMessage) -> M | None:
        """The validated result, or ``None`` after preparing the repair for the next attempt."""
        if self.opts.on_reply is not None:
            self.opts.on_reply(reply)
        text = output_text(reply)
        if finish_of(reply) in LENGTH_REASONS:
            self.cut()
            return None
        try:
            return parse_output(self.schema, text, self.opts.check)
        except _Invalid as e:
            if e.cut:
                self.cut()
                return None
            self.last = Text(_PROBLEMS[e.key], detail=Verbatim(e.detail[:_MAX_ERROR_CHARS]),
                             **e.fields)
            if not self.profile.small_local:
                self.conversation = [
                    *self.conversation,
                    AIMessage(content=text),
                    repair_message(e.shown(self.language), self.language),
                ]
            # The small embedded model is asked the original question again with a new seed
            # (:meth:`request`): shown the repair text it copies it into the fields (a Korean
            # plot came back with "앞의 답은 쓸 수 없습니다" in 19 of 23 of them).
            return None

    def failure(self) -> StructuredOutputError:
        last = self.last or Text(_PROBLEMS["empty"], detail="")
        kind = last.key.rsplit(".", 1)[-1]
        hint = Text(_HINTS.get(kind, "hint.structured.other"), budget=self.budget)
        return StructuredOutputError(
            "error.structured.failed", hint=hint, content_rejected=kind == "rejected",
            schema=self.schema.__name__, attempts=self.attempt, last=last)


_PROBLEMS = {"empty": "error.structured.empty", "not_json": "error.structured.not_json",
             "mismatch": "error.structured.mismatch", "rejected": "error.structured.rejected"}
"""What was wrong with a reply (an :class:`_Invalid`'s key), as the writer reads it."""
_HINTS = {"cut": "hint.structured.cut", "rejected": "hint.structured.rejected"}


class StructuredOptions(TypedDict, total=False):
    """The options of one structured call (each explained at :func:`generate_structured`)."""

    retries: int
    method: str | None
    check: Check | None
    max_tokens: int | None
    max_tokens_cap: int | None
    seed: int
    on_reply: Callable[[BaseMessage], None] | None
    trace: dict[str, Any] | None


class _Options:
    def __init__(
        self,
        retries: int = 2,
        method: str | None = None,
        check: Check | None = None,
        max_tokens: int | None = None,
        max_tokens_cap: int | None = None,
        seed: int = 0,
        on_reply: Callable[[BaseMessage], None] | None = None,
        trace: dict[str, Any] | None = None,
    ) -> None:
        self.retries, self.method, self.check, self.seed = retries, method, check, seed
        self.on_reply, self.trace = on_reply, trace
        self.max_tokens = max_tokens
        self.base_budget = max_tokens or DEFAULT_BUDGET
        self.max_tokens_cap = max(max_tokens_cap or 4 * self.base_budget, self.base_budget)


DEFAULT_BUDGET = 1024
"""Room assumed for a cut reply when no budget was set (the provider's default cut it)."""


def generate_structured(
    model: BaseChatModel,
    schema: type[M],
    messages: list[BaseMessage] | str,
    **options: Unpack[StructuredOptions],
) -> M:
    """Ask ``model`` for an instance of ``schema``; repair invalid output up to ``retries`` times.

    Args:
        model: any chat model (a routed model from :class:`~aizac.llm.router.ModelRouter`,
            a provider model, or a LangChain fake).
        schema: the Pydantic model to produce.
        messages: the conversation (or one user prompt).
        **options: (:class:`StructuredOptions`, all optional)
        retries: extra attempts after an invalid or cut reply (``retries + 1`` calls at most;
            default 2).
        method: force ``json_schema``, ``tool``, ``constrained``, ``format`` or ``prompt``.
        check: a semantic validator run on the parsed result; it raises ``ValueError`` with a
            message, which is shown to the model like a schema error (one validator for every
            structured call, e.g. degenerate-output rules).
        max_tokens: the structured token budget (applied to the small local model, and to any
            model once a reply was cut); ``None`` keeps the model's own limit.
        max_tokens_cap: the most room a cut reply is retried with (default 4x the budget).
        seed: retry ``n`` sends ``seed + n`` on models that take a seed (never the first
            attempt's own seed; default 0).
        on_reply: called with every reply (``with_structured_output(include_raw=True)``
            keeps the last one).
        trace: LangChain's ``ls_structured_output_format`` for the call's tracing callbacks.

    Raises:
        StructuredOutputError: still invalid (or cut) after ``retries + 1`` calls.
        ModelError: the provider failed (after its transient retries and any fallback).
    """
    session = _Session(model, schema, messages, _Options(**options))
    return run(_attempts(session), lambda ask: model.invoke(ask[0], **ask[1]))


async def agenerate_structured(
    model: BaseChatModel,
    schema: type[M],
    messages: list[BaseMessage] | str,
    **options: Unpack[StructuredOptions],
) -> M:
    """Async :func:`generate_structured` (same contract)."""
    session = _Session(model, schema, messages, _Options(**options))
    return await arun(_attempts(session), lambda ask: model.ainvoke(ask[0], **ask[1]))


def _attempts(session: _Session[M]) -> Generator[_Ask, BaseMessage, M]:
    """The attempts of one structured call, written once (:mod:`aizac.llm.steps`): yields what
    to send, gets the reply back; a reply cut at the token limit is asked again with more room,
    an invalid one with the problem shown."""
    while session.more():
        ask = session.request()
        try:
            reply = yield ask
        except IncompleteReplyError as e:
            if e.reason != "length":
                raise
            session.cut()
            continue
        result = session.take(reply)
        if result is not None:
            return result
    raise session.failure()
