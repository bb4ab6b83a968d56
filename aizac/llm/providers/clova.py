"""HyperCLOVA X on CLOVA Studio via ``langchain-naver`` (``CLOVASTUDIO_API_KEY``).

``langchain-naver`` installs cleanly with this stack (it adds only ``httpx-sse``), so aizac uses
its ``ChatClovaX``, which talks to CLOVA Studio's OpenAI-compatible endpoint
(``{AIZAC_CLOVA_BASE_URL}/v1/openai/chat/completions``). Note: importing it patches two
message converters inside ``langchain_openai`` to keep HCX reasoning text; the module is
imported only when a ``clova:`` spec is built.
"""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel

from aizac.llm.providers import key_status, missing_key, require_package
from aizac.llm.specs import ModelSpec
from aizac.settings import Settings
from aizac.text import Text, Verbatim


def clova_endpoint(settings: Settings) -> str:
    """The OpenAI-compatible base URL under the configured CLOVA Studio host."""
    base = settings.clova_base_url.rstrip("/")
    return base if base.endswith("/v1/openai") else base + "/v1/openai"


def build_clova(spec: ModelSpec, settings: Settings, setting: str) -> BaseChatModel:
    """ChatClovaX for ``clova:MODEL`` (e.g. ``clova:HCX-005``)."""
    if settings.clova_api_key is None:
        raise missing_key("CLOVASTUDIO_API_KEY", setting, spec)
    require_package("langchain_naver", "langchain-naver", setting)
    from langchain_naver import ChatClovaX

    return ChatClovaX(
        model=spec.model,
        api_key=settings.clova_api_key,
        base_url=clova_endpoint(settings),
        timeout=settings.request_timeout,
        max_retries=0,
    )


def status(spec: ModelSpec, settings: Settings) -> tuple[bool, Text | Verbatim]:
    """Whether the key is configured (no network I/O)."""
    return key_status("CLOVASTUDIO_API_KEY", settings.clova_api_key is not None)
