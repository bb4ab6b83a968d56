"""Building the image role's model from its spec, and whether it could run (no network I/O)."""

from __future__ import annotations

from aizac.errors import ConfigError
from aizac.llm import registry as chat_registry
from aizac.llm.images import registry
from aizac.llm.images.base import ImageModel
from aizac.llm.specs import ModelSpec
from aizac.settings import Settings
from aizac.text import Text

SETTING = "AIZAC_IMAGE_MODEL"


def build_image_model(spec: ModelSpec, settings: Settings, setting: str = SETTING) -> ImageModel:
    """The client of ``spec`` (a ConfigError names ``setting`` when it cannot be built)."""
    row = registry.row(spec.provider)
    if row is None:  # parse_image_spec admits only known providers
        raise ConfigError("error.image.unknown_provider", provider=spec.provider, setting=setting)
    model: ImageModel = chat_registry.load(row.builder)(spec, settings, setting)
    return model


def image_status(spec: ModelSpec, settings: Settings) -> tuple[bool, Text]:
    """``(usable, reason)`` of an image spec from settings alone."""
    if spec.provider == "typographic":
        from aizac.llm.images.typographic import find_font

        if settings.cover_font is not None:
            return settings.cover_font.is_file(), Text("model.status.cover_font",
                                                       path=str(settings.cover_font))
        found = find_font(settings.language, True)
        if found:
            return True, Text("model.status.offline_font", font=str(found[0]))
        return True, Text("model.status.offline_default_font")
    if spec.provider == "openai":
        if settings.openai_api_key is not None:
            return True, Text("model.status.key_set", env="OPENAI_API_KEY")
        if settings.openai_base_url:
            return True, Text("model.status.base_url", url=settings.openai_base_url)
        return False, Text("model.status.key_missing", env="OPENAI_API_KEY")
    return True, Text("model.status.server", url=spec.base_url)


__all__ = ["SETTING", "build_image_model", "image_status"]
