"""`aizac reindex` at the memory layer: a hash-era store re-embedded in place, atomically and
resumably — killed at a random moment in a child process and resumed, every memory is there
once, with the new vectors, and undo/redo still put back the same rows."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from aizac.errors import StorageError
from aizac.llm.embeddings import HashingEmbeddings, embedding_fingerprint
from aizac.memory import WriterMemory
from aizac.memory.reindex import POINTER_FILE, reindex, target_name
from aizac.memory.rows import FINGERPRINT_KEY
from aizac.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
ROWS = 240


def hash_era(path: Path, settings: Settings, n: int = ROWS) -> list[str]:
    """A store written with the 256-dim hash: ``n`` memories, one undone commit and a turn."""
    mem = WriterMemory(path=path, embeddings=HashingEmbeddings(), settings=settings)
    batch = mem.stage()
    for i in range(n):
        batch.note(f"Fact number {i} about the Jade Gate.", "Story", chapter=1 + i // 20)
    ids = batch.commit()
    undone = mem.stage()
    undone.note("A fact that was undone.", "Story")
    mem.undo_commit(undone.commit())
    mem.finish_beat("The heirs meet at the gate.", ids=ids[:3])
    return ids


def rows_of(path: Path, embeddings: object, settings: Settings) -> dict[str, tuple[str, int]]:
    mem = WriterMemory(path=path, embeddings=embeddings, settings=settings)  # type: ignore[arg-type]
    got = mem.rows.collection.get(include=["documents", "embeddings"])
    return {mid: (doc, len(vec)) for mid, doc, vec in
            zip(got["ids"], got["documents"], got["embeddings"], strict=True)}


def test_a_store_of_other_embeddings_refuses_without_adopt_and_opens_with_it(
    tmp_path: Path, settings: Settings
) -> None:
    hash_era(tmp_path, settings, n=3)
    with pytest.raises(StorageError) as refused:
        WriterMemory(path=tmp_path, embeddings=HashingEmbeddings(64), settings=settings)
    assert refused.value.key == "error.memory.embedding_changed"
    assert "aizac reindex" in refused.value.hint
    opened = WriterMemory(path=tmp_path, embeddings=HashingEmbeddings(64), settings=settings,
                          adopt=lambda fp: HashingEmbeddings(256) if fp.endswith("256") else None)
    assert opened.reindex_needed == (embedding_fingerprint(HashingEmbeddings()),
                                     embedding_fingerprint(HashingEmbeddings(64)))
    assert opened.embeddings.dim == 256  # type: ignore[attr-defined]
    assert opened.recall("Fact number 2", k=1, reinforce=False)[0].text.startswith("Fact number 2")


def test_reindex_moves_rows_journal_and_turn_to_the_new_embedding(
    tmp_path: Path, settings: Settings
) -> None:
    ids = hash_era(tmp_path, settings, n=30)
    old = WriterMemory(path=tmp_path, embeddings=HashingEmbeddings(), settings=settings)
    before = {h.id: (h.text, h.metadata) for h in old.all()}
    undone = old.commits.journal.with_status("undone")[0]
    report = reindex(old, HashingEmbeddings(64), batch=7)
    assert (report.rows, report.embedded, report.switched) == (30, 30, True)

    new = WriterMemory(path=tmp_path, embeddings=HashingEmbeddings(64), settings=settings)
    assert new.collection.name == target_name("novel", report.target)
    assert new.reindex_needed is None and new.turn == 1
    assert new.short_term.items() == ["The heirs meet at the gate."]
    assert {h.id: (h.text, h.metadata) for h in new.all()} == before
    assert set(rows_of(tmp_path, HashingEmbeddings(64), settings).values()) == {
        (text, 64) for text, _ in before.values()}
    # the old collection and its journal are gone; the journal's vectors are the new ones
    assert "novel" not in {c.name for c in new.client.list_collections()}
    assert new.commits.journal.with_status("undone")[0].embeddings[0].__len__() == 64
    assert new.redo_commit(undone.batch) == undone.ids  # redo puts back 64-dim rows
    assert new.get(undone.ids[0]).text == "A fact that was undone."
    assert new.recall("Fact number 7", k=1, reinforce=False)[0].id == ids[7]
    again = reindex(new, HashingEmbeddings(64))
    assert (again.embedded, again.switched) == (0, False)


def test_a_resumed_reindex_copies_what_changed_since_and_drops_what_went(
    tmp_path: Path, settings: Settings
) -> None:
    ids = hash_era(tmp_path, settings, n=10)
    mem = WriterMemory(path=tmp_path, embeddings=HashingEmbeddings(), settings=settings)

    class Dies(HashingEmbeddings):
        calls = 0

        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            Dies.calls += 1
            if Dies.calls == 2:
                raise RuntimeError("killed")
            return super().embed_documents(texts)

    with pytest.raises(StorageError):
        reindex(mem, Dies(64), batch=4)
    assert not (tmp_path / POINTER_FILE).exists()
    # meanwhile the project goes on with its old embedding: a recall, an undo, a new fact
    mem.reinforce([ids[0]])
    extra = mem.remember("A fact written between the two runs.", "Story")
    strength = mem.get(ids[0]).metadata["memory_strength"]
    report = reindex(mem, Dies(64), batch=4)
    assert report.switched and report.embedded == 11 - 4
    new = WriterMemory(path=tmp_path, embeddings=Dies(64), settings=settings)
    assert sorted(h.id for h in new.all()) == sorted([*ids, extra])
    assert new.get(ids[0]).metadata["memory_strength"] == strength > 0


CHILD = textwrap.dedent("""
    import sys, time
    from aizac.llm.embeddings import HashingEmbeddings
    from aizac.memory import WriterMemory
    from aizac.memory.reindex import reindex
    from aizac.settings import Settings

    target = HashingEmbeddings(64)
    fast = target.embed_documents

    def slow(texts):
        time.sleep(0.02)  # a real model's batch takes this long or longer
        return fast(texts)

    target.embed_documents = slow  # the same fingerprint as the one the test resumes with
    mem = WriterMemory(path=sys.argv[1], embeddings=target, settings=Settings(),
                       adopt=lambda fp: HashingEmbeddings(256) if fp.endswith("256") else None)
    print("started", flush=True)
    reindex(mem, target, batch=5)
    print("finished", flush=True)
""")


def test_killed_at_a_random_moment_and_resumed_every_memory_is_there_once(
    tmp_path: Path, settings: Settings
) -> None:
    ids = hash_era(tmp_path, settings)
    expected = {i: f"Fact number {n} about the Jade Gate." for n, i in enumerate(ids)}
    seed = int(os.environ.get("REINDEX_KILL_SEED", time.time_ns() % 100_000))
    rng = random.Random(seed)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    kills = []
    for _ in range(3):  # three kills in a row, each resumed by the next child
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(tmp_path)], env=env,
                                 stdout=subprocess.PIPE, text=True)
        assert child.stdout is not None and child.stdout.readline().strip() == "started"
        delay = rng.uniform(0.0, 1.2)
        time.sleep(delay)
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=60)
        kills.append(round(delay, 3))
    mem = WriterMemory(path=tmp_path, embeddings=HashingEmbeddings(64), settings=settings,
                       adopt=lambda fp: HashingEmbeddings(256) if fp.endswith("256") else None)
    if mem.reindex_needed:  # killed before the switch: resume here
        reindex(mem, HashingEmbeddings(64))
        mem = WriterMemory(path=tmp_path, embeddings=HashingEmbeddings(64), settings=settings)
    else:  # killed after it: a resumed run only cleans up
        reindex(mem, HashingEmbeddings(64))
    got = mem.rows.collection.get(include=["documents", "embeddings"])
    where = f"seed {seed}, kills after {kills} s"
    assert len(got["ids"]) == len(set(got["ids"])) == ROWS, where
    assert dict(zip(got["ids"], got["documents"], strict=True)) == expected, where
    assert {len(v) for v in got["embeddings"]} == {64}, where
    assert mem.collection.metadata[FINGERPRINT_KEY] == embedding_fingerprint(HashingEmbeddings(64))
    assert mem.turn == 1, where
    pointer = json.loads((tmp_path / POINTER_FILE).read_text())
    assert pointer == {"novel": mem.collection.name}, where
    assert {c.name for c in mem.client.list_collections()} == {mem.collection.name}, where
