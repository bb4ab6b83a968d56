"""Reopening a store restores turn, memories and the short-term buffer."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from aizac.llm.embeddings import HashingEmbeddings
from aizac.memory import WriterMemory
from aizac.settings import Settings


def test_reopen_in_the_same_process(tmp_path: Path, settings: Settings) -> None:
    emb = HashingEmbeddings()
    mem = WriterMemory(path=tmp_path / "store", embeddings=emb, settings=settings)
    mid = mem.remember("The ring is pinned canon.", tag="NovelSetting", pinned=True)
    mem.advance(12)
    mem.short_term.add("Beat 1: Mira enters the harbour.")
    mem.short_term.add("Beat 2: Kai follows her.")
    again = WriterMemory(path=tmp_path / "store", embeddings=emb, settings=settings)
    assert again.turn == 12 and len(again) == 1 and again.get(mid).pinned
    assert again.short_term.items() == [
        "Beat 1: Mira enters the harbour.",
        "Beat 2: Kai follows her.",
    ]
    other = WriterMemory(
        path=tmp_path / "store", collection="other-novel", embeddings=emb, settings=settings
    )
    assert other.turn == 0 and len(other) == 0


def test_reopen_in_a_new_process(tmp_path: Path, settings: Settings) -> None:
    path = tmp_path / "store"
    mem = WriterMemory(path=path, embeddings=HashingEmbeddings(), settings=settings)
    first = mem.remember(
        "Mira distrusts Kai.", tag="CharacterRelation", character1="Mira", character2="Kai"
    )
    mem.supersede(first, "Mira trusts Kai.", chapter=4)
    mem.advance(30)  # the relation (strength 20, 46 turns) is still live
    mem.short_term.add("Mira forgave Kai.")
    code = (
        "import json, sys\n"
        "from aizac.memory import WriterMemory\n"
        "m = WriterMemory(path=sys.argv[1])\n"
        "r = m.relation('Kai', 'Mira')\n"
        "print(json.dumps({'turn': m.turn, 'n': len(m), 'rel': r.text if r else None,"
        " 'short': m.short_term.items(), 'hist': len(m.history(r.id)) if r else 0}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got == {
        "turn": 30,
        "n": 2,
        "rel": "Mira trusts Kai.",
        "short": ["Mira forgave Kai."],
        "hist": 2,
    }


def test_the_hnsw_log_is_persisted_every_100_writes(tmp_path: Path, settings: Settings) -> None:
    """Chroma's default (1000 writes between index persists) makes every write replay a log
    that grows for ~250 beats; aizac's stores use a short one, old stores get it on open."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    from aizac.memory.rows import SYNC_THRESHOLD

    emb = HashingEmbeddings()
    old = chromadb.PersistentClient(path=str(tmp_path / "old"),
                                    settings=ChromaSettings(anonymized_telemetry=False))
    made = old.get_or_create_collection("novel", embedding_function=None,
                                        configuration={"hnsw": {"space": "cosine"}})
    assert dict(made.configuration.get("hnsw") or {})["sync_threshold"] == 1000  # the default
    again = WriterMemory(path=tmp_path / "old", embeddings=emb, settings=settings)
    assert dict(again.collection.configuration["hnsw"])["sync_threshold"] == SYNC_THRESHOLD
    fresh = WriterMemory(path=tmp_path / "new", embeddings=emb, settings=settings)
    assert dict(fresh.collection.configuration["hnsw"])["sync_threshold"] == SYNC_THRESHOLD


def test_an_old_store_that_refuses_once_gets_the_short_log_on_the_next_try(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from aizac.memory.rows import SYNC_THRESHOLD, keep_log_short

    class Busy:
        name = "novel"

        def __init__(self, refusals: int) -> None:
            self.refusals, self.configuration = refusals, {"hnsw": {"sync_threshold": 1000}}

        def modify(self, configuration: dict[str, Any]) -> None:
            if self.refusals:
                self.refusals -= 1
                raise RuntimeError("database is locked")
            self.configuration = {"hnsw": {**self.configuration["hnsw"],
                                           **configuration["hnsw"]}}

    once = Busy(1)
    keep_log_short(once)
    assert once.configuration["hnsw"]["sync_threshold"] == SYNC_THRESHOLD
    never = Busy(10)
    with caplog.at_level("WARNING"):
        keep_log_short(never, tries=2)  # the open goes on; the log says why
    assert never.configuration["hnsw"]["sync_threshold"] == 1000
    assert "database is locked" in caplog.text


def test_advance_writes_the_state_file_not_chroma(tmp_path: Path, settings: Settings) -> None:
    """Moving the turn of an embedded store writes its state file only (Chroma's metadata
    write costs 5-20 ms whatever the size); a reopen, or another process, reads the turn."""
    path = tmp_path / "store"
    mem = WriterMemory(path=path, embeddings=HashingEmbeddings(), settings=settings)
    mem.remember("Mira keeps the harbour key.", tag="Story")
    mem.advance(2)  # the first state: Chroma holds it too
    writes: list[object] = []
    real_modify = mem.collection.modify

    def modify(*args: Any, **kwargs: Any) -> Any:
        writes.append(kwargs)
        return real_modify(*args, **kwargs)

    mem.collection.modify = modify  # type: ignore[method-assign]
    for _ in range(5):
        mem.advance(1)
    mem.set_turn(9)
    assert writes == []
    assert WriterMemory(path=path, embeddings=HashingEmbeddings(), settings=settings).turn == 9
    mem.short_term.add("Beat 1: Mira hides the key.")  # any other change writes Chroma too
    assert len(writes) == 1
    code = ("import sys; from aizac.llm.embeddings import HashingEmbeddings;"
            "from aizac.memory import WriterMemory;"
            "print(WriterMemory(path=sys.argv[1], embeddings=HashingEmbeddings()).turn)")
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == "9"


def test_chroma_state_wins_over_a_stale_or_damaged_state_file(
    tmp_path: Path, settings: Settings
) -> None:
    """The state file counts only over the Chroma state it was written on: an older aizac
    that wrote Chroma's state since, a damaged file or another collection's file is not read."""
    from aizac.memory.state_file import StateFile
    from aizac.memory.store import STATE_KEY

    path = tmp_path / "store"
    emb = HashingEmbeddings()
    mem = WriterMemory(path=path, embeddings=emb, settings=settings)
    mem.advance(3)  # Chroma and the file: 3
    mem.advance(4)  # the file: 7
    assert WriterMemory(path=path, embeddings=emb, settings=settings).turn == 7
    file = StateFile(path, "novel")
    file.path.write_text("{not json", encoding="utf-8")
    assert WriterMemory(path=path, embeddings=emb, settings=settings).turn == 3
    mem.advance(1)  # the file again: 8
    older = {**(mem.collection.metadata or {}), STATE_KEY: json.dumps({"version": 1, "turn": 20})}
    mem.collection.modify(metadata=older)  # an aizac without the file moved the story on
    assert WriterMemory(path=path, embeddings=emb, settings=settings).turn == 20
    assert WriterMemory(path=path, collection="other-novel", embeddings=emb,
                        settings=settings).turn == 0


def test_a_copy_of_the_memory_carries_the_turn_of_the_state_file(
    tmp_path: Path, settings: Settings
) -> None:
    """What copies an embedded memory elsewhere (``aizac db import`` to a Chroma server)
    reads the state through :func:`~aizac.memory.state_file.current_state`: the turn moved
    since Chroma's state was written comes along."""
    from aizac.memory.state_file import current_state
    from aizac.memory.store import STATE_KEY

    path = tmp_path / "store"
    mem = WriterMemory(path=path, embeddings=HashingEmbeddings(), settings=settings)
    mem.advance(2)
    mem.advance(5)  # the state file only
    mirror = str((mem.collection.metadata or {})[STATE_KEY])
    assert json.loads(current_state(path, "novel", mirror))["turn"] == 7
    assert current_state(path, "other-novel", mirror) == mirror
