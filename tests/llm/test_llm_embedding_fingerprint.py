"""One embedding fingerprint (aizac.llm.embeddings) for every store that keeps vectors: the
memory collection and the cliché database agree on it, and a change of dimension is noticed."""

from __future__ import annotations

from pathlib import Path

from langchain_core.embeddings import Embeddings

import aizac.cliches.db
import aizac.memory.rows
from aizac.cliches.db import ClicheDB
from aizac.llm.embeddings import HashingEmbeddings, embedding_fingerprint


class Sized(Embeddings):
    """Embeddings whose size is set by ``dimensions`` (as OpenAI's are)."""

    def __init__(self, dimensions: int, *, normalize: bool = True) -> None:
        self.dimensions = dimensions
        self.normalize = normalize  # a flag: not part of what identifies the vectors
        self._inner = HashingEmbeddings(dim=dimensions)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self._inner.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        return self._inner.embed_query(text)


def test_the_fingerprint_names_the_class_and_what_sizes_the_vectors() -> None:
    assert embedding_fingerprint(HashingEmbeddings(dim=64)).endswith("HashingEmbeddings:dim=64")
    assert embedding_fingerprint(Sized(16)) != embedding_fingerprint(Sized(24))
    assert "normalize" not in embedding_fingerprint(Sized(16))


def test_memory_and_clichés_use_the_one_function() -> None:
    assert aizac.memory.rows.embedding_fingerprint is embedding_fingerprint
    assert aizac.cliches.db.embedding_fingerprint is embedding_fingerprint


def test_the_cliché_db_rebuilds_when_the_embedding_dimensions_change(tmp_path: Path) -> None:
    assert ClicheDB(tmp_path / "cliches", embeddings=Sized(16)).search("회귀", k=3)
    # Its own fingerprint once ignored `dimensions`: the 16-dim collection was reused and a
    # 24-dim query failed inside Chroma.
    again = ClicheDB(tmp_path / "cliches", embeddings=Sized(24)).search("회귀", k=3)
    fresh = ClicheDB(tmp_path / "fresh", embeddings=Sized(24)).search("회귀", k=3)
    assert [h.id for h in again] == [h.id for h in fresh]
