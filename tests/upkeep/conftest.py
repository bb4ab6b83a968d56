"""Projects made by a real Studio (SQLite or PostgreSQL rows, embedded Chroma, fake models),
and the ways a stored file gets damaged."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from aizac.cliches import ClicheDB
from aizac.llm.embeddings import HashingEmbeddings
from aizac.settings import Settings
from aizac.writer.service import Studio
from tests.fakes import fake_models
from tests.writer.test_service_cli import ASK_REPLY


@pytest.fixture(scope="session")
def cliches() -> ClicheDB:
    return ClicheDB(embeddings=HashingEmbeddings())


def written(studio: Studio, name: str, beats: int = 2) -> Path:
    """A project ``name`` with a plot and ``beats`` accepted beats (closed afterwards); its
    folder."""
    agent = studio.create(name, "회귀, 복수", genre="modern fantasy", language="en")
    agent.plan()
    for _ in range(beats):
        agent.accept(agent.next_beat().id)
    folder = agent.info.path
    studio.close()
    del agent
    settle(folder)
    return folder


def settle(folder: Path) -> None:
    """Close every connection this process holds to the files of ``folder``, so their
    write-ahead logs are folded in and their bytes stay as they are."""
    import gc

    from chromadb.api.shared_system_client import SharedSystemClient

    from aizac.storage.database import forget_folder

    gc.collect()
    forget_folder(folder)
    # a Chroma system this process cached reads files another process may have replaced
    SharedSystemClient.clear_system_cache()


@pytest.fixture
def make_studio(tmp_path: Path, cliches: ClicheDB,
                database_url: str | None) -> Callable[..., Studio]:
    """Studios over one data folder on the test's engine (a new one per call: another
    process's view)."""

    def make(**options: Any) -> Studio:
        settings = Settings(data_dir=tmp_path / "data", language="en", structured_retries=1,
                            database_url=database_url)
        models = fake_models(extractor={"unknown": ASK_REPLY})
        embeddings = options.pop("embeddings", None) or HashingEmbeddings()
        return Studio(settings, models=dict(models), embeddings=embeddings, cliches=cliches,
                      beats_per_episode=2, **options)

    return make


def fingerprint(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` and a digest of its bytes; lock files aside, and SQLite's
    shared-memory files and empty write-ahead logs (what a reader killed with the file open
    leaves: no content)."""
    out: dict[str, str] = {}
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or path.name in (".lock", ".owner", ".owner.lock",
                                               ".damaged.json"):
            continue
        if path.name.endswith("-shm") or (path.name.endswith("-wal")
                                          and path.stat().st_size == 0):
            continue
        out[str(path.relative_to(folder))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def _segment_file(folder: Path, name: str) -> Path:
    segments = sorted(p for p in (folder / "memory").iterdir() if p.is_dir())
    return segments[0] / name


def zero(path: Path) -> None:
    path.write_bytes(b"")


def truncate(path: Path) -> None:
    with open(path, "r+b") as f:
        f.truncate(os.path.getsize(path) // 2)


def junk(path: Path) -> None:
    path.write_bytes(os.urandom(os.path.getsize(path)))


def junk_inside(path: Path) -> None:
    """Random bytes over the file past its first page (its header still says SQLite)."""
    size = os.path.getsize(path)
    with open(path, "r+b") as f:
        f.seek(4096)
        f.write(os.urandom(max(0, size - 4096)))


DAMAGE: dict[str, tuple[str, Callable[[Path], None]]] = {
    "project-zero": ("project.sqlite3", zero),
    "project-truncated": ("project.sqlite3", truncate),
    "project-junk": ("project.sqlite3", junk),
    "chroma-missing": ("memory/chroma.sqlite3", lambda p: p.unlink()),
    "chroma-zero": ("memory/chroma.sqlite3", zero),
    "chroma-damaged": ("memory/chroma.sqlite3", junk_inside),
    "keys-junk": ("memory/aizac-keys.sqlite3", junk),
    "journal-truncated": ("memory/aizac-commits.sqlite3", truncate),
    "journal-zero": ("memory/aizac-commits.sqlite3", zero),
}
"""Each way a stored file is damaged: (the file, relative to the project folder; the damage)."""
SERVER_ROWS = ("project.sqlite3", "memory/aizac-keys.sqlite3", "memory/aizac-commits.sqlite3")
"""Files a project on the server database does not have (its rows are on the database)."""


def damage(folder: Path, variant: str) -> Path:
    """Damage the project in ``folder`` the ``variant`` way; the damaged file."""
    relative, how = DAMAGE[variant]
    path = folder / relative
    how(path)
    return path
