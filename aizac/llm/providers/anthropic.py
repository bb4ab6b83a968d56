"""Anthropic via langchain-anthropic (``ANTHROPIC_API_KEY``, optional ``ANTHROPIC_BASE_URL``).

Every request marks a prompt-cache breakpoint (``cache_control``) on the last block of the
system prompt: Anthropic caches the prefix up to a breakpoint (tools, that is a structured
call's schema, then the system prompt), the part of aizac's prompts that does not change from
one call of a role to the next; what changes (the notes, the beat, the prose) comes after it.
A prefix shorter than the model's minimum (1,024 tokens on most models) is simply not cached.
"""

from __future__ import annotations

from typing import Any

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
    return _cached_chat_anthropic()(  # type: ignore[call-arg]
        model=spec.model,
        api_key=settings.anthropic_api_key,
        base_url=settings.anthropic_base_url,
        timeout=settings.request_timeout,
        max_retries=0,
    )


BREAKPOINT = {"type": "ephemeral"}
"""The cache mark on the stable prefix (Anthropic's 5-minute cache)."""


def mark_stable_prefix(payload: dict[str, Any]) -> dict[str, Any]:
    """``payload`` (a Messages API request body) with a cache breakpoint on the last system
    block (pure; a payload without a system prompt is returned as it is)."""
    system = payload.get("system")
    if not system:
        return payload
    blocks: list[dict[str, Any]] = (
        [{"type": "text", "text": system}] if isinstance(system, str) else [dict(b) for b in system]
    )
    blocks[-1] = {**blocks[-1], "cache_control": dict(BREAKPOINT)}
    return {**payload, "system": blocks}


def _cached_chat_anthropic() -> type[BaseChatModel]:
    """ChatAnthropic whose requests carry the breakpoint of :func:`mark_stable_prefix`
    (defined on first use: langchain-anthropic is an optional dependency)."""
    global _CACHED
    if _CACHED is None:
        from langchain_anthropic import ChatAnthropic

        class CachedChatAnthropic(ChatAnthropic):
            """ChatAnthropic with a prompt-cache breakpoint on the system prompt."""

            def _get_request_payload(self, input_: Any, *, stop: list[str] | None = None,
                                     **kwargs: Any) -> dict[str, Any]:
                payload = super()._get_request_payload(input_, stop=stop, **kwargs)
                return mark_stable_prefix(payload)

        _CACHED = CachedChatAnthropic
    return _CACHED


_CACHED: type[BaseChatModel] | None = None


def status(spec: ModelSpec, settings: Settings) -> tuple[bool, Text | Verbatim]:
    """Whether the key is configured (no network I/O)."""
    return key_status("ANTHROPIC_API_KEY", settings.anthropic_api_key is not None)
