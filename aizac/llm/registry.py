"""The provider table: one row per spec prefix (pure; imports no provider SDK).

A row names the provider's builder and status functions (``"module:function"``, imported only
when used, so start-up stays cheap), declares the :class:`~aizac.llm.profiles.ModelProfile` of
the models it builds, the chat-model class it builds (to recognise instances made directly), and
the form of its spec. Adding a provider is one module defining ``build(spec, settings, setting)``
and ``status(spec, settings)`` plus one row here.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Literal

from aizac.llm.profiles import ModelProfile

SpecForm = Literal["model", "optional", "url"]


@dataclass(frozen=True)
class ProviderRow:
    """One provider.

    Attributes:
        name: the spec prefix (``openai`` in ``openai:gpt-4o``).
        builder: ``"module:function"`` building its chat model (no network I/O).
        status: ``"module:function"`` answering ``(usable, reason)`` from settings alone.
        profile: what its models can do.
        model_type: ``"module:Class"`` of the chat model it builds.
        form: ``model`` (``NAME:MODEL``), ``optional`` (``NAME`` or ``NAME:MODEL``), ``url``
            (``NAME:URL:MODEL``).
        example: a spec shown in error hints.
    """

    name: str
    builder: str
    status: str
    profile: ModelProfile
    model_type: str | None = None
    form: SpecForm = "model"
    example: str = ""


_OPENAI_TYPE = "langchain_openai.chat_models.base:BaseChatOpenAI"
_API: dict[str, Any] = {"streams": True, "reports_finish": True, "combined_extraction_ok": True}

ROWS: tuple[ProviderRow, ...] = (
    ProviderRow(
        "local",
        "aizac.llm.providers.local:build_local",
        "aizac.llm.providers:local_status",
        ModelProfile(
            "local",
            "constrained",
            small_local=True,
            combined_extraction_ok=False,
            accepts_seed=True,
            # SmolLM2-135M is English-first: its Korean and Chinese are not usable text (the
            # only multilingual GGUF on the indexes, Gemma-3-270M base, is no better).
            writes=("en",),
            reports_finish=True,  # llama.cpp ends every reply and stream with a finish reason
        ),
        "aizac.llm.providers.local:ChatLocalLlama",
        "optional",
        "local",
    ),
    ProviderRow(
        "openai",
        "aizac.llm.providers.openai:build_openai",
        "aizac.llm.providers.openai:status",
        ModelProfile("openai", "json_object", needs_key=True, accepts_seed=True, **_API),
        _OPENAI_TYPE,
        example="openai:gpt-4o",
    ),
    ProviderRow(
        "anthropic",
        "aizac.llm.providers.anthropic:build_anthropic",
        "aizac.llm.providers.anthropic:status",
        ModelProfile("anthropic", "tool", needs_key=True, **_API),
        "langchain_anthropic.chat_models:ChatAnthropic",
        example="anthropic:claude-sonnet-4-5",
    ),
    ProviderRow(
        "clova",
        "aizac.llm.providers.clova:build_clova",
        "aizac.llm.providers.clova:status",
        ModelProfile("clova", "json_schema", needs_key=True, **_API),
        "langchain_naver.chat_models:ChatClovaX",
        example="clova:HCX-005",
    ),
    ProviderRow(
        "ollama",
        "aizac.llm.providers.openai:build_openai",
        "aizac.llm.providers.openai:status",
        ModelProfile("ollama", "json_object", accepts_seed=True, **_API),
        example="ollama:qwen2.5:7b",
    ),
    ProviderRow(
        "openai-compatible",
        "aizac.llm.providers.openai:build_openai",
        "aizac.llm.providers.openai:status",
        ModelProfile("openai-compatible", "json_object", accepts_seed=True, **_API),
        form="url",
        example="openai-compatible:http://host:port/v1:model",
    ),
)

# Chat models recognised when built directly (not through a spec), most specific class first.
TYPES: tuple[tuple[str, ModelProfile], ...] = (
    *((r.model_type, r.profile) for r in ROWS if r.model_type and r.name != "openai"),
    ("langchain_ollama.chat_models:ChatOllama", ModelProfile("ollama", "format")),
    (_OPENAI_TYPE, ROWS[1].profile),
)


def row(name: str) -> ProviderRow | None:
    """The row for spec prefix ``name``, if any."""
    return next((r for r in ROWS if r.name == name), None)


def names() -> tuple[str, ...]:
    """Every spec prefix."""
    return tuple(r.name for r in ROWS)


def examples() -> str:
    """One example spec per provider, for hints."""
    return ", ".join(r.example for r in ROWS if r.example)


def load(path: str) -> Any:
    """The object at ``"module:name"`` (imports the module on first use)."""
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)
