"""The exact-key index: a superset cache of Chroma that keyed reads re-check."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from aizac.llm.embeddings import HashingEmbeddings
from aizac.memory import WriterMemory
from aizac.memory.key_index import FILE_NAME, KeyIndex, simple_equalities
from aizac.memory.records import ALWAYS
from aizac.settings import Settings
from aizac.storage.database import Scope


@pytest.fixture
def mem(settings: Settings, tables: Scope | None) -> Iterator[WriterMemory]:
    """This module's memories keep their index and journal on both engines."""
    memory = WriterMemory(embeddings=HashingEmbeddings(), settings=settings, tables=tables)
    yield memory
    memory.close()


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


def test_index_rows_and_hints(tables: Scope | None) -> None:
    index = KeyIndex(tables, "novel")
    meta = {"tag": "Story", "character_name": "Mira", "live_until": 10.0}
    index.add([("a", meta, "text a"), ("b", {**meta, "character_name": "Kai"}, "text b")])
    assert index.ids({"character_name": "Mira"}, live_from=5) == ["a"]
    assert index.ids({"character_name": "Mira"}, live_from=11) == []
    index.set_live({"a": ALWAYS})
    assert index.ids({"tag": "Story"}, live_from=1e9) == ["a"]
    index.raise_live({"b": 5.0, "c": 99.0})  # never lowers a hint; an absent row stays absent
    assert index.ids({"character_name": "Kai"}, live_from=10) == ["b"]
    index.delete(["a"])
    assert index.count() == 1
    if tables is not None:  # another project's rows on the same database are not these
        other = KeyIndex(Scope(tables.db, "project-2"), "novel")
        assert other.count() == 0 and other.ids({"tag": "Story"}, live_from=None) == []


def test_hints_of_many_rows_are_one_statement(tables: Scope | None) -> None:
    """Setting or raising the hints of many rows runs one UPDATE for all of them (an
    executemany), not one per row: a recall or commit at scale touches many rows."""
    from sqlalchemy import event

    index = KeyIndex(tables, "novel")
    index.add([(f"m{i}", {"tag": "Story", "live_until": 10.0}, f"text {i}") for i in range(5)])
    updates: list[int] = []

    def seen(conn: object, cursor: object, statement: str, params: object, context: object,
             executemany: bool) -> None:
        if statement.lstrip().upper().startswith("UPDATE"):
            updates.append(len(params) if executemany else 1)  # type: ignore[arg-type]

    engine = index.scope.db.engine
    event.listen(engine, "before_cursor_execute", seen)
    try:
        index.raise_live({f"m{i}": 20.0 + i for i in range(5)} | {"m0": 5.0})
        index.set_live({"m1": 3.0, "m2": 4.0})
    finally:
        event.remove(engine, "before_cursor_execute", seen)
    assert updates == [5, 2]
    assert sorted(index.ids({"tag": "Story"}, live_from=20)) == ["m1", "m2", "m3", "m4"][2:]
    assert sorted(index.ids({"tag": "Story"}, live_from=10)) == ["m0", "m3", "m4"]  # m0 kept
    assert sorted(index.ids({"tag": "Story"}, live_from=3.5)) == ["m0", "m2", "m3", "m4"]


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


def _where_gets(mem: WriterMemory, by_id: list[int] | None = None) -> list[object]:
    """Record every Chroma ``get`` that filters by ``where`` (a scan of the collection), and
    in ``by_id`` how many rows each ``get(ids=...)`` asks for."""
    calls: list[object] = []
    original = mem.collection.get

    def counted(*args: object, **kwargs: object) -> object:
        if kwargs.get("where") is not None:
            calls.append(kwargs["where"])
        ids = kwargs.get("ids")
        if by_id is not None and isinstance(ids, list):
            by_id.append(len(ids))
        return original(*args, **kwargs)

    mem.collection.get = counted
    return calls


def test_the_cast_from_the_index_equals_the_exact_read(mem: WriterMemory) -> None:
    mem.remember("Kai, a thief.", "Character", character_name="Kai", aliases=["K"], chapter=1)
    mem.remember("Mira, a guard.", "Character", character_name="Mira", chapter=3)
    mem.remember("Kai limps.", "Character", character_name="Kai", aliases=["Thief"], chapter=2)
    mem.remember("Old Jun.", "Character", character_name="Jun", chapter=1)
    mem.forget(mem.character_state("Jun")[0].id)
    mem.remember("Kai runs.", "Character", character_name="Kai", chapter=2)
    fetched: list[int] = []
    scans = _where_gets(mem, fetched)
    cast = mem.characters()
    # Read from the index; one row per character (not per Character memory) checked by id.
    assert scans == [] and sum(fetched) == 2
    exact: dict[str, list[str]] = {}
    for hit in mem.get_where({"tag": "Character"}):
        known = exact.setdefault(hit.character_name, [])
        known.extend(a for a in hit.aliases if a not in known)
    assert cast == exact == {"Mira": [], "Kai": ["Thief", "K"]}
    assert list(cast) == ["Mira", "Kai"]  # newest first, as before


def test_a_stale_cast_hint_falls_back_to_the_exact_read(mem: WriterMemory) -> None:
    assert mem.rows.index is not None
    gone = mem.remember("Jun, a ghost.", "Character", character_name="Jun")
    mem.remember("Kai, a thief.", "Character", character_name="Kai")
    mem.forget(gone)
    mem.rows.index.set_live({gone: ALWAYS})  # a crash between Chroma's write and the hint's
    mem.advance(1)  # a new turn: the cached cast is read again
    assert mem.characters() == {"Kai": []}


def test_pinned_memories_are_found_without_a_where_scan(mem: WriterMemory) -> None:
    ring = mem.remember("The ring must not be worn.", "NovelSetting", keyword="ring")
    mem.remember("A passing cart.", "Story")
    mem.pin(ring)
    unpinned = mem.remember("Once pinned.", "Story")
    mem.pin(unpinned)
    mem.unpin(unpinned)
    scans = _where_gets(mem)
    assert [h.id for h in mem.get_where({"pinned": {"$eq": True}})] == [ring]
    assert [h.id for h in mem.get_where({"pinned": True})] == [ring]
    assert scans == []
    mem.forget(ring)
    assert mem.get_where({"pinned": True}) == []


def test_a_character_read_does_not_grow_with_the_novel(mem: WriterMemory) -> None:
    from aizac.memory.lookups import NOTES

    mem.remember("Kai is wounded.", "Character", character_name="Kai", aspect="condition",
                 chapter=1)  # fmt: skip
    mem.remember("Kai is in the capital.", "Character", character_name="Kai",
                 aspect="whereabouts", chapter=1)  # fmt: skip
    batch = mem.stage()
    for n in range(NOTES + 8):
        batch.remember(f"Kai note number {n} of the long novel.", "Character",
                       character_name="Kai", chapter=2 + n)  # fmt: skip
    batch.commit()
    fetched: list[int] = []
    _where_gets(mem, fetched)
    hits = mem.character_state("Kai")
    assert sum(fetched) == NOTES + 2  # the current states and the newest notes, not all 42
    aspects = {h.metadata["aspect"] for h in hits if h.metadata["aspect"]}
    assert aspects == {"condition", "whereabouts"}  # old states are always there
    notes = [h.text for h in hits if not h.metadata["aspect"]]
    assert notes[0] == f"Kai note number {NOTES + 7} of the long novel." and len(notes) == NOTES
    # A near-same restatement of a recent note reinforces it instead of storing it again.
    again = mem.stage()
    assert again.note(f"Kai note number {NOTES + 6} of the long novel!", "Character",
                      character_name="Kai") is None  # fmt: skip
