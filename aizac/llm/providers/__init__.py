"""One builder per provider: ``(ModelSpec, Settings, setting) -> BaseChatModel``.

Builders only construct clients (no network I/O); :func:`check_usable` answers "could this
spec run now?" for ``aizac models`` from settings and installed packages alone.
"""

from __future__ import annotations

from collections.abc import Callable

from langchain_core.language_models import BaseChatModel

from aizac.errors import ConfigError
from aizac.llm.specs import ModelSpec
from aizac.settings import Settings

Builder = Callable[[ModelSpec, Settings, str], BaseChatModel]


def build_chat_model(spec: ModelSpec, settings: Settings, setting: str) -> BaseChatModel:
    """Build the chat model for ``spec``; ``setting`` (e.g. ``AIZAC_PLANNER_MODEL``) is named in
    errors.

    Raises:
        ConfigError: a key is missing or the provider's package is not installed.
    """
    if spec.provider == "local":
        from aizac.llm.providers.local import build_local

        return build_local(spec, settings, setting)
    if spec.provider in ("openai", "openai-compatible", "ollama"):
        from aizac.llm.providers.openai import build_openai

        return build_openai(spec, settings, setting)
    if spec.provider == "anthropic":
        from aizac.llm.providers.anthropic import build_anthropic

        return build_anthropic(spec, settings, setting)
    if spec.provider == "clova":
        from aizac.llm.providers.clova import build_clova

        return build_clova(spec, settings, setting)
    raise ConfigError(f"{setting}: provider {spec.provider!r} has no builder.")


def check_usable(spec: ModelSpec, settings: Settings) -> tuple[bool, str]:
    """``(usable, reason)`` for ``spec`` without network I/O or loading a model."""
    if spec.provider == "local":
        from aizac.llm.providers.local import local_status

        return local_status(settings)
    if spec.provider == "openai":
        if settings.openai_api_key is not None:
            return True, "OPENAI_API_KEY is set"
        if settings.openai_base_url:
            return True, f"OPENAI_BASE_URL={settings.openai_base_url} (no key)"
        return False, "OPENAI_API_KEY is not set"
    if spec.provider == "openai-compatible":
        return True, f"server {spec.base_url} (reachability not checked)"
    if spec.provider == "ollama":
        return True, f"server {settings.ollama_base_url} (reachability not checked)"
    if spec.provider == "anthropic":
        if settings.anthropic_api_key is not None:
            return True, "ANTHROPIC_API_KEY is set"
        return False, "ANTHROPIC_API_KEY is not set"
    if spec.provider == "clova":
        if settings.clova_api_key is not None:
            return True, "CLOVASTUDIO_API_KEY is set"
        return False, "CLOVASTUDIO_API_KEY is not set"
    return False, f"unknown provider {spec.provider!r}"


def missing_key(env: str, setting: str, spec: ModelSpec) -> ConfigError:
    """The error for a provider key that is not configured."""
    return ConfigError(
        f"{env} is not set, but {setting}={spec} needs it.",
        hint=f"Export {env} (or put it in .env), or point {setting} at another model, "
        "e.g. 'local'.",
    )


def require_package(module: str, package: str, setting: str) -> None:
    """Raise a ConfigError naming the pip package if ``module`` is not importable."""
    import importlib.util

    if importlib.util.find_spec(module) is None:
        raise ConfigError(
            f"{setting} needs the Python package {package!r}, which is not installed.",
            hint=f"pip install {package}",
        )
