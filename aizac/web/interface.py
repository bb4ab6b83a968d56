"""The interface language the writer chose on the first screen, kept for the next start.

``<data dir>/interface.json`` (``{"ui_language": "ko"}``, written atomically). It is read only
when neither ``--ui-language`` nor ``AIZAC_UI_LANGUAGE`` says otherwise
(:func:`aizac.web.app.interface_language`).
"""

from __future__ import annotations

import json
from pathlib import Path

from aizac.private_files import write_private_json
from aizac.text import LANGUAGES

INTERFACE_FILE = "interface.json"


def stored_language(data_dir: Path) -> str | None:
    """The language chosen last (``None``: none chosen, or the file is unreadable)."""
    try:
        data = json.loads((Path(data_dir) / INTERFACE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    chosen = data.get("ui_language") if isinstance(data, dict) else None
    return chosen if chosen in LANGUAGES else None


def store_language(data_dir: Path, language: str) -> None:
    """Keep ``language`` for the next start.

    Raises:
        StorageError: the file cannot be written (names it).
    """
    path = Path(data_dir) / INTERFACE_FILE
    write_private_json(path, {"ui_language": language}, "error.web.interface_write",
                       folder=str(path.parent))


__all__ = ["INTERFACE_FILE", "store_language", "stored_language"]
