"""The exact-key index: a superset cache of Chroma that keyed reads re-check."""

from __future__ import annotations

from pathlib import Path

import pytest

from aizac.llm.embeddings import HashingEmbeddings
from aizac.memory import WriterMemory
from aizac.memory.key_index import FILE_NAME, KeyIndex, simple_equalities
from aizac.memory.records import ALWAYS
from aizac.settings import Settings


@pytest.mark.parametrize(
    ("where", "expected"),
    [
        (None, {}),
        ({"character_name": "Mira"}, {"character_name": "Mira"}),
        (
            {"tag": {"$eq": "Story"}, "character_name": "Mira"},
            {"tag": "Story", "character_name": "Mira"},
        ),
        (
            {"$and": [{"character1": "A"}, {"character2": "B"}]},
            {"character1": "A", "character2": "B"},
        ),
        ({"foreshadow": True}, {"foreshadow": True}),
        ({"chapter": 3}, None),
        ({"tag": {"$ne": "Story"}}, None),
        ({"$or": [{"tag": "Story"}, {"tag": "Character"}]}, None),
        ({"$and": [{"tag": "Story"}, {"tag": "Character"}]}, None),
        ({"character_name": 3}, None),
    ],
)
def test_simple_equalities(where: dict[str, object] | None, expected: object) -> None:
    assert simple_equalities(where) == expected


def test_index_rows_and_hints() -> None:
    index = KeyIndex(None, "novel")
    meta = {"tag": "Story", "character_name": "Mira", "live_until": 10.0}
    index.add([("a", meta, "text a"), ("b", {**meta, "character_name": "Kai"}, "text b")])
    assert index.ids({"character_name": "Mira"}, live_from=5) == ["a"]
    assert index.ids({"character_name": "Mira"}, live_from=11) == []
    index.set_live({"a": ALWAYS})
    assert index.ids({"tag": "Story"}, live_from=1e9) == ["a"]
    index.delete(["a"])
    assert index.count() == 1


def test_stale_index_rows_never_change_answers(mem: WriterMemory) -> None:
    assert mem.rows.index is not None
    real = mem.remember("Mira owes Kai.", tag="CharacterRelation", character1="Mira",
                        character2="Kai")  # fmt: skip
    old = mem.remember("Mira once hated Jun.", tag="CharacterRelation", character1="Mira",
                       character2="Jun", chapter=9)  # fmt: skip
    mem.forget(old)
    # A crash between the two writes leaves extra rows or too-high hints: both are re-checked.
    mem.rows.index.add([("ghost", {"tag": "CharacterRelation", "character1": "Kai",
                               "character2": "Mira", "live_until": ALWAYS}, "ghost")])  # fmt: skip
    mem.rows.index.set_live({old: ALWAYS})
    rel = mem.relation("Kai", "Mira")
    assert rel is not None and rel.id == real
    assert mem.relation("Jun", "Mira") is None
    assert [h.id for h in mem.recall("Mira Kai", where={"character1": "Kai"})] == [real]


def test_missing_index_is_rebuilt_on_open(tmp_path: Path, settings: Settings) -> None:
    emb = HashingEmbeddings()
    mem = WriterMemory(path=tmp_path, embeddings=emb, settings=settings)
    mem.remember("Mira is a thief.", tag="Character", character_name="Mira")
    mem.remember("Mira trusts Kai.", tag="CharacterRelation", character1="Mira",
                 character2="Kai")  # fmt: skip
    assert mem.rows.index is not None
    mem.rows.index.clear()  # as if the file had been lost, or written through client= only
    again = WriterMemory(path=tmp_path, embeddings=emb, settings=settings)
    assert again.rows.index is not None and again.rows.index.count() == 2
    assert [h.text for h in again.character_state("Mira")] == ["Mira is a thief."]
    assert (tmp_path / FILE_NAME).exists()


def test_a_caller_client_without_path_reads_through_chroma(mem: WriterMemory) -> None:
    other = WriterMemory(collection="shared-novel", client=mem.client, embeddings=mem.embeddings,
                         settings=mem.settings)  # fmt: skip
    assert other.rows.index is None
    other.remember("Kai is a knight.", tag="Character", character_name="Kai")
    assert [h.text for h in other.character_state("Kai")] == ["Kai is a knight."]
    assert other.characters() == {"Kai": []}
    mem.client.delete_collection("shared-novel")
