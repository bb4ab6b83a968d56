"""The story state beside an embedded store, so moving the story on does not write Chroma.

Chroma keeps the state (turn, short-term summaries) in the collection's metadata; changing it is
Chroma's ``update_collection``, which costs 5-20 ms however small the collection (measured on
this project's 2-core machine), so a per-turn :meth:`~aizac.memory.store.WriterMemory.advance`
could not stay within a few milliseconds. Beside an embedded store the state is also kept in a
small JSON file, replaced whole on every save: a move of the turn alone writes only the file,
every other save writes Chroma's metadata (the mirror) and then the file.

The file names the mirror it was written over (a digest of Chroma's state text). When Chroma's
state is no longer that text — an older aizac wrote it since, or the file is from another
collection — or Chroma holds no state yet, the file is ignored and Chroma's state is read.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from aizac.errors import StorageError
from aizac.storage.leftovers import temporary_name

PATTERN = "aizac-state.{}.json"
"""File name of a memory's state file (by its logical name) in the store's folder."""


def digest(mirror: str) -> str:
    """The digest of Chroma's state text that a state file records."""
    return hashlib.sha256(mirror.encode("utf-8")).hexdigest()


class StateFile:
    """The state file of one memory.

    Args:
        folder: the embedded store's folder.
        name: the memory's logical name (a reindex keeps it, so the file follows the memory
            to its new collection, whose metadata the reindex copied).
    """

    def __init__(self, folder: Path, name: str) -> None:
        self.path = Path(folder) / PATTERN.format(name)

    def read(self, mirror: str) -> dict[str, Any] | None:
        """The state kept in the file if it was written over ``mirror`` (Chroma's state text
        now), else ``None`` (no file, an unreadable one, or Chroma written since)."""
        if not mirror:
            return None
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None  # absent or damaged: Chroma's mirror is the state
        if not isinstance(raw, dict) or raw.get("mirror") != digest(mirror):
            return None
        state = raw.get("state")
        return state if isinstance(state, dict) else None

    def write(self, state: dict[str, Any], mirror: str) -> None:
        """Replace the file with ``state``, written over ``mirror``.

        Raises:
            StorageError: the file cannot be written (it is then removed, so Chroma's mirror
                is read; if that fails too, the error says so).
        """
        temp = self.path.with_name(temporary_name(self.path.name))  # hidden, says its writer
        try:
            temp.write_text(json.dumps({"mirror": digest(mirror), "state": state},
                                       ensure_ascii=False), encoding="utf-8")
            os.replace(temp, self.path)
        except OSError as e:
            with contextlib.suppress(OSError):
                temp.unlink(missing_ok=True)
            raise StorageError("error.memory.save_state", cause=str(e)) from e

    def drop(self) -> bool:
        """Remove the file (Chroma's mirror becomes the state); whether it is gone."""
        with contextlib.suppress(OSError):
            self.path.unlink(missing_ok=True)
        return not self.path.exists()


def current_state(folder: Path, name: str, mirror: str) -> str:
    """The state text of the memory ``name`` in the embedded store at ``folder`` whose
    Chroma metadata holds ``mirror``: the state file's when it counts, else ``mirror`` (what
    a copy of the memory elsewhere, e.g. to a Chroma server, must carry)."""
    kept = StateFile(folder, name).read(mirror)
    return mirror if kept is None else json.dumps(kept, ensure_ascii=False)
