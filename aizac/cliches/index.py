"""The trope index of ``beats.csv``: its validated rows, each row's word stems and keyword set.

Building it validates every row and stems every document (about 0.1 s of CPU for 612 rows on a
slow machine), which every ``aizac plot`` and ``aizac beat`` did before its first model call.
:func:`load_index` keeps it in a JSON file next to the cliché collection, keyed by the CSV's
sha256 and :data:`INDEX_VERSION`; a changed CSV, another version or an unreadable file is
rebuilt from the CSV, and the file is replaced atomically (a crash never leaves half of one).
Rows read back are validated again (JSON, no CSV parsing), so a hand-edited file cannot smuggle
in an invalid row.
"""

from __future__ import annotations

import os
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from aizac.cliches.lexical import stems
from aizac.cliches.schema import BeatRow, BeatSource, parse_beats

INDEX_FILE = "trope-index.json"
INDEX_VERSION = 1
"""Raise when :class:`BeatRow`, :func:`stems`, :func:`document` or :func:`normalize_keyword`
change what the index holds: files of another version are rebuilt."""


def normalize_keyword(word: str) -> str:
    """Case-folded keyword with spaces, hyphens and underscores collapsed to one space."""
    return re.sub(r"[\s_\-]+", " ", word.casefold()).strip()


def document(row: BeatRow) -> str:
    """The text a beat is searched by (English and Korean columns)."""
    return " | ".join(
        [
            row.trope.replace("-", " "),
            row.genre,
            row.stage,
            " ".join(row.keywords),
            row.summary,
            row.event,
            row.conflict,
            row.emotion,
            row.hook,
            row.location,
            # The Korean columns, so a Korean beat or plan line finds its Korean neighbours.
            row.summary_ko,
            row.event_ko,
            row.conflict_ko,
            row.emotion_ko,
            row.hook_ko,
            row.location_ko,
        ]
    )


@dataclass(frozen=True)
class TropeIndex:
    """The rows of one CSV with what searching them needs.

    Attributes:
        rows: every beat, in CSV order.
        stems: row id -> the stems of its :func:`document`.
        keywords: row id -> its normalised keywords.
        from_cache: whether it was read from the index file instead of built.
    """

    rows: list[BeatRow]
    stems: dict[str, frozenset[str]]
    keywords: dict[str, frozenset[str]]
    from_cache: bool = False
    by_id: dict[str, BeatRow] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_id", {r.id: r for r in self.rows})


class _IndexFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: int
    csv_sha256: str
    rows: list[BeatRow]
    stems: dict[str, list[str]]
    keywords: dict[str, list[str]]


def build_index(src: BeatSource) -> TropeIndex:
    """Parse and validate ``src`` and stem every row (pure)."""
    rows = parse_beats(src.text, src.origin)
    return TropeIndex(
        rows,
        {r.id: stems(document(r)) for r in rows},
        {r.id: frozenset(map(normalize_keyword, r.keywords)) for r in rows},
    )


def load_index(src: BeatSource, directory: Path | None) -> TropeIndex:
    """The index of ``src``: read from ``directory``'s index file when it was built from the
    same CSV by this :data:`INDEX_VERSION`, else built and written there (``None``: built)."""
    if directory is None:
        return build_index(src)
    path = directory / INDEX_FILE
    cached = _read(path, src.sha256)
    if cached is not None:
        return cached
    index = build_index(src)
    _write(path, src.sha256, index)
    return index


def _read(path: Path, sha256: str) -> TropeIndex | None:
    try:
        data = _IndexFile.model_validate_json(path.read_bytes())
    except (OSError, ValidationError, ValueError):
        return None  # missing, unreadable or of another shape: rebuilt from the CSV
    ids = [r.id for r in data.rows]
    if (
        data.version != INDEX_VERSION
        or data.csv_sha256 != sha256
        or set(data.stems) != set(ids)
        or set(data.keywords) != set(ids)
    ):
        return None
    return TropeIndex(
        data.rows,
        {k: frozenset(v) for k, v in data.stems.items()},
        {k: frozenset(v) for k, v in data.keywords.items()},
        from_cache=True,
    )


def _write(path: Path, sha256: str, index: TropeIndex) -> None:
    """Replace the index file atomically; a read-only directory only costs the next start."""
    data = _IndexFile(
        version=INDEX_VERSION,
        csv_sha256=sha256,
        rows=index.rows,
        stems={k: sorted(v) for k, v in index.stems.items()},
        keywords={k: sorted(v) for k, v in index.keywords.items()},
    )
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(data.model_dump_json().encode("utf-8"))
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)
