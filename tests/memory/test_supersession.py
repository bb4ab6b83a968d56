"""One rule for changing facts: a state per character and aspect, a rule per key, a relation
per pair; restatements reinforce; foreshadowing closes when paid off (issue 16)."""

from __future__ import annotations

from pathlib import Path

import pytest

from aizac.errors import InvalidInputError
from aizac.memory import WriterMemory
from aizac.memory.facts import fact_slot, name_key, same_text
from aizac.settings import Settings


def note(mem: WriterMemory, text: str, tag: str, **fields: object) -> str | None:
    batch = mem.stage()
    new = batch.note(text, tag, **fields)
    batch.commit()
    return new


def test_a_new_state_of_an_aspect_supersedes_the_old_one(mem: WriterMemory) -> None:
    hurt = note(mem, "진도준은 다리를 다쳤다", "Character", character_name="진도준",
                aspect="condition", chapter=1)
    away = note(mem, "진도준은 북쪽 요새에 있다", "Character", character_name="진도준",
                aspect="whereabouts", chapter=1)
    mem.advance()
    dead = note(mem, "진도준은 숨을 거두었다", "Character", character_name="진도준",
                aspect="condition", chapter=2)
    current = {h.id for h in mem.character_state("진도준")}
    assert current == {away, dead}
    assert [h.id for h in mem.history(dead)] == [hurt, dead]
    assert mem.get(hurt).superseded


def test_other_facts_accumulate_and_only_same_text_is_a_restatement(mem: WriterMemory) -> None:
    a = note(mem, "Mira is left-handed.", "Character", character_name="Mira")
    b = note(mem, "Mira hates the sea.", "Character", character_name="Mira")
    mem.advance(3)
    again = note(mem, "  mira is LEFT-handed ", "Character", character_name="Mira")
    assert again is None
    assert {h.id for h in mem.character_state("Mira")} == {a, b}
    assert mem.get(str(a)).strength > mem.default_strength("Character")  # reinforced
    assert mem.get(str(a)).metadata["last_turn"] == 3


def test_a_restated_current_state_reinforces_it_across_beats(mem: WriterMemory) -> None:
    first = note(mem, "Jun is in the capital", "Character", character_name="Jun",
                 aspect="whereabouts")
    mem.advance(5)
    assert note(mem, "Jun is in the capital.", "Character", character_name="Jun",
                aspect="whereabouts") is None
    hits = mem.character_state("Jun")
    assert [h.id for h in hits] == [first] and hits[0].metadata["last_turn"] == 5


def test_a_rule_is_revised_by_reference_never_by_its_keyword(mem: WriterMemory) -> None:
    """Two rules that share a generic keyword are two rules; a revision names the rule it
    revises (its lineage, or the id it replaces) and only that one is superseded."""
    old = note(mem, "Gates open every three days.", "NovelSetting", keyword="rule",
               aspect="rule")
    other = note(mem, "Mana returns under the moon.", "NovelSetting", keyword="rule",
                 aspect="rule")
    assert {h.id for h in mem.world_rules()} == {old, other}
    lineage = str(mem.get(str(old)).metadata["lineage"])
    new = note(mem, "Gates now open every day.", "NovelSetting", keyword="gates", aspect="rule",
               lineage=lineage)
    assert {h.id for h in mem.world_rules()} == {other, new}
    assert mem.get(str(old)).superseded
    assert mem.get(str(new)).metadata["supersedes"] == old
    batch = mem.stage()  # by the id it replaces (what an extractor's revises gives)
    newer = batch.note("Gates are sealed.", "NovelSetting", keyword="gate", aspect="rule",
                       outdates=[str(new)])
    batch.commit()
    assert {h.id for h in mem.world_rules()} == {other, newer}


def test_a_relation_per_pair_in_either_order_and_spacing(mem: WriterMemory) -> None:
    note(mem, "Allies.", "CharacterRelation", character1="Kang Mira", character2="Jun")
    new = note(mem, "Enemies.", "CharacterRelation", character1="Jun", character2="KangMira")
    assert [h.id for h in mem.relations("kang mira", "JUN")] == [new]


def test_two_states_of_one_aspect_in_one_beat_chain_to_the_later(mem: WriterMemory) -> None:
    batch = mem.stage()
    a = batch.note("Kai is hurt.", "Character", character_name="Kai", aspect="condition")
    b = batch.note("Kai is dead.", "Character", character_name="Kai", aspect="condition")
    batch.commit()
    assert [h.id for h in mem.character_state("Kai")] == [b]
    assert [h.id for h in mem.history(str(b))] == [a, b]


def test_commit_supersedes_what_another_commit_wrote_after_staging(mem: WriterMemory) -> None:
    late = mem.stage()
    later = late.note("Kai is in Busan.", "Character", character_name="Kai",
                      aspect="whereabouts")
    early = note(mem, "Kai is in Seoul.", "Character", character_name="Kai",
                 aspect="whereabouts")
    late.commit()
    assert [h.id for h in mem.character_state("Kai")] == [later]
    assert mem.get(str(early)).metadata["superseded_by"] == later


def test_paid_off_foreshadowing_leaves_the_open_list_and_undo_reopens_it(
    mem: WriterMemory,
) -> None:
    seal = mem.remember("A cracked seal waits in the well.", "Story", foreshadow=True,
                        keyword="seal")
    ring = mem.remember("A ring glows.", "Story", foreshadow=True, keyword="ring")
    batch = mem.stage()
    batch.note("The seal breaks and frees the king.", "Story", chapter=3, beat=2)
    batch.pay_off(seal, chapter=3, beat=2)
    ids = batch.commit()
    assert [h.id for h in mem.open_foreshadowing()] == [ring]
    assert mem.get(seal).metadata["paid_off"] == "3-2"
    mem.undo_commit(ids)
    assert {h.id for h in mem.open_foreshadowing()} == {seal, ring}


def test_aspect_is_validated(mem: WriterMemory) -> None:
    with pytest.raises(InvalidInputError, match="aspect"):
        mem.remember("x", "Character", character_name="A", aspect="mood")
    with pytest.raises(InvalidInputError, match="does not apply"):
        mem.remember("x", "Story", aspect="rule")


def test_pure_rules() -> None:
    assert name_key("Kang Mira") == name_key("KangMira") == name_key("kang-mira")
    assert same_text("진도준은 다리를 다쳤다.", "진도준은  다리를 다쳤다")
    assert not same_text("진도준은 다리를 다쳤다", "진도준은 팔을 다쳤다")
    assert not same_text("진도준은 3번째 장면에서 다리를 다쳤다",
                         "진도준은 3번째 장면에서 팔을 다쳤다")
    long = "진도준은 순양그룹 본사 회의실에서 할아버지 진양철 회장과 처음으로 정면으로 맞섰다"
    assert same_text(long, long.replace("회의실에서", "회의실에서는"))
    assert fact_slot({"tag": "CharacterRelation", "character1": "B", "character2": "a"}) == \
        fact_slot({"tag": "CharacterRelation", "character1": "A", "character2": "b"})
    assert fact_slot({"tag": "Character", "character_name": "A", "aspect": "other"}) == ""


def test_a_current_state_never_fades_and_its_old_version_never_comes_back(
        mem: WriterMemory) -> None:
    old = note(mem, "Kai is in Seoul.", "Character", character_name="Kai", aspect="whereabouts",
               strength=1.0)
    mem.advance(50)  # nobody mentioned it for 50 turns: still what the story holds true
    assert [h.id for h in mem.character_state("Kai")] == [old]
    new = note(mem, "Kai is in Busan.", "Character", character_name="Kai", aspect="whereabouts")
    assert mem.get(str(old)).metadata["superseded_by"] == new
    mem.restore(str(old))
    assert [h.id for h in mem.character_state("Kai")] == [new]


def test_a_passing_emotion_fades_like_an_event(mem: WriterMemory) -> None:
    note(mem, "Kai is furious.", "Character", character_name="Kai", aspect="emotion",
         strength=1.0)
    mem.advance(50)
    assert mem.character_state("Kai") == []


def test_restating_a_decayed_fact_brings_it_back(mem: WriterMemory) -> None:
    old = note(mem, "Kai is in Seoul.", "Character", character_name="Kai", aspect="whereabouts",
               strength=1.0)
    mem.advance(50)
    assert note(mem, "Kai is in Seoul", "Character", character_name="Kai",
                aspect="whereabouts") is None
    assert [h.id for h in mem.character_state("Kai")] == [old]


def _rows_read(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many rows each Chroma read returns, from now on."""
    from aizac.memory.rows import Rows

    returned: list[int] = []
    chroma = Rows.chroma

    def counted(self: Rows, call: object, *args: object) -> object:
        got = chroma(self, call, *args)  # type: ignore[arg-type]
        if isinstance(got, dict) and "ids" in got:
            returned.append(len(got["ids"]))
        return got

    monkeypatch.setattr(Rows, "chroma", counted)
    return returned


def test_the_holder_of_a_slot_is_found_without_reading_its_old_versions(
        mem: WriterMemory, monkeypatch: pytest.MonkeyPatch) -> None:
    """A fact that changes every beat keeps every old version; finding its holder (each accept
    does, to supersede it) read them all from Chroma, so an accept grew with the novel (issue
    41). It must read the holder only, and still find a forgotten one."""
    for n in range(8):
        mem.advance()
        note(mem, f"Jun is in town {n}", "Character", character_name="Jun", aspect="whereabouts")
    returned = _rows_read(monkeypatch)
    meta = {"tag": "Character", "character_name": "Jun", "aspect": "whereabouts"}
    held = mem.lookups.slot_holders(meta)
    assert [h.text for h in held] == ["Jun is in town 7"]
    assert sum(returned) == 1
    returned.clear()
    mem.rows.version += 1  # as after a write: not the read just made
    assert [h.text for h in mem.lookups.slots_held([meta])[fact_slot(meta)]] == [
        "Jun is in town 7"]
    assert sum(returned) == 1
    mem.forget(held[0].id)
    assert [h.id for h in mem.lookups.slot_holders(meta)] == [held[0].id]
    assert note(mem, "Jun is in town 8", "Character", character_name="Jun",
                aspect="whereabouts") is not None
    assert mem.get(held[0].id).superseded  # the forgotten holder was found and replaced


def test_a_store_an_older_aizac_hinted_finds_its_forgotten_holders(
        tmp_path: Path, settings: Settings) -> None:
    """An index written before current rows had a hint floor says NEVER for a forgotten
    holder, like a superseded version; the store raises those hints once when it opens."""
    from aizac.llm.embeddings import HashingEmbeddings
    from aizac.memory.records import NEVER

    mem = WriterMemory(tmp_path / "m", embeddings=HashingEmbeddings(), settings=settings)
    first = note(mem, "Jun is in town", "Character", character_name="Jun", aspect="whereabouts")
    assert first is not None
    mem.forget(first)
    assert mem.rows.index is not None
    mem.rows.index.set_live({first: NEVER})  # what an older aizac left
    mem.rows.hints_current = False
    mem._save_state()
    mem.close()
    again = WriterMemory(tmp_path / "m", embeddings=HashingEmbeddings(), settings=settings)
    meta = {"tag": "Character", "character_name": "Jun", "aspect": "whereabouts"}
    assert [h.id for h in again.lookups.slot_holders(meta)] == [first]
    assert again.rows.hints_current
    again.close()


def test_staging_and_committing_a_change_read_its_slot_holder_once(
        mem: WriterMemory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Staging a changing fact finds its slot's holder (a restatement?) and the commit finds
    it again to supersede it; with no write between, the second read is the first's (issue
    41: an accept asked Chroma twice per fact). After a write it is read again."""
    from aizac.memory.rows import Rows

    old = note(mem, "Jun is in town", "Character", character_name="Jun", aspect="whereabouts")
    holder_reads: list[int] = []
    chroma = Rows.chroma

    def counted(self: Rows, call: object, *args: object) -> object:
        got = chroma(self, call, *args)  # type: ignore[arg-type]
        if isinstance(got, dict) and old in (got.get("ids") or []):
            holder_reads.append(1)
        return got

    monkeypatch.setattr(Rows, "chroma", counted)
    mem.advance()
    new = note(mem, "Jun is at sea", "Character", character_name="Jun", aspect="whereabouts")
    assert len(holder_reads) == 1
    assert mem.get(str(old)).metadata["superseded_by"] == new
    meta = {"tag": "Character", "character_name": "Jun", "aspect": "whereabouts"}
    assert [h.id for h in mem.lookups.slot_holders(meta)] == [new]  # read after the write
