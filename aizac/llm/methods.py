"""How each kind of chat model is asked for JSON that follows a schema (pure).

=============  ====================================================  ==========================
method         request                                               used for
=============  ====================================================  ==========================
json_object    ``response_format={"type": "json_object"}``, the       OpenAI, compatible, Ollama
               schema as a type outline in the system message
json_schema    ``response_format={"type": "json_schema", ...}``      CLOVA
tool           one forced tool whose input schema is the schema      Anthropic
constrained    ``response_format={"type": "json_object", schema}``   the local llama.cpp model
format         ``format=<schema>`` (Ollama's native API)             ChatOllama
prompt         the schema in a system message, JSON read from text   anything else (fakes too)
=============  ====================================================  ==========================

``json_object`` sends the schema's outline (:mod:`aizac.llm.schema_shape`) instead of the
schema: about a quarter of its tokens, for what the non-strict ``json_schema`` request gave
those models anyway (the schema as guidance; the reply is validated on our side either way).
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage

from aizac.llm import instructions
from aizac.llm.grammar import wire_strings
from aizac.llm.profiles import ModelProfile, profile_of
from aizac.llm.schema_shape import schema_shape
from aizac.llm.wire_schema import (
    compact_schema,
    share_definitions,
    small_bounds,
    tighten_schema,
)

METHODS: tuple[str, ...] = (
    "json_object", "json_schema", "tool", "constrained", "format", "prompt"
)
# Name of the provider-neutral kwarg carrying a structured request through a routed model.
STRUCTURED_KWARG = "aizac_structured"
_NAME_CHARS = re.compile(r"[^a-zA-Z0-9_-]")


@dataclass(frozen=True)
class StructuredPlan:
    """What to send for one structured call: the method, extra kwargs, an optional system note
    (in English; :meth:`note` gives it in the prompt's language)."""

    method: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    system_note: str | None = None
    schema: dict[str, Any] | None = None

    def note(self, language: str, explained: frozenset[str] = frozenset()) -> str | None:
        """The system note in ``language`` (``ko``, ``zh``; English otherwise); an outline
        leaves out the comments of the fields named in ``explained`` (the prompt's words)."""
        if self.system_note is None:
            return None
        if self.method == "constrained":
            return instructions.text("constrained", language)
        if self.method == "prompt" and self.schema is not None:
            return schema_instruction(self.schema, language)
        if self.method == "json_object" and self.schema is not None:
            return shape_instruction(self.schema, language, explained)
        return self.system_note


def schema_name(title: str) -> str:
    """A tool / response-format name providers accept (``[a-zA-Z0-9_-]{1,64}``)."""
    return (_NAME_CHARS.sub("_", title) or "Output")[:64]


# Under constrained decoding the grammar enforces the schema; a small model shown the schema text
# copies pieces of it ("#/$defs", "maxLength:240", "DialogueLine") into the values.
CONSTRAINED_NOTE = instructions.text("constrained", "en")


def schema_instruction(schema: dict[str, Any], language: str = "en") -> str:
    """The system note asking for JSON that validates against ``schema``, in ``language``."""
    return instructions.text("schema", language) + json.dumps(
        schema, ensure_ascii=False, separators=(",", ":")
    )


def shape_instruction(schema: dict[str, Any], language: str = "en",
                      explained: frozenset[str] = frozenset()) -> str:
    """The system note asking for JSON of ``schema``'s outline, in ``language``: the
    instruction, then ``type <Name> = <outline>`` (the name is the one a ``json_schema``
    request or a tool would carry). A field named in ``explained`` (the prompt explains it
    already: "aspect is the part that changed: ...") has no comment in the outline."""
    return instructions.text("shape", language) + _shape_text(
        json.dumps(schema, ensure_ascii=False), explained)


@functools.lru_cache(maxsize=256)
def _shape_text(schema_text: str, explained: frozenset[str]) -> str:
    # the same few schemas and prompts go with every beat: outlined once each
    schema = json.loads(schema_text)
    return schema_shape(schema, schema_name(str(schema.get("title", "Output"))), explained)


_FIELD_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


def prompt_fields(messages: list[BaseMessage]) -> frozenset[str]:
    """The words of ``messages`` that could name a schema field (Latin identifiers): the
    fields the prompt itself speaks of."""
    return frozenset(w for m in messages for w in _FIELD_WORD.findall(m.text))


@functools.lru_cache(maxsize=64)
def _shared_text(schema_text: str) -> str:
    return json.dumps(share_definitions(json.loads(schema_text)), ensure_ascii=False)


def _shared(schema_text: str) -> dict[str, Any]:
    """:func:`share_definitions` of the schema in ``schema_text``, worked out once per schema
    (the same few schemas go with every beat), a fresh copy each call."""
    out: dict[str, Any] = json.loads(_shared_text(schema_text))
    return out


def default_method(model: BaseChatModel) -> str:
    """The best structured-output method ``model`` supports (its declared profile)."""
    return profile_of(model).structured_method


def plan_structured(
    model: BaseChatModel,
    schema: dict[str, Any],
    method: str | None = None,
    language: str = "en",
) -> StructuredPlan:
    """How to ask ``model`` for output following ``schema`` (a JSON schema dict); ``language``
    is the prompt's (the small local model's bounds depend on it: a Hangul character costs it
    about nine times the tokens of an English one)."""
    chosen = method or default_method(model)
    name = schema_name(str(schema.get("title", "Output")))
    description = str(schema.get("description") or f"Record the {name} result.")
    schema = compact_schema(schema)  # the wire copy; replies are validated on the full one
    small = profile_of(model).small_local
    if small:  # short replies: it fills every bound it is given
        share, items = small_bounds(language)
        schema = tighten_schema(schema, length_share=share, max_items=items)
    # The small model's strings get their language's patterns (names are names, no digits or
    # label echo: aizac.llm.grammar); every other model gets the schema without the marks.
    schema = wire_strings(schema, language, small=small)
    if not small and chosen in ("json_schema", "tool"):  # API models: billed per character
        schema = _shared(json.dumps(schema, ensure_ascii=False))
    if chosen == "json_object":
        return StructuredPlan(
            chosen,
            {"response_format": {"type": "json_object"}},
            shape_instruction(schema),
            schema,
        )
    if chosen == "json_schema":
        return StructuredPlan(
            chosen,
            {
                "response_format": {
                    "type": "json_schema",
                    "json_schema": {"name": name, "schema": schema, "strict": False},
                }
            },
        )
    if chosen == "tool":
        tool = {
            "name": name,
            "description": description,
            "input_schema": schema,
        }
        if profile_of(model).provider == "anthropic":  # Anthropic's own tool format
            kwargs: dict[str, Any] = {
                "tools": [tool],
                "tool_choice": {"type": "tool", "name": name},
            }
        else:
            binding: Any = model.bind_tools(
                [{"name": name, "description": tool["description"], "parameters": schema}],
                tool_choice=name,
            )
            kwargs = dict(binding.kwargs)
        return StructuredPlan(chosen, kwargs)
    if chosen == "constrained":
        return StructuredPlan(
            chosen,
            {"response_format": {"type": "json_object", "schema": schema}},
            CONSTRAINED_NOTE,
        )
    if chosen == "format":
        return StructuredPlan(chosen, {"format": schema})
    if chosen == "prompt":
        return StructuredPlan(chosen, {}, schema_instruction(schema), schema)
    raise ValueError(f"unknown structured-output method {chosen!r}; use one of {METHODS}")


def apply_plan(
    messages: list[BaseMessage], plan: StructuredPlan, language: str | None = None
) -> list[BaseMessage]:
    """``messages`` with the plan's system note merged into (or put before) the first one.

    The note is written in ``language``, by default the language of ``messages`` themselves
    (:func:`aizac.llm.instructions.prompt_language`): a Korean prompt gets a Korean note."""
    note = plan.note(language or instructions.prompt_language(messages),
                     prompt_fields(messages) if plan.method == "json_object" else frozenset())
    if note is None:
        return list(messages)
    if messages and isinstance(messages[0], SystemMessage):
        merged = SystemMessage(content=f"{messages[0].text}\n\n{note}")
        return [merged, *messages[1:]]
    return [SystemMessage(content=note), *messages]


def output_text(message: BaseMessage) -> str:
    """The structured payload of a reply: the first tool call's arguments, else the text."""
    if isinstance(message, AIMessage) and message.tool_calls:
        return json.dumps(message.tool_calls[0]["args"], ensure_ascii=False)
    return message.text


def call_options(profile: ModelProfile, wanted: dict[str, Any]) -> dict[str, Any]:
    """The call kwargs a structured attempt sends to a model with ``profile``.

    ``wanted`` holds ``budget`` (the structured token budget, or ``None``), ``grown`` (the
    budget was raised after a cut reply, so it applies to every model) and ``seed`` (``None``
    on a first attempt). The budget goes to the small local model (whose default is sized for
    prose) or, once grown, to any model; the seed only to models that take one.
    """
    options: dict[str, Any] = {}
    budget = wanted.get("budget")
    if budget is not None and (profile.small_local or wanted.get("grown")):
        options["max_tokens"] = int(budget)
    if wanted.get("seed") is not None and profile.accepts_seed:
        options["seed"] = int(wanted["seed"])
    return options
