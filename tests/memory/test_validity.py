"""Validity on the fact (issue 36 items 2 and 3): each fact records the turn it became true and
the turn it stopped being true, or that the writer struck it; what is true now, and what was true
at an earlier turn, are both answerable, however long ago anyone mentioned them."""

from __future__ import annotations

import pytest

from aizac.memory import WriterMemory


def note(mem: WriterMemory, text: str, tag: str, **fields: object) -> str:
    batch = mem.stage()
    new = batch.note(text, tag, **fields)
    batch.commit()
    assert new is not None
    return new


def test_what_was_true_at_an_earlier_turn_is_answerable(mem: WriterMemory) -> None:
    seoul = note(mem, "Kai is in Seoul.", "Character", character_name="Kai",
                 aspect="whereabouts")
    mem.advance(10)
    busan = note(mem, "Kai is in Busan.", "Character", character_name="Kai",
                 aspect="whereabouts")
    assert mem.get(seoul).metadata["ended_turn"] == 10
    assert mem.get(busan).metadata["ended_turn"] == -1
    assert [h.id for h in mem.state_at("Kai", 5)] == [seoul]
    assert [h.id for h in mem.state_at("Kai", 10)] == [busan]
    assert [h.id for h in mem.character_state("Kai")] == [busan]
    assert [h.id for h in mem.history(busan)] == [seoul, busan]  # history is never lost


def test_a_relation_at_a_turn(mem: WriterMemory) -> None:
    allies = note(mem, "Allies.", "CharacterRelation", character1="Kai", character2="Mira")
    mem.advance(3)
    enemies = note(mem, "Enemies.", "CharacterRelation", character1="Mira", character2="Kai")
    relation_then = mem.relation_at("Kai", "Mira", 1)
    relation_now = mem.relation_at("Kai", "Mira", 4)
    assert relation_then is not None and relation_then.id == allies
    assert relation_now is not None and relation_now.id == enemies


def test_a_struck_fact_was_never_true_and_its_predecessor_is_current_again(
        mem: WriterMemory) -> None:
    alive = note(mem, "Kai is well.", "Character", character_name="Kai", aspect="condition")
    mem.advance(2)
    dead = note(mem, "Kai died.", "Character", character_name="Kai", aspect="condition")
    batch = mem.strike(dead)
    assert [h.id for h in mem.character_state("Kai")] == [alive]
    assert mem.state_at("Kai", 5)[0].id == alive
    assert mem.get(dead).metadata["struck"] is True
    mem.undo_commit(batch)  # the writer takes the retcon back
    assert [h.id for h in mem.character_state("Kai")] == [dead]


def test_the_current_state_and_rules_are_never_forgotten(mem: WriterMemory) -> None:
    """At 600 beats a death and half the current world rules had faded below recall."""
    dead = note(mem, "Kai died.", "Character", character_name="Kai", aspect="condition",
                strength=1.0)
    rule = note(mem, "Mana returns under the moon.", "NovelSetting", keyword="mana",
                aspect="rule", strength=1.0)
    trivia = note(mem, "Kai ate an apple.", "Story", strength=1.0)
    mem.advance(600)
    assert [h.id for h in mem.character_state("Kai")] == [dead]
    assert [h.id for h in mem.world_rules()] == [rule]
    assert trivia not in {h.id for h in mem.get_where({"tag": "Story"})}  # events still fade
    hit = mem.get(dead)
    assert hit.memory_factor < 0.01  # forgetting still ranks it low: offered unasked last


def test_open_foreshadowing_is_held_until_it_is_paid_off(mem: WriterMemory) -> None:
    thread = note(mem, "The seal was hidden in the well.", "Story", keyword="seal",
                  foreshadow=True, strength=1.0)
    mem.advance(300)
    assert [h.id for h in mem.open_foreshadowing()] == [thread]
    batch = mem.stage()
    batch.pay_off(thread, chapter=80, beat=1)
    batch.commit()
    assert mem.open_foreshadowing() == []
    assert not mem.get(thread).live  # paid off, it fades like any event


def test_a_store_written_before_current_facts_were_held_is_upgraded_on_open(
        tmp_path: object, settings: object) -> None:
    from pathlib import Path

    from aizac.llm.embeddings import HashingEmbeddings
    from aizac.memory.records import ALWAYS

    path = Path(str(tmp_path))
    mem = WriterMemory(path=path, embeddings=HashingEmbeddings(), settings=settings)  # type: ignore[arg-type]
    held = note(mem, "Kai died.", "Character", character_name="Kai", aspect="condition")
    mem.rows.update({held: {"live_until": 3.0}})  # as an older aizac stored it
    mem._held = False
    mem._save_state()
    mem.release()
    again = WriterMemory(path=path, embeddings=HashingEmbeddings(), settings=settings)  # type: ignore[arg-type]
    assert again.get(held).metadata["live_until"] == ALWAYS


def test_a_learned_alias_lives_on_the_profile_and_resolves(mem: WriterMemory) -> None:
    note(mem, "Han Seoa — guild master.", "Character", character_name="Han Seoa",
         aspect="profile")
    batch = mem.stage()
    batch.alias("Han Seoa", "Seoa")
    batch.alias("Han Seoa", "the Master")
    batch.commit()
    assert set(mem.characters()["Han Seoa"]) == {"Seoa", "the Master"}
    assert mem.resolve_name("seoa") == "Han Seoa"
    mem.advance(500)  # who a character is does not fade
    assert mem.resolve_name("the master") == "Han Seoa"


@pytest.mark.parametrize("flag", ["language", "unplaced", "merged"])
def test_a_flagged_fact_says_why_and_a_bad_flag_is_refused(mem: WriterMemory, flag: str) -> None:
    from aizac.errors import InvalidInputError

    kept = note(mem, "Kai hurt a leg.", "Character", character_name="Kai", flag=flag)
    assert mem.get(kept).metadata["flag"] == flag
    with pytest.raises(InvalidInputError):
        note(mem, "x", "Story", flag="whatever")
