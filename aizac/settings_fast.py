"""The data directory alone, without pydantic, when nothing else is configured.

``aizac projects`` needs only ``data_dir``. :class:`aizac.settings.Settings` costs pydantic and
pydantic-settings at start-up, but it also validates every setting, and a bad value must still
stop ``aizac projects`` with the error naming it. So :func:`quick_data_dir` answers only when
nothing could be invalid: no ``AIZAC_*`` variable but ``AIZAC_DATA_DIR`` / ``AIZAC_CONFIG``, no
``.env`` file, no TOML file, no stored models or keys in the data directory (the providers' own
variables, such as ``OPENAI_API_KEY``, are plain strings and cannot be). Otherwise it returns
``None`` and the caller reads :func:`aizac.settings.get_settings` as before.
``tests/cli/test_settings_fast.py`` checks it against ``Settings()``.
"""

from __future__ import annotations

import os
from pathlib import Path

DEFAULT_DATA_DIR = Path("aizac-data")
_ALLOWED = {"AIZAC_DATA_DIR", "AIZAC_CONFIG"}
_STORED = ("models.json", "keys.json")  # aizac.llm.model_config.MODELS_FILE, KEYS_FILE


def quick_data_dir() -> Path | None:
    """``Settings().data_dir`` when nothing but the data directory is configured, else ``None``
    (pure apart from reading the environment and checking that four files do not exist)."""
    names = [k for k in os.environ if k.upper().startswith("AIZAC_")]
    if any(k.upper() not in _ALLOWED for k in names) or len(names) != len(
        {k.upper() for k in names}
    ):
        return None  # another setting (maybe invalid), or one name in two spellings
    if Path(".env").exists() or Path(os.environ.get("AIZAC_CONFIG", "aizac.toml")).exists():
        return None
    value = next((os.environ[k] for k in names if k.upper() == "AIZAC_DATA_DIR"), None)
    data_dir = DEFAULT_DATA_DIR if value is None else Path(value)
    if any((data_dir / name).exists() for name in _STORED):
        return None
    return data_dir
