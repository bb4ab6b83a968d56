"""Image model specs -> :class:`~aizac.llm.specs.ModelSpec` (pure)::

    typographic                                   the offline default (Pillow, set in type)
    openai:gpt-image-1                            OpenAI's images API (or OPENAI_BASE_URL)
    openai-compatible:http://host:8000/v1:model   any OpenAI-compatible images endpoint
    sdwebui:http://127.0.0.1:7860                 Stable Diffusion WebUI (its loaded checkpoint)
    sdwebui:http://127.0.0.1:7860:model.safetensors   ... with this checkpoint
    comfyui:http://127.0.0.1:8188:model.safetensors   ComfyUI with this checkpoint
"""

from __future__ import annotations

import re

from aizac.errors import ConfigError
from aizac.llm.images import registry
from aizac.llm.specs import ModelSpec, setting_env_name

_URL_MODEL = re.compile(r"^(?P<url>https?://[^/\s]+(?:/[^\s]*?)?):(?P<model>[^/\s:][^\s]*)$")
_URL = re.compile(r"^https?://[^/\s]+(?:/[^\s]*)?$")
_PORT_LIKE = re.compile(r"^\d+(/|$)")


def parse_image_spec(spec: str, setting_name: str = "image_model") -> ModelSpec:
    """Parse an image spec; errors name ``setting_name`` (``AIZAC_IMAGE_MODEL``).

    Raises:
        ConfigError: an unknown provider, or a spec not in its provider's form.
    """
    env = setting_env_name(setting_name)
    text = (spec or "").strip()
    provider, _, rest = text.partition(":")
    provider, rest = provider.strip().lower(), rest.strip()
    row = registry.row(provider)
    if row is None:
        raise ConfigError("error.image.spec_provider", env=env, spec=text, provider=provider,
                          examples=registry.examples())
    if row.form == "none":
        return ModelSpec(provider, "")
    if row.form == "model":
        if not rest:
            raise ConfigError("error.image.spec_form", env=env, spec=text, example=row.example)
        return ModelSpec(provider, rest)
    match = _URL_MODEL.match(rest)
    if match is not None and not _PORT_LIKE.match(match["model"]):
        return ModelSpec(provider, match["model"], match["url"].rstrip("/"))
    if row.form == "url_optional" and _URL.match(rest):
        return ModelSpec(provider, "", rest.rstrip("/"))
    raise ConfigError("error.image.spec_form", env=env, spec=text, example=row.example)


def spec_label(spec: ModelSpec) -> str:
    """The spec as written (``sdwebui:http://h:7860`` has no model part)."""
    if spec.base_url is not None and not spec.model:
        return f"{spec.provider}:{spec.base_url}"
    return str(spec)


__all__ = ["parse_image_spec", "spec_label"]
