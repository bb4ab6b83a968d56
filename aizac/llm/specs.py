"""Model spec strings -> :class:`ModelSpec` (pure; no imports of provider SDKs).

A spec names a provider and a model::

    local                                   the embedded SmolLM2 (offline default)
    openai:gpt-4o                           OpenAI (or OPENAI_BASE_URL)
    anthropic:claude-sonnet-4-5             Anthropic
    clova:HCX-005                           HyperCLOVA X on CLOVA Studio
    ollama:qwen2.5:7b                       Ollama (model names may contain ':')
    openai-compatible:http://host:8000/v1:my-model   any OpenAI-compatible server
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from aizac.errors import ConfigError
from aizac.llm import registry

PROVIDERS: tuple[str, ...] = registry.names()
_EXAMPLES = registry.examples()
# scheme://host[:port][/path] followed by ":model"; the model is the part after the last ':'
# that is not a port (ports are all digits and come before the first '/').
_COMPAT = re.compile(r"^(?P<url>https?://[^/\s]+(?:/[^\s]*?)?):(?P<model>[^/\s:][^\s]*)$")

_PORT_LIKE = re.compile(r"^\d+(/|$)")  # "8000/v1" is a port and a path, not a model


@dataclass(frozen=True)
class ModelSpec:
    """A parsed model spec.

    Attributes:
        provider: one of :data:`PROVIDERS`.
        model: the provider's model name ("" for ``local``, which may use a configured path).
        base_url: the server URL for ``openai-compatible``; ``None`` means the provider default
            (from settings).
    """

    provider: str
    model: str
    base_url: str | None = None

    def __str__(self) -> str:
        if not self.model:
            return self.provider
        if self.base_url is not None:
            return f"{self.provider}:{self.base_url}:{self.model}"
        return f"{self.provider}:{self.model}"


def setting_env_name(setting_name: str) -> str:
    """``planner_model`` -> ``AIZAC_PLANNER_MODEL`` (already upper-case names pass through)."""
    return setting_name if setting_name.isupper() else f"AIZAC_{setting_name.upper()}"


def parse_spec(spec: str, setting_name: str) -> ModelSpec:
    """Parse ``spec``; errors name ``setting_name`` (e.g. ``AIZAC_PLANNER_MODEL``).

    Raises:
        ConfigError: the provider is unknown or the model part is missing or malformed.
    """
    env = setting_env_name(setting_name)
    text = (spec or "").strip()
    if not text:
        raise ConfigError("error.model.spec_empty", env=env, examples=_EXAMPLES)
    provider, _, rest = text.partition(":")
    provider = provider.strip().lower()
    rest = rest.strip()
    row = registry.row(provider)
    if row is None:
        raise ConfigError("error.model.spec_provider", env=env, spec=text, provider=provider,
                          examples=_EXAMPLES)
    if row.form == "optional":
        return ModelSpec(provider, rest)
    if not rest:
        raise ConfigError("error.model.spec_no_model", env=env, spec=text, provider=provider)
    if row.form == "url":
        match = _COMPAT.match(rest)
        if match is None or _PORT_LIKE.match(match["model"]):
            raise ConfigError("error.model.spec_url", env=env, spec=text, provider=provider)
        return ModelSpec(provider, match["model"], match["url"].rstrip("/"))
    return ModelSpec(provider, rest)
