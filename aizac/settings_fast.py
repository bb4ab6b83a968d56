"""The data directory alone, without pydantic, when nothing else is configured.

``aizac projects`` needs only ``data_dir``. :class:`aizac.settings.Settings` costs pydantic and
pydantic-settings at start-up, but it also validates every setting, and a bad value must still
stop ``aizac projects`` with the error naming it. So :func:`quick_data_dir` answers only when
nothing could be invalid: no ``AIZAC_*`` variable but ``AIZAC_DATA_DIR`` / ``AIZAC_CONFIG``, no
``.env`` file, no TOML file, no stored models or keys in the data directory (the providers' own
variables, such as ``OPENAI_API_KEY``, are plain strings and cannot be). Otherwise it returns
``None`` and the caller reads :func:`aizac.settings.get_settings` as before.
``tests/cli/test_settings_fast.py`` checks it against ``Settings()``.

The default data directory (:func:`default_data_dir`) is decided here too, for both: the
platform's user data folder, so the web app and a command run from any folder see the same
projects; a ``./aizac-data`` that already holds a writer's data (the old default) is kept, and
:func:`where_data_lives` says so wherever the data directory is shown.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aizac.text.message import Text

LEGACY_DATA_DIR = Path("aizac-data")
"""Where aizac kept everything before: a folder beside wherever it was run."""
APP_NAME = "aizac"
_ALLOWED = {"AIZAC_DATA_DIR", "AIZAC_CONFIG"}
_STORED = ("models.json", "keys.json")  # aizac.stored_models.MODELS_FILE, KEYS_FILE


def platform_data_dir() -> Path:
    """The platform's folder for a user's application data (``platformdirs``):
    ``~/.local/share/aizac`` on Linux (``$XDG_DATA_HOME/aizac``), ``~/Library/Application
    Support/aizac`` on macOS, ``%LOCALAPPDATA%\\aizac`` on Windows."""
    from platformdirs import user_data_path

    return user_data_path(APP_NAME, appauthor=False)


def legacy_data_dir() -> Path | None:
    """``./aizac-data`` when it is here and holds something: a writer who ran aizac from this
    folder before keeps their projects where they are (``None`` otherwise)."""
    try:
        return LEGACY_DATA_DIR if any(LEGACY_DATA_DIR.iterdir()) else None
    except OSError:  # not here, or not a folder
        return None


def default_data_dir() -> Path:
    """The data directory when ``AIZAC_DATA_DIR`` (or ``data_dir`` in the TOML file) is unset:
    the legacy ``./aizac-data`` when it holds a writer's data, else the platform's user data
    folder, the same whichever folder a command runs from."""
    return legacy_data_dir() or platform_data_dir()


def where_data_lives(data_dir: Path) -> Text:
    """Where the projects are, to show the writer (the first screen, ``aizac projects``, the
    app's start): the folder, and when it is the old ``./aizac-data`` kept because it holds
    their data, where aizac looks from any other folder and how to get there."""
    from aizac.text.message import Text

    shown = str(Path(data_dir).expanduser().resolve())
    if "AIZAC_DATA_DIR" not in os.environ and Path(data_dir) == LEGACY_DATA_DIR:
        return Text("note.data_dir_legacy", path=shown, default=str(platform_data_dir()))
    return Text("note.data_dir", path=shown)


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
    data_dir = default_data_dir() if value is None else Path(value)
    if any((data_dir / name).exists() for name in _STORED):
        return None
    return data_dir
