"""Accept as a unit of work, recovery before every write, and reinforcement only after a
generation is stored (real WriterMemory, real retrieval and SQLite; fake chat models)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from aizac.cliches import ClicheDB
from aizac.errors import AizacError, StorageError
from aizac.llm.embeddings import HashingEmbeddings
from aizac.llm.router import ModelRouter
from aizac.memory import WriterMemory
from aizac.settings import Settings
from aizac.writer.agent import WriterAgent
from aizac.writer.project import BeatStatus, ProjectStore
from tests.fakes import fake_models


class DiskFullOnAccept(ProjectStore):
    """A store whose disk fills up when a beat is marked accepted (``failures`` times)."""

    failures = 1

    def set_status(self, beat_id: int, status: BeatStatus, **kw: Any) -> Any:
        if status == "accepted" and self.failures > 0:
            self.failures -= 1
            raise sqlite3.OperationalError("database or disk is full")
        return super().set_status(beat_id, status, **kw)


class UndoFails(WriterMemory):
    undo_failures = 1

    def undo_commit(self, ids: Any) -> None:
        if self.undo_failures > 0:
            self.undo_failures -= 1
            raise StorageError("the memory store is not writable right now")
        super().undo_commit(ids)


def _agent(tmp_path: Path, cliches: ClicheDB, store_cls: type[ProjectStore] = ProjectStore,
           memory_cls: type[WriterMemory] = WriterMemory, **models: Any) -> WriterAgent:
    settings = Settings(data_dir=tmp_path, language="en", structured_retries=1)
    root = tmp_path / "projects"
    if not (root / "n").exists():
        ProjectStore.create(root, "n", language="en", genre="modern fantasy", keywords=["회귀"])
    store = store_cls(root / "n")
    memory = memory_cls(store.memory_dir, embeddings=HashingEmbeddings(), settings=settings)
    router = ModelRouter(settings, models=dict(fake_models(**models)))
    return WriterAgent(store, memory, router, cliches, settings=settings)


def _state(agent: WriterAgent) -> tuple[int, int, list[str], int]:
    memory: Any = agent.memory
    return (len(memory), memory.turn, memory.short_term.items(),
            agent.store.count_beats("accepted"))


def _strengths(agent: WriterAgent) -> dict[str, float]:
    memory: Any = agent.memory
    return {h.id: h.strength for h in memory.all()}


def test_a_failure_after_the_memory_commit_is_undone(tmp_path: Path, cliches: ClicheDB) -> None:
    agent = _agent(tmp_path, cliches, DiskFullOnAccept)
    agent.plan()
    draft = agent.next_beat()
    before = _state(agent)
    with pytest.raises(StorageError, match="disk is full"):
        agent.accept(draft.id)
    assert _state(agent) == before  # no memory, summary or turn of the failed accept stays
    assert agent.store.beat(draft.id).status == "draft"
    accepted = agent.accept(draft.id)  # pressing Accept again: once, not twice
    assert accepted.status == "accepted"
    memory: Any = agent.memory
    texts = [h.text for h in memory.all() if h.metadata.get("chapter") == 1]
    assert len(texts) == len(set(texts)) == len(accepted.memory_ids)
    assert memory.turn == 1 and len(memory.short_term.items()) == 1


def test_an_undo_that_fails_is_finished_by_the_next_operation(
    tmp_path: Path, cliches: ClicheDB
) -> None:
    agent = _agent(tmp_path, cliches, DiskFullOnAccept, UndoFails)
    agent.plan()
    draft = agent.next_beat()
    with pytest.raises(StorageError, match="could not be undone"):
        agent.accept(draft.id)
    nxt = agent.next_beat()  # same process, no reopen: recovery runs before the write
    assert agent.store.beat(draft.id).status == "accepted"
    assert (nxt.episode, nxt.index) != (draft.episode, draft.index)
    memory: Any = agent.memory
    assert memory.turn == 1 and len(memory.short_term.items()) == 1


def test_design_reinforces_nothing_until_the_beat_is_accepted(
    tmp_path: Path, cliches: ClicheDB
) -> None:
    agent = _agent(tmp_path, cliches)
    agent.plan()
    seeded = _strengths(agent)
    draft = agent.next_beat()
    assert _strengths(agent) == seeded  # the context pack read them; nothing is stored as canon
    agent.regenerate(draft.id, "더 어둡게")
    assert _strengths(agent) == seeded
    agent.accept(draft.id)
    after = _strengths(agent)
    assert any(after[i] > seeded[i] for i in seeded)  # the accepted design's context, once
    assert all(after[i] - seeded[i] <= 1 for i in seeded)


def test_failed_generations_leave_strengths_alone(tmp_path: Path, cliches: ClicheDB) -> None:
    def broken(_: str) -> str:
        raise RuntimeError("provider went away")

    agent = _agent(tmp_path, cliches, planner={"beat": "not json at all"},
                   writer={"prose": broken})
    agent.plan()
    seeded = _strengths(agent)
    with pytest.raises(AizacError):
        agent.next_beat()
    assert _strengths(agent) == seeded


def test_prose_reinforces_after_it_is_saved_only(tmp_path: Path, cliches: ClicheDB) -> None:
    def broken(_: str) -> str:
        raise RuntimeError("provider went away")

    agent = _agent(tmp_path, cliches, writer={"prose": broken})
    agent.plan()
    agent.accept(agent.next_beat().id)
    before = _strengths(agent)
    with pytest.raises(Exception):  # noqa: B017 - whatever the provider raised
        "".join(agent.write_prose())
    assert _strengths(agent) == before
    good = _agent(tmp_path, cliches)
    "".join(good.write_prose())
    assert any(v > before.get(k, v) for k, v in _strengths(good).items())


class LateWrite(WriterMemory):
    """A memory server whose write times out for the caller but is applied after all (a
    Chroma server that was stopped and resumed): ``late`` accepts see it happen."""

    late = 0

    def stage(self) -> Any:
        batch = super().stage()
        if self.late > 0:
            self.late -= 1
            commit = batch.commit

            def timed_out(*args: Any, **kwargs: Any) -> Any:
                commit(*args, **kwargs)
                raise StorageError("the Chroma server did not answer (timed out)")

            batch.commit = timed_out  # type: ignore[method-assign]
        return batch


def test_an_accept_reported_failed_stays_failed_when_its_write_lands_late(
    tmp_path: Path, cliches: ClicheDB
) -> None:
    """The issue: an accept reported "not stored" was completed later by the journal. Now the
    next write takes back what landed late, and the beat is accepted only when asked again."""
    agent = _agent(tmp_path, cliches, memory_cls=LateWrite)
    agent.plan()
    draft = agent.next_beat()
    before = _state(agent)
    agent.memory.late = 1  # type: ignore[attr-defined]
    with pytest.raises(StorageError, match="did not answer"):
        agent.accept(draft.id)
    nxt = agent.next_beat()  # any write: recovery runs first
    assert (nxt.id, nxt.status) == (draft.id, "draft")  # the same draft, still not accepted
    assert _state(agent) == before  # the late memories went again
    kinds = [s.kind for s in agent.store.steps(limit=5)]
    assert kinds.index("accept-undone") < kinds.index("accept-failed")
    accepted = agent.accept(draft.id)
    memory: Any = agent.memory
    assert accepted.status == "accepted" and memory.turn == 1
    texts = [h.text for h in memory.all() if h.metadata.get("chapter") == 1]
    assert len(texts) == len(set(texts)) == len(accepted.memory_ids)
