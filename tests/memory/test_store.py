"""WriterMemory behaviour: forgetting, reinforcement, pins, superseding, keyed lookups, errors."""

from __future__ import annotations

import pytest

from aizac.errors import InvalidInputError, NotFoundError
from aizac.memory import MemoryHit, WriterMemory


def texts(hits: list[MemoryHit]) -> list[str]:
    return [h.text for h in hits]


def test_remember_and_recall(mem: WriterMemory) -> None:
    mid = mem.remember(
        "Mira distrusts the guild master.",
        tag="CharacterRelation",
        character1="Mira",
        character2="Guild master",
        chapter=3,
    )
    mem.remember("The harbour city smells of tar.", tag="NovelSetting")
    hits = mem.recall("who does Mira distrust?", k=1)
    assert [h.id for h in hits] == [mid]
    hit = hits[0]
    assert hit.tag == "CharacterRelation" and hit.metadata["chapter"] == 3
    assert hit.distance is not None and hit.memory_factor == 10.0
    assert len(mem) == 2


def test_story_memory_is_forgotten_after_its_retention(mem: WriterMemory) -> None:
    mem.remember("The bell rang at dawn.", tag="Story")  # strength 10 -> 23.03 turns
    mem.advance(23)
    assert texts(mem.recall("bell", reinforce=False)) == ["The bell rang at dawn."]
    mem.advance(1)
    assert mem.recall("bell") == []
    old = mem.recall("bell", include_forgotten=True, reinforce=False)
    assert len(old) == 1 and not old[0].live and old[0].memory_factor < 1.0


def test_advance_rewrites_no_memory(mem: WriterMemory) -> None:
    for i in range(5):
        mem.remember(f"Fact number {i}.", tag="Story")
    before = mem.collection.get(include=["metadatas"])
    assert mem.advance(7) == 7
    after = mem.collection.get(include=["metadatas"])
    assert before == after
    assert all(h.time == 7 for h in mem.all())


def test_recall_reinforces_returned_hits(mem: WriterMemory) -> None:
    mid = mem.remember("Kai hides a silver key.", tag="Story")
    other = mem.remember("Rain over the market.", tag="Story")
    mem.advance(20)
    hit = mem.recall("silver key", k=1)[0]
    assert hit.id == mid and hit.strength == 11 and hit.time == 0
    assert mem.get(mid).metadata["last_turn"] == 20
    assert mem.get(other).strength == 10  # not returned, not reinforced
    mem.advance(20)  # 40 turns after creation: only the reinforced one lives
    assert texts(mem.recall("key market rain", k=5, reinforce=False)) == ["Kai hides a silver key."]
    no = mem.recall("silver key", k=1, reinforce=False)[0]
    assert no.strength == 11 and no.time == 20


def test_reinforce_by_id_and_unknown_ids(mem: WriterMemory) -> None:
    mid = mem.remember("A fact.", tag="Story")
    assert mem.reinforce([mid])[0].strength == 11
    with pytest.raises(NotFoundError):
        mem.reinforce([mid, "nope"])
    assert mem.get(mid).strength == 11  # the failed call changed nothing


def test_pinned_memory_is_never_forgotten(mem: WriterMemory) -> None:
    ring = mem.remember("The ring corrupts whoever wears it.", tag="NovelSetting", pinned=True)
    plain = mem.remember("The ring is gold.", tag="NovelSetting")
    mem.advance(10_000)
    assert [h.id for h in mem.recall("ring")] == [ring]
    mem.pin(plain)
    assert {h.id for h in mem.recall("ring", reinforce=False)} == {ring, plain}
    mem.unpin(ring)  # back to decay, clock restarts now
    assert mem.get(ring).live and not mem.get(ring).pinned
    mem.advance(200)
    assert [h.id for h in mem.recall("ring")] == [plain]


def test_forget_and_restore(mem: WriterMemory) -> None:
    mid = mem.remember("A minor detail.", tag="NovelSetting", pinned=True)
    mem.forget(mid)
    assert mem.recall("minor detail") == []
    assert mem.get(mid).text == "A minor detail."  # stays on disk
    assert texts(mem.recall("minor detail", include_forgotten=True, reinforce=False))
    mem.restore(mid)
    assert [h.id for h in mem.recall("minor detail")] == [mid]


def test_supersede_keeps_history_and_serves_only_the_current(mem: WriterMemory) -> None:
    first = mem.remember(
        "Mira distrusts the guild master.",
        tag="CharacterRelation",
        character1="Mira",
        character2="Guild master",
        chapter=3,
    )
    second = mem.supersede(first, "Mira trusts the guild master again.", chapter=40)
    third = mem.supersede(second, "Mira and the guild master are sworn enemies.", chapter=90)
    assert texts(mem.recall("Mira guild master", k=5)) == [
        "Mira and the guild master are sworn enemies."
    ]
    rel = mem.relation("Guild master", "Mira")
    assert rel is not None and rel.id == third
    assert rel.metadata["character1"] == "Guild master" and rel.metadata["chapter"] == 90
    assert [h.id for h in mem.history(second)] == [first, second, third]
    assert mem.get(first).superseded and mem.get(first).metadata["superseded_by"] == second
    with_old = mem.recall("Mira guild master", k=5, include_superseded=True, reinforce=False)
    assert len(with_old) == 3
    with pytest.raises(InvalidInputError, match="already superseded"):
        mem.supersede(first, "Another version.")
    with pytest.raises(NotFoundError):
        mem.supersede("missing", "Text.")


def test_relation_is_an_exact_keyed_lookup(mem: WriterMemory) -> None:
    mem.remember(
        "Mira owes Kai money.",
        tag="CharacterRelation",
        character1="Mira",
        character2="Kai",
        chapter=1,
    )
    later = mem.remember(
        "Mira saved Kai's life.",
        tag="CharacterRelation",
        character1="Kai",
        character2="Mira",
        chapter=5,
    )
    mem.remember(
        "Mira fears the guild master.",
        tag="CharacterRelation",
        character1="Mira",
        character2="Guild master",
    )
    rel = mem.relation("Mira", "Kai")
    assert rel is not None and rel.id == later
    assert len(mem.relations("Kai", "Mira")) == 1  # one current relation per pair
    assert [h.id for h in mem.history(later)][-1] == later
    assert mem.relation("Kai", "Guild master") is None
    with pytest.raises(InvalidInputError):
        mem.relation("Kai", "kai")


def test_character_state_aliases_and_foreshadowing(mem: WriterMemory) -> None:
    mem.remember(
        "Mira is a harbour thief.",
        tag="Character",
        character_name="Mira",
        aliases=["미라"],
        chapter=1,
    )
    newer = mem.remember(
        "Mira lost her left hand.", tag="Character", character_name="Mira", chapter=9
    )
    mem.remember("Kai is a knight.", tag="Character", character_name="Kai")
    state = mem.character_state("미라")
    assert [h.id for h in state] == [newer, state[1].id] and len(state) == 2
    assert mem.characters() == {"Mira": ["미라"], "Kai": []}
    assert mem.character_state("Nobody") == []
    door = mem.remember("A door in the cellar is never opened.", tag="Story", foreshadow=True)
    mem.remember("The cellar is cold.", tag="NovelSetting")
    assert [h.id for h in mem.open_foreshadowing()] == [door]
    mem.supersede(door, "The cellar door opens onto the old city.")
    assert mem.open_foreshadowing() == []


def test_caller_where_is_anded_with_the_live_filter(mem: WriterMemory) -> None:
    mem.remember("Mira steals bread.", tag="Story", character_name="Mira", chapter=1)
    mem.remember("Mira steals a horse.", tag="Story", character_name="Mira", chapter=2)
    mem.remember("Kai steals a horse.", tag="Story", character_name="Kai", chapter=2)
    mem.remember("Mira is quick.", tag="Character", character_name="Mira", chapter=2)
    got = mem.recall("steals", k=5, where={"character_name": "Mira", "chapter": 2}, tag="Story")
    assert texts(got) == ["Mira steals a horse."]
    got = mem.recall("steals", k=5, where={"$or": [{"chapter": 1}, {"character_name": "Kai"}]})
    assert sorted(texts(got)) == ["Kai steals a horse.", "Mira steals bread."]
    keyed = mem.get_where({"$and": [{"tag": "Story"}, {"character_name": "Mira"}]})
    assert texts(keyed) == ["Mira steals a horse.", "Mira steals bread."]  # newest first
    assert len(mem.get_where(None, limit=2)) == 2
    with pytest.raises(InvalidInputError):
        mem.recall("steals", where={"chapter": {"$bogus": 1}})
    with pytest.raises(InvalidInputError):
        mem.recall("steals", where="chapter = 2")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("args", "kwargs", "match"),
    [
        (("Some text.", "Plot"), {}, "Unknown memory tag"),
        (("   ", "Story"), {}, "non-empty text"),
        (("Mira is brave.", "Character"), {}, "character_name"),
        (("They argue.", "CharacterRelation"), {"character1": "Mira"}, "two characters"),
        (
            ("Self love.", "CharacterRelation"),
            {"character1": "Mira", "character2": "Mira"},
            "itself",
        ),
        (("Text.", "Story"), {"strength": -3}, "strength"),
    ],
)
def test_bad_input_is_a_clear_error_and_writes_nothing(
    mem: WriterMemory, args: tuple[str, str], kwargs: dict[str, object], match: str
) -> None:
    with pytest.raises(InvalidInputError, match=match):
        mem.remember(*args, **kwargs)  # type: ignore[arg-type]
    assert len(mem) == 0


def test_unknown_ids(mem: WriterMemory) -> None:
    for call in (mem.get, mem.pin, mem.unpin, mem.forget, mem.restore, mem.history):
        with pytest.raises(NotFoundError, match="Unknown memory id"):
            call("no-such-id")


def test_other_bad_calls(mem: WriterMemory) -> None:
    with pytest.raises(InvalidInputError):
        mem.recall("")
    with pytest.raises(InvalidInputError):
        mem.recall("x", k=0)
    with pytest.raises(InvalidInputError):
        mem.advance(-1)
    with pytest.raises(InvalidInputError):
        WriterMemory(
            collection="x", embeddings=mem.embeddings, settings=mem.settings, client=mem.client
        )
    with pytest.raises(InvalidInputError, match="threshold"):
        WriterMemory(threshold=10, embeddings=mem.embeddings)


def test_defaults_come_from_settings(mem: WriterMemory) -> None:
    ids = {
        "Story": mem.remember("s", "Story"),
        "Character": mem.remember("c", "Character", character_name="A"),
        "CharacterRelation": mem.remember("r", "CharacterRelation", character1="A", character2="B"),
        "NovelSetting": mem.remember("n", "NovelSetting"),
    }
    strengths = {tag: mem.get(i).strength for tag, i in ids.items()}
    assert strengths == mem.settings.tag_strengths()
    assert mem.threshold == mem.settings.memory_threshold


def test_clock_stamps_created_at(mem: WriterMemory) -> None:
    clocked = WriterMemory(embeddings=mem.embeddings, settings=mem.settings, clock=lambda: 123.5)
    mid = clocked.remember("A fact.", "Story")
    assert clocked.get(mid).metadata["created_at"] == 123.5
    assert "created_at" not in mem.get(mem.remember("x", "Story")).metadata


def test_large_reads_are_paged(mem: WriterMemory) -> None:
    for i in range(7):
        mem.remember(f"Paged fact {i}.", tag="Story", chapter=i)
    mem.page_size = 3  # 3 + 3 + 1: several Chroma pages, one result
    assert [h.metadata["chapter"] for h in mem.all()] == [6, 5, 4, 3, 2, 1, 0]
    assert len(mem.get_where({"tag": "Story"}, limit=4)) == 4


def test_large_reads_ask_chroma_for_small_pages(mem: WriterMemory) -> None:
    """Reading every memory asks Chroma for at most 1,000 rows at a time: Chroma keeps what
    one get allocated, and pages of 5,000 left a 20k-memory process ~550 MB larger."""
    for i in range(3):
        mem.remember(f"Small page fact {i}.", tag="Story")
    asked: list[int] = []
    real_get = mem.collection.get

    def get(*args: object, **kwargs: object) -> object:
        asked.append(int(kwargs["limit"]) if kwargs.get("limit") is not None  # type: ignore[call-overload]
                     else len(kwargs.get("ids") or []))  # type: ignore[arg-type]
        return real_get(*args, **kwargs)

    mem.collection.get = get  # type: ignore[method-assign]
    assert len(mem.all()) == 3
    mem.rows.by_ids([h.id for h in mem.all()], ["metadatas"])
    assert asked and max(asked) <= 1000


def test_exact_scan_and_chroma_query_agree(mem: WriterMemory) -> None:
    names = ["Mira", "Kai", "Doyun"]
    for i in range(30):
        mem.remember(f"{names[i % 3]} event {i}: {'harbour' if i % 2 else 'palace'} at night.",
                     tag="Story", character_name=names[i % 3])  # fmt: skip
    args = {"k": 4, "where": {"character_name": "Kai"}, "reinforce": False}
    scanned = mem.recall("Kai at the harbour", **args)  # type: ignore[arg-type]
    mem.scan_limit = 0  # force Chroma's filtered query
    queried = mem.recall("Kai at the harbour", **args)  # type: ignore[arg-type]
    assert [h.id for h in scanned] == [h.id for h in queried]
    for a, b in zip(scanned, queried, strict=True):
        assert a.distance == pytest.approx(b.distance, abs=1e-5)
    mem.scan_limit = 5  # more matches than the scan limit: falls back to the query
    assert [h.id for h in mem.recall("Kai at the harbour", **args)] == [h.id for h in queried]  # type: ignore[arg-type]


def test_pinning_brings_back_a_forgotten_memory(mem: WriterMemory) -> None:
    mid = mem.remember("The twist: the mentor is the villain.", tag="Story")
    mem.advance(100)
    assert mem.recall("mentor villain") == []
    mem.pin(mid)
    assert [h.id for h in mem.recall("mentor villain")] == [mid]
    mem.forget(mid)
    assert mem.recall("mentor villain") == []
    mem.pin(mid)
    assert mem.get(mid).live
