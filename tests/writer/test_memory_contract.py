"""One contract, two memories: the writer tests' DictMemory must behave like WriterMemory.

The agent's tests run on ``DictMemory`` (about twice as fast: ``python bench/fake_memory.py``);
this runs both through the slice of memory the agent uses, so a fake that drifts from the real
thing fails here instead of letting agent tests pass that would fail on the real memory.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aizac.errors import AizacError
from aizac.llm.embeddings import HashingEmbeddings
from aizac.memory import WriterMemory
from aizac.settings import Settings
from tests.fakes import DictMemory


@pytest.fixture(params=["DictMemory", "WriterMemory"])
def memory(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    if request.param == "DictMemory":
        yield DictMemory()
        return
    settings = Settings(data_dir=tmp_path / "data", language="en")
    mem = WriterMemory(tmp_path / "memory", embeddings=HashingEmbeddings(), settings=settings)
    yield mem
    mem.close()


def _seed(memory: Any) -> tuple[str, str]:
    batch = memory.stage()
    hero = batch.remember("Kang Jun — a regressed hunter.", "Character",
                          character_name="Kang Jun", keyword="hunter", chapter=0)
    pair = batch.remember("They trust each other.", "CharacterRelation",
                          character1="Kang Jun", character2="Seo Yuna", keyword="trust",
                          chapter=1, beat=1)
    assert batch.commit() == [hero, pair]  # the ids the agent logs before committing
    return hero, pair


def test_a_commit_stores_what_was_staged_under_the_ids_handed_out(memory: Any) -> None:
    assert len(memory) == 0 and memory.characters() == {}
    hero, pair = _seed(memory)
    assert len(memory) == 2
    assert memory.get(hero).text == "Kang Jun — a regressed hunter."
    assert set(memory.characters()) == {"Kang Jun"}
    assert memory.relation("Seo Yuna", "Kang Jun").id == pair  # either order
    assert memory.relation("Kang Jun", "Nobody") is None


def test_a_discarded_batch_leaves_nothing(memory: Any) -> None:
    _seed(memory)
    batch = memory.stage()
    batch.remember("Gate crystals crack before a break.", "NovelSetting", keyword="crystal",
                   chapter=1)
    batch.discard()
    assert len(memory) == 2


def test_supersede_then_undo_restores_the_current_relation(memory: Any) -> None:
    _, pair = _seed(memory)
    batch = memory.stage()
    newer = batch.supersede(pair, "Rivals now.", chapter=2, beat=1)
    assert batch.commit() == [newer]
    current = memory.relation("Kang Jun", "Seo Yuna")
    assert (current.id, current.text) == (newer, "Rivals now.")
    memory.undo_commit([newer])
    assert memory.relation("Kang Jun", "Seo Yuna").id == pair
    with pytest.raises(KeyError):
        memory.get(newer)


def test_a_forgotten_character_is_no_longer_known(memory: Any) -> None:
    hero, _ = _seed(memory)
    memory.forget(hero)
    assert "Kang Jun" not in memory.characters()


def test_unknown_ids_and_empty_text_are_errors_the_agent_catches(memory: Any) -> None:
    with pytest.raises(KeyError):
        memory.get("no-such-id")
    with pytest.raises((AizacError, KeyError)):  # what WriterAgent suppresses
        memory.forget("no-such-id")
    with pytest.raises(ValueError):
        memory.stage().remember("   ", "Story", chapter=1)


def test_turns_and_short_term_summaries(memory: Any) -> None:
    memory.advance(2)
    assert memory.turn == 2
    memory.set_turn(1)
    assert memory.turn == 1
    memory.short_term.add("Kang Jun entered the gate.")
    memory.short_term.add("Yuna healed him.")
    assert memory.short_term.items() == ["Kang Jun entered the gate.", "Yuna healed him."]
    assert "Yuna healed him." in memory.short_term.text()
    assert memory.short_term.pop() == "Yuna healed him."
    assert memory.short_term.items() == ["Kang Jun entered the gate."]


def test_finishing_a_beat_adds_its_summary_and_moves_the_turn_on_together(memory: Any) -> None:
    hero, _ = _seed(memory)
    assert memory.finish_beat("Kang Jun entered the gate.", turns=1, ids=[hero]) == 1
    assert memory.turn == 1
    assert memory.short_term.items() == ["Kang Jun entered the gate."]


def test_an_exact_lookup_finds_the_served_memories_of_a_chapter(memory: Any) -> None:
    hero, pair = _seed(memory)
    assert [h.id for h in memory.get_where({"chapter": {"$eq": 0}})] == [hero]
    assert [h.id for h in memory.get_where({"chapter": 1})] == [pair]
    memory.forget(hero)
    assert memory.get_where({"chapter": {"$eq": 0}}) == []
    assert [h.id for h in memory.get_where({"chapter": 0}, include_forgotten=True)] == [hero]


def test_reinforcing_returns_the_memories_and_a_batch_reinforces_what_it_holds(
    memory: Any,
) -> None:
    hero, pair = _seed(memory)
    assert [h.id for h in memory.reinforce([hero])] == [hero]
    batch = memory.stage()
    batch.reinforced.append(pair)  # what the accepting code adds (the design's context)
    assert batch.commit() == []
    assert memory.get(pair).text == "They trust each other."


def test_the_world_rules_and_a_characters_current_states(memory: Any) -> None:
    _seed(memory)
    batch = memory.stage()
    rule = batch.remember("Gates open at dusk.", "NovelSetting", keyword="gate", aspect="rule",
                          chapter=1)
    hurt = batch.remember("Kang Jun is wounded.", "Character", character_name="Kang Jun",
                          aspect="condition", chapter=1, beat=2)
    batch.commit()
    assert [h.id for h in memory.world_rules()] == [rule]
    assert hurt in [h.id for h in memory.current_states("Kang Jun")]
    assert memory.current_states("Nobody") == []


def test_the_fake_has_every_member_of_the_writers_memory_port() -> None:
    from aizac.writer.ports import Memory

    members = [name for name in vars(Memory) if not name.startswith("_") or name == "__len__"]
    assert "finish_beat" in members
    assert [name for name in members if not hasattr(DictMemory(), name)] == []
    batch = DictMemory().stage()
    assert isinstance(batch.reinforced, list)


def test_a_voice_fact_keeps_its_slot_and_its_history(memory: Any) -> None:
    from aizac.dialogue.canon import read_voices
    from aizac.dialogue.cards import PairVoice
    from aizac.dialogue.memory import note_pair

    _, pair = _seed(memory)
    batch = memory.stage()
    first = note_pair(batch, PairVoice("Seo Yuna", "Kang Jun", "polite", "sir"), "en", chapter=2)
    batch.commit()
    batch = memory.stage()
    assert note_pair(batch, PairVoice("Seo Yuna", "Kang Jun", "polite", "sir"), "en") is None
    second = note_pair(batch, PairVoice("Seo Yuna", "Kang Jun", "plain", "Jun"), "en", chapter=3)
    batch.commit()
    voices = read_voices(memory, ["Kang Jun", "Seo Yuna"])
    now = voices.pair("Seo Yuna", "Kang Jun")
    assert now is not None and (now.memory_id, now.level, now.address) == (second, "plain", "Jun")
    assert [o.memory_id for o in now.older] == [first]
    assert voices.pair("Kang Jun", "Seo Yuna") is None  # one direction only
    assert memory.relation("Kang Jun", "Seo Yuna").id == pair  # the relation is not a voice
