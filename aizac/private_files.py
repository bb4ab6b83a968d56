"""Small private files (keys, model choices, mail settings): JSON written atomically, 0600."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from aizac.errors import StorageError


def write_private_json(path: Path, data: dict[str, Any], error_key: str,
                       **params: str) -> None:
    """Write ``data`` as JSON to ``path`` atomically, readable by the owner only.

    The mode is set before anything is written (a secret is never readable by others, not even
    for a moment), and readers see the old file or the new one, never half of one.

    Raises:
        StorageError: ``error_key`` with ``params``, ``file`` (the name) and ``cause``.
    """
    def failed(e: OSError) -> StorageError:
        return StorageError(error_key, file=path.name, cause=str(e.strerror), **params)

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as e:
        raise failed(e) from e
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, ensure_ascii=False, indent=1, sort_keys=True)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as e:
        Path(tmp).unlink(missing_ok=True)
        raise failed(e) from e
