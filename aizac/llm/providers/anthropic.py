"""Anthropic via langchain-anthropic (``ANTHROPIC_API_KEY``, optional ``ANTHROPIC_BASE_URL``)."""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel

from aizac.llm.providers import key_status, missing_key, require_package
from aizac.llm.specs import ModelSpec
from aizac.settings import Settings
from aizac.text import Text, Verbatim


def build_anthropic(spec: ModelSpec, settings: Settings, setting: str) -> BaseChatModel:
    """ChatAnthropic for ``anthropic:MODEL`` (SDK retries off; aizac retries)."""
    if settings.anthropic_api_key is None:
        raise missing_key("ANTHROPIC_API_KEY", setting, spec)
    require_package("langchain_anthropic", "langchain-anthropic", setting)
    from langchain_anthropic import ChatAnthropic

    return ChatAnthropic(  # type: ignore[call-arg]
        model=spec.model,
        api_key=settings.anthropic_api_key,
        base_url=settings.anthropic_base_url,
        timeout=settings.request_timeout,
        max_retries=0,
    )


def status(spec: ModelSpec, settings: Settings) -> tuple[bool, Text | Verbatim]:
    """Whether the key is configured (no network I/O)."""
    return key_status("ANTHROPIC_API_KEY", settings.anthropic_api_key is not None)
