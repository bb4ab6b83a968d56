"""The model choices stored in the data directory, as the settings read them.

``models.json`` (role -> spec) and ``keys.json`` (provider -> API key) are written by
:class:`aizac.llm.model_config.ModelConfig` (``aizac models set/key``, the Models panel), which
checks a spec before it stores it. Reading them needs nothing of the model layer, so it lives
here, below :mod:`aizac.settings`: :class:`StoredModelsSource` lays the stored choices under the
environment when :class:`~aizac.settings.Settings` is built.
"""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path
from typing import Any

from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource

from aizac.errors import ConfigError
from aizac.settings_values import MODEL_ROLES

# Provider -> the Settings field its key fills.
KEY_FIELDS: dict[str, str] = {
    "openai": "openai_api_key",
    "anthropic": "anthropic_api_key",
    "clova": "clova_api_key",
    "openai-compatible": "openai_compatible_api_key",
    "sdwebui": "sdwebui_auth",  # user:password of --api-auth
    "comfyui": "comfyui_api_key",
}
MODELS_FILE = "models.json"
KEYS_FILE = "keys.json"


def read_stored(path: Path) -> dict[str, str]:
    """The JSON object in ``path`` as str -> str ({} when the file does not exist)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as e:
        raise ConfigError("error.model.config_read", file=path.name, type=type(e).__name__,
                          path=str(path)) from e
    if not isinstance(data, dict):
        return {}
    return {str(k): str(v) for k, v in data.items() if isinstance(v, str)}


def stored_specs(models_path: Path) -> dict[str, str]:
    """The stored spec of each role that has one (``models.json`` at ``models_path``)."""
    return {r: s for r, s in read_stored(models_path).items() if r in MODEL_ROLES}


def stored_settings(models_path: Path, keys_path: Path) -> dict[str, str]:
    """The stored choices as Settings field values (``planner_model``, ``openai_api_key``)."""
    values = {f"{role}_model": spec for role, spec in stored_specs(models_path).items()}
    for provider, key in read_stored(keys_path).items():
        if provider in KEY_FIELDS:
            values[KEY_FIELDS[provider]] = key
    return values


def _data_dir_of(current: dict[str, Any]) -> Path:
    """The data directory the settings being built will have, as far as it is known here:
    the higher-priority sources' value, else ``data_dir`` in the TOML file, else the default."""
    if current.get("data_dir"):
        return Path(current["data_dir"])
    toml_path = Path(os.environ.get("AIZAC_CONFIG", "aizac.toml"))
    try:
        value = tomllib.loads(toml_path.read_text(encoding="utf-8")).get("data_dir")
    except (OSError, tomllib.TOMLDecodeError):
        value = None
    from aizac.settings_fast import default_data_dir

    return Path(value) if value else default_data_dir()


class StoredModelsSource(PydanticBaseSettingsSource):
    """A pydantic-settings source with the specs and keys stored in the data directory.

    Placed after the environment and ``.env``, so an exported variable always wins.
    """

    def __init__(self, settings_cls: type[BaseSettings]) -> None:
        super().__init__(settings_cls)

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False  # __call__ reads both files at once

    def __call__(self) -> dict[str, Any]:
        data_dir = _data_dir_of(self.current_state)
        return stored_settings(data_dir / MODELS_FILE, data_dir / KEYS_FILE)
