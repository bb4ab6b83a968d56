"""Structured output for every role: ask with the JSON schema, validate, repair, or fail clearly.

:func:`generate_structured` requests output following a Pydantic model's JSON schema in the way
the model does best (see :mod:`aizac.llm.methods`), parses and validates it, and on failure shows
the model its bad output plus the validation error and asks again, at most ``retries`` more
times, then raises :class:`~aizac.errors.StructuredOutputError`. Fake chat models that return
JSON text (optionally in a ```json fence) work through the ``prompt`` method.
"""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from pydantic import BaseModel, ValidationError

from aizac.errors import StructuredOutputError
from aizac.llm.methods import STRUCTURED_KWARG, apply_plan, output_text, plan_structured
from aizac.llm.profiles import profile_of

M = TypeVar("M", bound=BaseModel)
_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
_MAX_ERROR_CHARS = 1500


class _Invalid(Exception):
    """Output that is not JSON or does not validate; ``str()`` is the error to feed back."""


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
    error = "the reply is empty"
    for candidate in candidates:
        if not candidate:
            continue
        try:
            # strict=False accepts raw tabs/newlines inside strings: small models under a JSON
            # grammar emit them, and they carry no ambiguity worth a retry.
            return json.loads(candidate, strict=False)
        except json.JSONDecodeError as e:
            error = f"the reply is not valid JSON ({e.msg} at line {e.lineno} column {e.colno})"
    raise _Invalid(error)


def parse_output(schema: type[M], text: str) -> M:
    """Parse and validate ``text`` as ``schema``.

    Raises:
        _Invalid: with a message suitable to show the model.
    """
    value = extract_json(text)
    try:
        return schema.model_validate(value)
    except ValidationError as e:
        raise _Invalid(_describe(e)) from e


def _describe(error: ValidationError) -> str:
    lines = []
    for item in error.errors(include_url=False):
        where = ".".join(str(p) for p in item["loc"]) or "(root)"
        lines.append(f"- {where}: {item['msg']}")
    return "the JSON does not match the schema:\n" + "\n".join(lines)


def repair_message(error: str) -> HumanMessage:
    """The follow-up asking the model to fix its previous reply."""
    return HumanMessage(
        content=(
            f"Your previous reply was rejected because {error[:_MAX_ERROR_CHARS]}\n"
            "Reply again with only the corrected JSON object that follows the schema."
        )
    )


def _as_messages(messages: list[BaseMessage] | str) -> list[BaseMessage]:
    return [HumanMessage(content=messages)] if isinstance(messages, str) else list(messages)


def _prepare(
    model: BaseChatModel, schema: type[BaseModel], messages: list[BaseMessage], method: str | None
) -> tuple[list[BaseMessage], dict[str, Any]]:
    json_schema = schema.model_json_schema()
    if profile_of(model).routed:
        # The routed model plans per candidate (primary and fallback may differ).
        return messages, {STRUCTURED_KWARG: {"schema": json_schema, "method": method}}
    plan = plan_structured(model, json_schema, method)
    return apply_plan(messages, plan), dict(plan.kwargs)


def _failure(schema: type[BaseModel], attempts: int, error: str) -> StructuredOutputError:
    return StructuredOutputError(
        f"The model's output did not match {schema.__name__} after {attempts} attempt"
        f"{'s' if attempts != 1 else ''}; last problem: {error[:_MAX_ERROR_CHARS]}"
    )


def generate_structured(
    model: BaseChatModel,
    schema: type[M],
    messages: list[BaseMessage] | str,
    *,
    retries: int = 2,
    method: str | None = None,
) -> M:
    """Ask ``model`` for an instance of ``schema``; repair invalid output up to ``retries`` times.

    Args:
        model: any chat model (a routed model from :class:`~aizac.llm.router.ModelRouter`,
            a provider model, or a LangChain fake).
        schema: the Pydantic model to produce.
        messages: the conversation (or one user prompt).
        retries: extra attempts after an invalid reply (``retries + 1`` calls at most).
        method: force ``json_schema``, ``tool``, ``constrained``, ``format`` or ``prompt``.

    Raises:
        StructuredOutputError: still invalid after ``retries + 1`` calls.
        ModelError: the provider failed (after its transient retries and any fallback).
    """
    conversation, kwargs = _prepare(model, schema, _as_messages(messages), method)
    last = ""
    for _ in range(retries + 1):
        reply = model.invoke(conversation, **kwargs)
        text = output_text(reply)
        try:
            return parse_output(schema, text)
        except _Invalid as e:
            last = str(e)
            conversation = [*conversation, AIMessage(content=text), repair_message(last)]
    raise _failure(schema, retries + 1, last)


async def agenerate_structured(
    model: BaseChatModel,
    schema: type[M],
    messages: list[BaseMessage] | str,
    *,
    retries: int = 2,
    method: str | None = None,
) -> M:
    """Async :func:`generate_structured` (same contract)."""
    conversation, kwargs = _prepare(model, schema, _as_messages(messages), method)
    last = ""
    for _ in range(retries + 1):
        reply = await model.ainvoke(conversation, **kwargs)
        text = output_text(reply)
        try:
            return parse_output(schema, text)
        except _Invalid as e:
            last = str(e)
            conversation = [*conversation, AIMessage(content=text), repair_message(last)]
    raise _failure(schema, retries + 1, last)
