"""The writer's stored model choices, in the data directory: role -> spec, and provider keys.

``models.json`` holds the spec of each role set with ``aizac models set`` or the web app's Models
panel; ``keys.json`` holds provider API keys. Both are written atomically (temp file + rename)
with mode 0600, and a key is never returned for display: :meth:`ModelConfig.keys_set` says only
which providers have one. :class:`aizac.stored_models.StoredModelsSource` lays both under the
environment when :class:`~aizac.settings.Settings` is built (environment, ``.env`` and constructor
arguments win); the files are read there, below the settings, and written here.

Pure read/write: no network, no model building. :func:`redact` hides credentials embedded in a
spec or URL (``user:pass@``, ``?key=...``) for anything shown or logged.
"""

from __future__ import annotations

import re
from pathlib import Path

from aizac.errors import InvalidInputError
from aizac.private_files import write_private_json
from aizac.settings_values import IMAGE_ROLE, MODEL_ROLES, ROLES
from aizac.stored_models import (
    KEY_FIELDS,
    KEYS_FILE,
    MODELS_FILE,
    read_stored,
    stored_settings,
    stored_specs,
)

MAX_KEY_CHARS = 400

_USERINFO = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^/@\s]+)@")
_SECRET_PARAM = re.compile(
    r"(?P<name>[?&;](?:api[_-]?key|key|token|access[_-]?token|secret|password|pass|auth|sig)=)"
    r"(?P<value>[^&#;\s:]+)",
    re.IGNORECASE,
)


def redact(text: str) -> str:
    """``text`` with URL credentials replaced by ``***`` (``user:pass@`` and secret-looking query
    parameters such as ``?key=...``, ``&token=...``)."""
    text = _USERINFO.sub(lambda m: f"{m['scheme']}***@", text)
    return _SECRET_PARAM.sub(lambda m: f"{m['name']}***", text)


def _write_private(path: Path, data: dict[str, str]) -> None:
    """Write ``data`` as JSON to ``path`` atomically, readable by the owner only (0600)."""
    write_private_json(path, data, "error.model.config_write", folder=str(path.parent))


class ModelConfig:
    """Role specs and provider keys stored under ``data_dir``."""

    def __init__(self, data_dir: Path) -> None:
        self.models_path = Path(data_dir) / MODELS_FILE
        self.keys_path = Path(data_dir) / KEYS_FILE

    def specs(self) -> dict[str, str]:
        """The stored spec of each role that has one."""
        return stored_specs(self.models_path)

    def set_spec(self, role: str, spec: str) -> str:
        """Store ``spec`` for ``role`` after checking that it parses; returns the clean spec.

        Raises:
            InvalidInputError: unknown role.
            ConfigError: the spec does not parse (names the provider forms).
        """
        from aizac.llm.images.specs import parse_image_spec, spec_label  # only when set
        from aizac.llm.specs import parse_spec

        if role not in MODEL_ROLES:
            raise InvalidInputError("error.model.role", role=str(role),
                                    roles=", ".join(MODEL_ROLES))
        if role == IMAGE_ROLE:
            clean = spec_label(parse_image_spec(spec.strip(), f"{role}_model"))
        else:
            clean = str(parse_spec(spec.strip(), f"{role}_model"))
        _write_private(self.models_path, {**self.specs(), role: clean})
        return clean

    def use_everywhere(self, spec: str, roles: tuple[str, ...] = ROLES) -> str:
        """Store ``spec`` for every role in ``roles`` in one write (``aizac models use SPEC
        --all-roles``, the Models tab's "use for every role"); returns the clean spec.

        Raises:
            InvalidInputError: an unknown role.
            ConfigError: the spec does not parse.
        """
        stored = self.set_specs(dict.fromkeys(roles, spec))
        return next(iter(stored.values()), spec.strip())

    def set_specs(self, specs: dict[str, str]) -> dict[str, str]:
        """Store several roles' specs in one write (a routing preset); returns the clean ones.

        Raises:
            InvalidInputError: an unknown role.
            ConfigError: a spec does not parse (nothing is stored).
        """
        from aizac.llm.specs import parse_spec

        clean: dict[str, str] = {}
        for role, spec in specs.items():
            if role not in ROLES:  # the chat roles (the image role has its own specs)
                raise InvalidInputError("error.model.role", role=str(role),
                                        roles=", ".join(ROLES))
            clean[role] = str(parse_spec(spec.strip(), f"{role}_model"))
        _write_private(self.models_path, {**self.specs(), **clean})
        return clean

    def clear_spec(self, role: str) -> None:
        """Forget the stored spec of ``role`` (the environment or default applies again)."""
        _write_private(self.models_path, {r: s for r, s in self.specs().items() if r != role})

    def set_key(self, provider: str, key: str) -> None:
        """Store ``provider``'s API key in the owner-only keys file; never echoed back.

        Raises:
            InvalidInputError: unknown provider, or a value that cannot be a key.
        """
        if provider not in KEY_FIELDS:
            raise InvalidInputError("error.model.no_key_provider", provider=str(provider),
                                    providers=", ".join(KEY_FIELDS))
        value = key.strip()
        if not value or len(value) > MAX_KEY_CHARS or any(c.isspace() for c in value):
            raise InvalidInputError("error.model.bad_key")
        _write_private(self.keys_path, {**read_stored(self.keys_path), provider: value})

    def delete_key(self, provider: str) -> None:
        """Forget ``provider``'s stored key."""
        keys = read_stored(self.keys_path)
        if provider in keys:
            del keys[provider]
            _write_private(self.keys_path, keys)

    def keys_set(self) -> list[str]:
        """Providers that have a stored key (never the keys themselves)."""
        stored = read_stored(self.keys_path)
        return [p for p in KEY_FIELDS if p in stored]

    def settings_values(self) -> dict[str, str]:
        """The stored choices as Settings field values (``planner_model``, ``openai_api_key``)."""
        return stored_settings(self.models_path, self.keys_path)
