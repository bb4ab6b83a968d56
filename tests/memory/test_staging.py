"""Candidate memory: staged facts are invisible until commit; commit is all or nothing."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import chromadb
import pytest
from chromadb.config import Settings as ChromaSettings

from aizac.errors import InvalidInputError, NotFoundError, StorageError
from aizac.memory import CandidateBatch, WriterMemory


class FlakyCollection:
    """A real Chroma collection whose ``fail`` method raises (a disk or server failure)."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.fail: str | None = None

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._inner, name)
        if name == self.fail:

            def broken(*args: Any, **kwargs: Any) -> Any:
                raise RuntimeError(f"simulated failure in {name}")

            return broken
        return attr


class FlakyClient:
    """Passes a FlakyCollection to WriterMemory through its ``client=`` collaborator."""

    def __init__(self) -> None:
        self._inner = chromadb.EphemeralClient(settings=ChromaSettings(anonymized_telemetry=False))
        self.collection: FlakyCollection | None = None

    def get_or_create_collection(self, *args: Any, **kwargs: Any) -> FlakyCollection:
        self.collection = FlakyCollection(self._inner.get_or_create_collection(*args, **kwargs))
        return self.collection

    def delete_collection(self, name: str) -> None:
        self._inner.delete_collection(name)


def test_staged_memories_are_invisible_until_commit(mem: WriterMemory) -> None:
    batch = mem.stage()
    assert isinstance(batch, CandidateBatch)
    a = batch.remember("Kai found a map.", tag="Story", chapter=2)
    b = batch.remember("Kai is left-handed.", tag="Character", character_name="Kai")
    assert len(batch) == 2 and len(mem) == 0
    assert mem.recall("Kai map") == []
    assert batch.commit() == [a, b]
    assert {h.id for h in mem.recall("Kai map left-handed", k=5)} == {a, b}
    with pytest.raises(InvalidInputError, match="already committed"):
        batch.remember("More.", tag="Story")


def test_discard_writes_nothing(mem: WriterMemory) -> None:
    batch = mem.stage()
    batch.remember("A rejected draft's fact.", tag="Story")
    batch.discard()
    assert len(mem) == 0
    with pytest.raises(InvalidInputError):
        batch.commit()


def test_bad_candidates_fail_when_staged(mem: WriterMemory) -> None:
    batch = mem.stage()
    with pytest.raises(InvalidInputError):
        batch.remember("x", tag="Nope")
    with pytest.raises(NotFoundError):
        batch.supersede("missing", "New text.")
    staged = batch.remember("Fine.", tag="Story")
    with pytest.raises(InvalidInputError, match="staged candidate"):
        batch.supersede(staged, "Other.")
    batch.drop(staged)
    with pytest.raises(NotFoundError):
        batch.drop(staged)
    assert batch.commit() == [] and len(mem) == 0


def test_supersede_in_a_batch_and_revert(mem: WriterMemory) -> None:
    old = mem.remember(
        "Mira trusts Kai.", tag="CharacterRelation", character1="Mira", character2="Kai"
    )
    batch = mem.stage()
    new = batch.supersede(old, "Mira hates Kai.", chapter=7)
    extra = batch.remember("Kai betrayed Mira at the gate.", tag="Story", chapter=7)
    with pytest.raises(InvalidInputError, match="already supersedes"):
        batch.supersede(old, "Mira pities Kai.")
    rel = mem.relation("Kai", "Mira")
    assert rel is not None and rel.id == old  # nothing visible yet
    assert batch.commit() == [new, extra]
    rel = mem.relation("Kai", "Mira")
    assert rel is not None and rel.id == new
    batch.revert()  # the writer undoes the accepted beat
    assert len(mem) == 1
    rel = mem.relation("Kai", "Mira")
    assert rel is not None and rel.id == old and not mem.get(old).superseded


def test_undo_commit_refuses_unknown_ids_and_later_changes(mem: WriterMemory) -> None:
    a = mem.remember("Fact A.", tag="Story")
    b = mem.supersede(a, "Fact A, revised.")
    with pytest.raises(NotFoundError):
        mem.undo_commit([b, "missing"])
    with pytest.raises(InvalidInputError, match="superseded later"):
        mem.undo_commit([a])
    assert len(mem) == 2
    mem.undo_commit([b])
    assert [h.id for h in mem.recall("fact")] == [a]


def test_conflicting_commits_write_nothing(mem: WriterMemory) -> None:
    old = mem.remember("The gate is shut.", tag="NovelSetting")
    first, second = mem.stage(), mem.stage()
    first.supersede(old, "The gate is open.")
    second.supersede(old, "The gate is gone.")
    second.remember("Unrelated new fact.", tag="Story")
    first.commit()
    with pytest.raises(InvalidInputError, match="superseded meanwhile"):
        second.commit()
    assert len(mem) == 2


@pytest.mark.parametrize("with_index", [False, True])
@pytest.mark.parametrize("failing", ["add", "update"])
def test_a_failure_mid_commit_leaves_nothing_half_written(
    mem: WriterMemory, failing: str, with_index: bool, tmp_path: Path
) -> None:
    client = FlakyClient()
    flaky = WriterMemory(
        path=tmp_path if with_index else None,
        collection=f"flaky-{uuid.uuid4().hex[:8]}",
        client=client,
        embeddings=mem.embeddings,
        settings=mem.settings,
    )
    old = flaky.remember(
        "Mira trusts Kai.", tag="CharacterRelation", character1="Mira", character2="Kai"
    )
    batch = flaky.stage()
    batch.remember("Kai betrayed Mira.", tag="Story")
    batch.supersede(old, "Mira hates Kai.")
    batch.remember("Mira swore revenge.", tag="Character", character_name="Mira")
    assert client.collection is not None
    client.collection.fail = failing
    with pytest.raises(StorageError, match="simulated failure"):
        batch.commit()
    client.collection.fail = None
    assert len(flaky) == 1
    assert [h.id for h in flaky.all()] == [old] and not flaky.get(old).superseded
    assert batch.state == "open"  # the writer may retry
    assert (flaky.rows.index is not None) == with_index
    if flaky.rows.index is not None:
        assert flaky.rows.index.count() == 1  # the index rows of the failed commit are gone too
    rel = flaky.relation("Kai", "Mira")
    assert rel is not None and rel.id == old
    assert len(batch.commit()) == 3 and len(flaky) == 4
    flaky.close()


def test_context_manager_commits_or_discards(mem: WriterMemory) -> None:
    with mem.stage() as batch:
        batch.remember("Committed fact.", tag="Story")
    assert len(mem) == 1
    with pytest.raises(RuntimeError), mem.stage() as batch2:
        batch2.remember("Lost fact.", tag="Story")
        raise RuntimeError("draft rejected")
    assert len(mem) == 1 and batch2.state == "discarded"


def test_candidates_take_the_turn_of_their_commit(mem: WriterMemory) -> None:
    batch = mem.stage()
    mid = batch.remember("Staged at turn 0, accepted at turn 5.", tag="Story")
    mem.advance(5)
    batch.commit()
    meta = mem.get(mid).metadata
    assert meta["created_turn"] == meta["last_turn"] == 5
    assert meta["forget_at"] == pytest.approx(5 + 10 * 2.302585, rel=1e-6)
    assert meta["live_until"] == meta["forget_at"] and meta["supersedes"] == ""
