"""OpenAI and every server that speaks its chat-completions API (openai-compatible, Ollama /v1).

Retries are done by aizac's resilient wrapper (one retry layer with an injectable backoff), so
the SDK's own retries are switched off (``max_retries=0``).
"""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel
from pydantic import SecretStr

from aizac.llm.providers import missing_key, require_package
from aizac.llm.specs import ModelSpec
from aizac.settings import Settings
from aizac.text import Text

# Servers that need no key still require the client to send one.
_NO_KEY = SecretStr("not-needed")


def build_openai(spec: ModelSpec, settings: Settings, setting: str) -> BaseChatModel:
    """ChatOpenAI for ``openai:``, ``openai-compatible:`` and ``ollama:`` specs."""
    require_package("langchain_openai", "langchain-openai", setting)
    from langchain_openai import ChatOpenAI

    if spec.provider == "openai":
        base_url = settings.openai_base_url
        key = settings.openai_api_key
        if key is None and base_url is None:
            raise missing_key("OPENAI_API_KEY", setting, spec)
        stream_usage = base_url is None
    elif spec.provider == "ollama":
        base_url = settings.ollama_base_url.rstrip("/") + "/v1"
        key, stream_usage = None, True
    else:  # openai-compatible: never send the OpenAI key to a third-party server
        base_url = spec.base_url
        key, stream_usage = settings.openai_compatible_api_key, False
    return ChatOpenAI(
        model=spec.model,
        api_key=key or _NO_KEY,
        base_url=base_url,
        timeout=settings.request_timeout,
        max_retries=0,
        stream_usage=stream_usage,
        use_responses_api=False,
    )


def status(spec: ModelSpec, settings: Settings) -> tuple[bool, Text]:
    """Whether an ``openai``/``openai-compatible``/``ollama`` spec could run (no network I/O)."""
    if spec.provider == "openai-compatible":
        return True, Text("model.status.server", url=spec.base_url)
    if spec.provider == "ollama":
        return True, Text("model.status.server", url=settings.ollama_base_url)
    if settings.openai_api_key is not None:
        return True, Text("model.status.key_set", env="OPENAI_API_KEY")
    if settings.openai_base_url:
        return True, Text("model.status.base_url", url=settings.openai_base_url)
    return False, Text("model.status.key_missing", env="OPENAI_API_KEY")
