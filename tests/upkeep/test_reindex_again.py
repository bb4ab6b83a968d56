"""`aizac reindex` can be run again, in any order of embeddings (issue 37, item 4): a project
re-embedded with embeddings aizac cannot build afterwards (an API model) is re-embedded with the
next ones instead of being refused with "run aizac reindex"; a reindex killed half way towards
one embedding and then run towards another leaves no collection behind; every reindex is
preceded by a backup of the project as it was."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding, Embeddings

from aizac.errors import EmbeddingError, StorageError
from aizac.llm.embeddings import HashingEmbeddings, embedding_fingerprint
from aizac.upkeep.layout import backups, reason_of
from aizac.writer.service import Studio
from tests.upkeep.conftest import written


class FailsAfter(Embeddings):
    """Embeddings that stop answering after ``calls`` calls (a provider that went away)."""

    def __init__(self, calls: int) -> None:
        self.inner = HashingEmbeddings(48)
        self.dim = 48
        self.calls = calls

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.calls -= 1
        if self.calls < 0:
            raise RuntimeError("the provider went away")
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)


def _memories(studio: Studio, name: str) -> tuple[list[str], int]:
    agent = studio.open(name)
    memory: Any = agent.memory
    return sorted(h.id for h in memory.all()), int(memory.turn)


def test_reindexing_again_and_again_in_any_order_keeps_every_memory(
    make_studio: Callable[..., Studio]
) -> None:
    folder = written(make_studio(), "saga")
    ids, turn = _memories(make_studio(), "saga")
    api_like = DeterministicFakeEmbedding(size=32)  # nothing aizac can build by itself
    order: list[Embeddings] = [api_like, HashingEmbeddings(64), api_like, HashingEmbeddings()]
    for n, embeddings in enumerate(order, 1):
        studio = make_studio(embeddings=embeddings)
        report = studio.reindex("saga")
        assert report.switched and report.rows == len(ids), (n, report)
        assert report.target == embedding_fingerprint(embeddings)
        assert _memories(studio, "saga") == (ids, turn), n
        memory: Any = studio.open("saga").memory
        done = [r for r in memory.commits.journal.with_status("done") if r.ids][-1]
        memory.undo_commit(done.batch)  # undo and redo still put back the same rows
        assert memory.redo_commit(done.batch) == done.ids
        studio.close()
        assert len([b for b in backups(folder) if reason_of(b) == "before-reindex"]) == min(n, 5)
    agent = make_studio(embeddings=HashingEmbeddings()).open("saga")
    agent.accept(agent.next_beat().id)  # and the project goes on
    assert agent.memory.turn == turn + 1


def test_a_reindex_killed_towards_one_embedding_then_run_towards_another_leaves_nothing(
    make_studio: Callable[..., Studio]
) -> None:
    written(make_studio(), "saga")
    ids, turn = _memories(make_studio(), "saga")
    with pytest.raises((EmbeddingError, StorageError)):
        make_studio(embeddings=FailsAfter(calls=1)).reindex("saga")  # killed half way
    studio = make_studio()
    assert _memories(studio, "saga") == (ids, turn)  # still on its old memory, whole
    studio.close()
    other = make_studio(embeddings=HashingEmbeddings(64))
    assert other.reindex("saga").switched
    memory: Any = other.open("saga").memory
    names = sorted(c.name for c in memory.client.list_collections())
    assert names == [memory.collection.name], names  # the half-made one is gone
    assert _memories(other, "saga") == (ids, turn)
