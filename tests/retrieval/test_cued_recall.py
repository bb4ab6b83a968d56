"""A faded fact comes back on its cue (issue 24 item 5), and the current one never goes
(issue 36 item 3).

Forgetting decides what is offered unasked; a scene's cast (a character's current states, a
pair's current relation) and the places and rules it names bring the current fact back however
long ago it was said, and the pack that shows it reinforces it.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from aizac.llm.embeddings import HashingEmbeddings
from aizac.memory import WriterMemory
from aizac.retrieval.context import Scene, build_context
from aizac.retrieval.matrix import relation_matrix
from aizac.settings import Settings


@pytest.fixture
def faded() -> Iterator[tuple[WriterMemory, dict[str, str]]]:
    mem = WriterMemory(embeddings=HashingEmbeddings(),
                       settings=Settings(memory_threshold=1.0, short_term_tokens=64))
    ids: dict[str, str] = {}
    with mem.stage() as b:
        for name in ("Kang Mira", "Seo Jun", "Lee Youngmin"):
            b.remember(f"{name} — a lead of the story.", "Character", character_name=name,
                       strength=500.0)
        ids["old"] = b.remember("Kang Mira and Seo Jun are friends.", "CharacterRelation",
                                character1="Kang Mira", character2="Seo Jun", strength=2.0)
    with mem.stage() as b:
        ids["enemies"] = b.supersede(ids["old"], "Kang Mira and Seo Jun are sworn enemies.",
                                     strength=2.0)
        ids["hurt"] = b.note("Seo Jun lost an eye in the duel.", "Character",
                             character_name="Seo Jun", aspect="condition", strength=2.0)
        ids["rule"] = b.note("Mana returns only under the full moon.", "NovelSetting",
                             keyword="mana", aspect="rule", strength=2.0)
    mem.advance(150)  # nobody mentions them for 150 beats: they fade
    yield mem, ids
    mem.close()


def test_current_facts_stay_answerable_but_are_not_offered_unasked(
        faded: tuple[WriterMemory, dict[str, str]]) -> None:
    """Issue 36 item 3: the current value of a durable slot and a current rule are what the
    story holds true however long nobody mentions them; forgetting only ranks them low."""
    mem, ids = faded
    relation = mem.relation("Kang Mira", "Seo Jun")
    assert relation is not None and relation.id == ids["enemies"]
    assert ids["hurt"] in {h.id for h in mem.character_state("Seo Jun")}
    assert [h.id for h in mem.world_rules()] == [ids["rule"]]
    assert mem.get(ids["hurt"]).memory_factor < 0.01
    # a scene without the pair, the character or the rule: none of it is offered
    pack = build_context(mem, Scene(characters=["Lee Youngmin"], query="a quiet morning"), 900)
    assert not {ids["enemies"], ids["hurt"], ids["rule"]} & {i.memory_id for i in pack.items}
    # the inspector's matrix shows the current relation
    cell = relation_matrix(mem, ["Kang Mira", "Seo Jun"]).get("Kang Mira", "Seo Jun")
    assert cell is not None and cell.text == "Kang Mira and Seo Jun are sworn enemies."


def test_the_pair_in_the_scene_brings_back_its_current_relation_and_reinforces_it(
    faded: tuple[WriterMemory, dict[str, str]],
) -> None:
    mem, ids = faded
    pack = build_context(mem, Scene(characters=["Kang Mira", "Seo Jun"],
                                    query="they meet again at the harbour"), 900)
    relations = [i.text for i in pack.section("relations")]
    assert relations == ["Kang Mira — Seo Jun: Kang Mira and Seo Jun are sworn enemies."]
    assert ids["hurt"] in {i.memory_id for i in pack.section("characters")}
    assert mem.relation("Kang Mira", "Seo Jun").id == ids["enemies"]  # recalled: live again
    assert mem.get(ids["old"]).superseded  # never the superseded version


def test_a_rule_named_in_the_scene_comes_back(faded: tuple[WriterMemory, dict[str, str]]
                                              ) -> None:
    mem, ids = faded
    pack = build_context(mem, Scene(characters=["Lee Youngmin"],
                                    query="she gathers mana under the moon"), 900)
    assert ids["rule"] in {i.memory_id for i in pack.section("settings")}


def test_a_question_that_names_them_finds_the_faded_current_facts_and_recalls_them(
    faded: tuple[WriterMemory, dict[str, str]],
) -> None:
    from aizac.retrieval.self_query import MemoryVectorStore

    mem, ids = faded
    store = MemoryVectorStore(mem)
    pair = {"$and": [{"character1": "Kang Mira"}, {"character2": "Seo Jun"}]}
    assert [d.id for d in store.similarity_search("how do they stand?", k=5, filter=pair)] == [
        ids["enemies"]]
    state = {"$and": [{"tag": "Character"}, {"character_name": "Seo Jun"}]}
    found = [d.id for d in store.similarity_search("Seo Jun's condition", k=5, filter=state)]
    assert ids["hurt"] in found
    assert ids["hurt"] in {h.id for h in mem.character_state("Seo Jun")}
    assert mem.get(ids["hurt"]).memory_factor > 1.0  # recalled: reinforced
    assert ids["rule"] in {h.id for h in mem.recall("mana moon", k=5)}  # asked: found
