"""A memory store's damage named at the memory layer (issue 37, item 2): a vector-index file
that Chroma persisted and lost, or ``chroma.sqlite3`` overwritten, is a
:class:`~aizac.errors.DamagedError` naming the file, never Chroma's own words, asked once or
twice in one process; a missing ``chroma.sqlite3`` beside the memory's index and journal is
never made anew and empty."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from aizac.errors import DamagedError
from aizac.llm.embeddings import HashingEmbeddings
from aizac.memory import WriterMemory
from aizac.memory.chroma_health import chroma_damage, persisted_segments
from aizac.settings import Settings

WORDS = ("RustBindings", "bindings", "Error executing plan", "compactor", "hnsw segment")


def _store(path: Path, rows: int = 240) -> list[str]:
    memory = WriterMemory(path=path, embeddings=HashingEmbeddings(), settings=Settings())
    ids: list[str] = []
    for start in range(0, rows, 60):  # several commits: Chroma persists its vector index
        batch = memory.stage()
        for i in range(start, start + 60):
            batch.note(f"Fact {i} about the Jade Gate.", "Story")
        ids += batch.commit()
    memory.release()
    return ids


def _forget() -> None:
    from chromadb.api.shared_system_client import SharedSystemClient

    SharedSystemClient.clear_system_cache()


@pytest.mark.parametrize("lost", ["data_level0.bin", "header.bin", "index_metadata.pickle"])
def test_a_lost_vector_index_file_is_named(tmp_path: Path, lost: str) -> None:
    _store(tmp_path)
    _forget()
    (segment,) = persisted_segments(tmp_path / "chroma.sqlite3")
    (tmp_path / segment / lost).unlink()
    found = chroma_damage(tmp_path)
    assert found is not None and found.path == tmp_path / segment / lost
    for _ in range(2):
        with pytest.raises(DamagedError) as info:
            WriterMemory(path=tmp_path, embeddings=HashingEmbeddings(), settings=Settings())
        said = str(info.value)
        assert lost in said and not any(word in said for word in WORDS), said


def test_an_overwritten_chroma_file_is_named_twice_alike(tmp_path: Path) -> None:
    _store(tmp_path, rows=60)
    _forget()
    path = tmp_path / "chroma.sqlite3"
    with open(path, "r+b") as f:
        f.seek(4096)
        f.write(os.urandom(path.stat().st_size - 4096))
    for _ in range(2):  # the second open in one process once said "'RustBindingsAPI' ..."
        with pytest.raises(DamagedError) as info:
            WriterMemory(path=tmp_path, embeddings=HashingEmbeddings(), settings=Settings())
        said = str(info.value)
        assert "chroma.sqlite3" in said and not any(word in said for word in WORDS), said


def test_a_missing_chroma_file_is_never_made_anew(tmp_path: Path) -> None:
    _store(tmp_path, rows=60)
    _forget()
    (tmp_path / "chroma.sqlite3").unlink()
    kept = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(DamagedError) as info:
        WriterMemory(path=tmp_path, embeddings=HashingEmbeddings(), settings=Settings())
    assert "chroma.sqlite3" in str(info.value) and "missing" in str(info.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == kept  # nothing made, nothing gone
    shutil.rmtree(tmp_path)
