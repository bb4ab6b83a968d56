"""The commit journal: recovery after a kill between writes, one embedding call per commit,
exact undo/redo, and summary + turn in one write (issues 9 and 11)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chromadb
import pytest
from chromadb.config import Settings as ChromaSettings

from aizac.errors import InvalidInputError, StorageError
from aizac.llm.embeddings import HashingEmbeddings
from aizac.memory import WriterMemory
from aizac.settings import Settings
from aizac.storage.database import Scope


@pytest.fixture
def mem(settings: Settings, tables: Scope | None) -> Iterator[WriterMemory]:
    """This module's memories keep their index and journal on both engines."""
    memory = WriterMemory(embeddings=HashingEmbeddings(), settings=settings, tables=tables)
    yield memory
    memory.close()


class Killed(BaseException):
    """A process kill at one step (not an Exception: nothing in aizac may catch it)."""


class KillingCollection:
    """A real Chroma collection that dies at its ``n``-th call of ``method``."""

    def __init__(self, inner: Any, method: str, n: int) -> None:
        self._inner, self.method, self.n, self.calls = inner, method, n, 0

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._inner, name)
        if name != self.method:
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            if self.calls == self.n:
                raise Killed(f"killed in {name}")
            return attr(*args, **kwargs)

        return call


class KillingClient:
    """A persistent Chroma client whose collection dies at one step (through ``client=``)."""

    def __init__(self, path: Path, method: str, n: int) -> None:
        self._inner = chromadb.PersistentClient(
            path=str(path), settings=ChromaSettings(anonymized_telemetry=False)
        )
        self.method, self.n = method, n

    def get_or_create_collection(self, *args: Any, **kwargs: Any) -> KillingCollection:
        inner = self._inner.get_or_create_collection(*args, **kwargs)
        return KillingCollection(inner, self.method, self.n)


class CountingEmbeddings(HashingEmbeddings):
    """Offline embeddings that count calls (an HTTP provider makes one request per call)."""

    def __init__(self) -> None:
        super().__init__()
        self.document_calls = 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.document_calls += 1
        return super().embed_documents(texts)


def open_mem(path: Path, settings: Settings, client: Any = None,
             tables: Scope | None = None) -> WriterMemory:
    mem = WriterMemory(path=path, embeddings=HashingEmbeddings(), settings=settings,
                       client=client, tables=tables)
    if tables is not None and not isinstance(client, KillingClient):
        mem.refresh()  # what the project's step lock does on the server database
    return mem


def test_a_kill_between_add_and_supersede_marks_is_finished_on_reopen(
    tmp_path: Path, settings: Settings, tables: Scope | None) -> None:
    mem = open_mem(tmp_path, settings, tables=tables)
    old = mem.remember("Allies.", "CharacterRelation", character1="A", character2="B")
    mem.close()
    # the first update after open is the supersede marks of the next commit
    killer = KillingClient(tmp_path, "update", 1)
    dying = open_mem(tmp_path, settings, client=killer, tables=tables)
    batch = dying.stage()
    new = batch.note("Enemies.", "CharacterRelation", character1="B", character2="A")
    with pytest.raises(Killed):
        batch.commit()
    assert len(dying.get_where(None)) == 2  # before recovery: two live relations of one pair
    mem = open_mem(tmp_path, settings, tables=tables)  # recovery runs on open
    assert [h.id for h in mem.relations("A", "B")] == [new]
    assert mem.get(old).metadata["superseded_by"] == new
    assert [h.id for h in mem.get_where(None)] == [new]


def test_a_kill_during_the_add_leaves_no_commit(
    tmp_path: Path, settings: Settings, tables: Scope | None
) -> None:
    killer = KillingClient(tmp_path, "add", 1)
    dying = open_mem(tmp_path, settings, client=killer, tables=tables)
    batch = dying.stage()
    batch.note("Kai is hurt.", "Character", character_name="Kai", aspect="condition")
    with pytest.raises(Killed):
        batch.commit()
    mem = open_mem(tmp_path, settings, tables=tables)
    assert len(mem) == 0 and mem.commits.journal.with_status("pending") == []


def test_a_kill_between_summary_and_turn_never_adds_the_summary_twice(
    tmp_path: Path, settings: Settings, tables: Scope | None) -> None:
    """The agent adds the summary then advances; a kill between them and a replay of both
    (what recovery does) must leave one summary and one advanced turn."""
    # modify #1 records the embedding fingerprint; #2 saves the summary; #3 the turn
    killer = KillingClient(tmp_path, "modify", 3)
    dying = open_mem(tmp_path, settings, client=killer, tables=tables)
    dying.short_term.add("Beat 1: Kai fell.")
    with pytest.raises(Killed):
        dying.advance(1)
    mem = open_mem(tmp_path, settings, tables=tables)
    assert mem.turn == 0 and mem.short_term.items() == ["Beat 1: Kai fell."]
    mem.short_term.add("Beat 1: Kai fell.")  # the replay
    mem.advance(1)
    mem = open_mem(tmp_path, settings, tables=tables)
    assert mem.turn == 1 and mem.short_term.items() == ["Beat 1: Kai fell."]
    mem.short_term.add("Beat 1: Kai fell.")  # the same words at a later turn are a new beat
    assert mem.short_term.items() == ["Beat 1: Kai fell.", "Beat 1: Kai fell."]


def test_finish_beat_is_one_write(
    tmp_path: Path, settings: Settings, tables: Scope | None
) -> None:
    never = KillingClient(tmp_path, "modify", 10**9)
    mem = open_mem(tmp_path, settings, client=never, tables=tables)
    before = mem.collection.calls
    assert mem.finish_beat("Beat 1.") == 1
    assert mem.collection.calls - before == 1
    assert open_mem(tmp_path, settings, tables=tables).short_term.items() == ["Beat 1."]


def test_a_commit_embeds_all_its_texts_in_one_call(settings: Settings) -> None:
    emb = CountingEmbeddings()
    mem = WriterMemory(embeddings=emb, settings=settings)
    batch = mem.stage()
    for n in range(12):
        batch.note(f"Fact number {n} about the gate.", "Story")
    batch.note("Kai is hurt.", "Character", character_name="Kai", aspect="condition")
    before = emb.document_calls
    batch.commit()
    assert emb.document_calls - before == 1
    mem.close()


def test_characters_is_read_once_per_write(mem: WriterMemory) -> None:
    mem.remember("Kai, a thief.", "Character", character_name="Kai", aliases=["K"])
    reads: list[int] = []
    assert mem.rows.index is not None
    original = mem.rows.index.cast

    def counted(*args: Any, **kwargs: Any) -> Any:
        reads.append(1)
        return original(*args, **kwargs)

    mem.rows.index.cast = counted  # type: ignore[method-assign]
    for _ in range(6):
        assert mem.characters() == {"Kai": ["K"]}
    assert len(reads) == 1
    mem.remember("Mira, a guard.", "Character", character_name="Mira")
    assert set(mem.characters()) == {"Kai", "Mira"} and len(reads) == 2


def test_undo_then_redo_puts_back_exactly_the_commit(mem: WriterMemory) -> None:
    old = mem.remember("Allies.", "CharacterRelation", character1="A", character2="B")
    seal = mem.remember("A seal waits.", "Story", foreshadow=True, keyword="seal")
    kept = mem.remember("Kai is left-handed.", "Character", character_name="Kai")
    mem.advance(2)
    batch = mem.stage()
    batch.note("Enemies.", "CharacterRelation", character1="A", character2="B")
    batch.note("Kai is left-handed.", "Character", character_name="Kai")  # restated
    batch.note("The seal breaks.", "Story")
    batch.pay_off(seal, chapter=2, beat=1)
    ids = batch.commit()
    mem.finish_beat("Beat: the seal broke.", ids=ids)
    after = {h.id: (h.text, h.metadata) for h in mem.all()}

    snap = mem.undo_commit(ids)
    assert snap.batch == batch.batch_id and snap.ids == ids
    assert snap.summary == "Beat: the seal broke."
    assert [h.id for h in mem.relations("A", "B")] == [old]
    assert {h.id for h in mem.open_foreshadowing()} == {seal}
    assert mem.get(kept).metadata["last_turn"] == 0  # its reinforcement is undone too
    with pytest.raises(InvalidInputError, match="already undone"):
        mem.undo_commit(batch.batch_id)

    emb_calls = []
    mem.embeddings = type("NoCalls", (), {
        "embed_documents": lambda self, t: emb_calls.append(t),
        "embed_query": lambda self, t: emb_calls.append(t)})()
    assert mem.redo_commit(batch.batch_id) == ids
    assert emb_calls == []
    assert {h.id: (h.text, h.metadata) for h in mem.all()} == after


def test_undo_by_batch_id_of_a_batch(mem: WriterMemory) -> None:
    batch = mem.stage()
    batch.note("Kai is hurt.", "Character", character_name="Kai", aspect="condition")
    ids = batch.commit()
    batch.revert()
    assert len(mem) == 0
    assert mem.redo_commit(batch.batch_id) == ids


def test_changed_embeddings_are_named(tmp_path: Path, settings: Settings) -> None:
    open_mem(tmp_path, settings).remember("x", "Story")

    class Other(HashingEmbeddings):
        pass

    with pytest.raises(StorageError, match="AIZAC_EMBEDDING changed"):
        WriterMemory(path=tmp_path, embeddings=Other(), settings=settings)
    assert len(open_mem(tmp_path, settings)) == 1


def test_names_compare_by_one_rule(mem: WriterMemory) -> None:
    mem.remember("Kang Mira, a guard.", "Character", character_name="Kang Mira")
    for spelling in ("KangMira", "kang mira", "Kang-Mira"):
        assert [h.text for h in mem.character_state(spelling)] == ["Kang Mira, a guard."]


def test_the_journal_keeps_recent_commits_only(mem: WriterMemory) -> None:
    from aizac.memory import commits, journal

    first = mem.stage()
    first.note("Fact 0.", "Story")
    first.commit()
    for n in range(1, journal.KEEP + commits.PRUNE_EVERY + 2):
        mem.remember(f"Fact {n}.", "Story")
    assert mem.commits.journal.get(first.batch_id) is None
    assert len(mem.commits.journal.with_status("done")) <= journal.KEEP + commits.PRUNE_EVERY
