"""Slot inference by meaning, where the word list has nothing to say (issue 24, variant d).

An extractor that leaves ``aspect`` out and words a change in words nobody listed ("기침이
돌아왔다" is a condition; no word of ``slot_words.toml`` says so) still states a slot. With a
semantic embedding the fact is compared with example sentences of each slot
(``slot_prototypes.toml``) and the story's own facts of each slot; a clear lead places it, a
narrow one keeps both facts and flags the pair, a fact nearer the note examples stays a note.

The embedding here is a small fake with a known geometry (one axis per kind of meaning), passed
in through the constructor as every fake is: the tests pin the decisions, not a model.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import pytest
from langchain_core.embeddings import Embeddings

from aizac.llm.embeddings import HashingEmbeddings
from aizac.memory import WriterMemory
from aizac.memory.inference import (
    SENSE_QUOTE,
    SENSE_SURE,
    Holder,
    SlotSense,
    VectorCache,
    guess_aspect,
    guess_rule,
    prototypes,
    sensed_thread,
)
from aizac.settings import Settings

KINDS = ("condition", "whereabouts", "allegiance", "note", "rule", "description", "event",
         "seal", "ring", "other")


class MeaningEmbeddings(Embeddings):
    """A fake semantic embedding: a prototype sentence lies on its kind's axis; a text holding
    one of ``meanings``' phrases lies on the axes that phrase names; anything else on
    ``other``. Every call is counted."""

    def __init__(self, meanings: Mapping[str, Mapping[str, float]]) -> None:
        self.meanings = dict(meanings)
        self.calls = 0
        self.kind_of = {t: k for k, texts in prototypes().items() for t in texts}

    def _one(self, text: str) -> list[float]:
        vec = dict.fromkeys(KINDS, 0.0)
        kind = self.kind_of.get(text)
        if kind is not None:
            vec[kind] = 1.0
        for phrase, axes in self.meanings.items():
            if phrase in text:
                for axis, w in axes.items():
                    vec[axis] += w
        if not any(vec.values()):
            vec["other"] = 1.0
        return [vec[k] for k in KINDS]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.calls += 1
        return [self._one(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._one(text)


MEANINGS = {
    # a recovery in words the list does not hold: nearly all condition
    "기침이 멎었다": {"condition": 1.0, "whereabouts": 0.3},
    "went pale and dropped": {"condition": 1.0, "other": 0.2},
    # where someone lives now, said without a listed word
    "sleeps under the old bridge": {"whereabouts": 1.0, "condition": 0.1},
    # as near one slot as another: unsure
    "is not what they were": {"condition": 1.0, "allegiance": 0.997},
    # hurt and sad: the prototypes read only the hurt
    "다쳤고 슬퍼했다": {"condition": 1.0},
    # a liking: a note
    "loves plums": {"note": 1.0, "condition": 0.2},
    # a rule said without a label
    "mana comes back with the full moon": {"rule": 1.0, "description": 0.2},
    "the city wall is white": {"description": 1.0, "rule": 0.1},
    # payoffs: the thread's object named in other words
    "seal came out of the well": {"seal": 1.0, "event": 0.3},
    "cracked seal hidden in the well": {"seal": 1.0},
    "black ring hidden in the tomb": {"ring": 1.0},
    "riot at the gate": {"event": 1.0},
}


def sense(examples: tuple[tuple[str, str], ...] = ()) -> SlotSense:
    return SlotSense(VectorCache(MeaningEmbeddings(MEANINGS).embed_documents), examples,
                     names=["Mira Kang", "한서아"])


@pytest.fixture
def semantic_mem(settings: Settings) -> Iterator[WriterMemory]:
    memory = WriterMemory(embeddings=MeaningEmbeddings(MEANINGS), settings=settings)
    yield memory
    memory.close()


def note(mem: WriterMemory, text: str, tag: str, **fields: object) -> str | None:
    batch = mem.stage()
    new = batch.note(text, tag, infer=True, **fields)
    batch.commit()
    return new


# ------------------------------------------------------------------------------- pure
def test_without_slot_words_the_meaning_places_a_fact_in_its_slot() -> None:
    text = "한서아는 기침이 멎었다"
    assert guess_aspect(text, names=["한서아"]).aspect == ""  # the words say nothing
    guess = guess_aspect(text, names=["한서아"], sense=sense())
    assert (guess.aspect, guess.sure) == ("condition", True)
    guess = guess_aspect("Mira Kang sleeps under the old bridge", names=["Mira Kang"],
                         sense=sense())
    assert (guess.aspect, guess.sure) == ("whereabouts", True)


def test_a_narrow_lead_keeps_both_and_flags_the_facts_of_the_two_slots() -> None:
    holders = [Holder("c1", "condition", "Mira Kang fainted"),
               Holder("a1", "allegiance", "Mira Kang joined the rebels"),
               Holder("w1", "whereabouts", "Mira Kang is in the capital")]
    guess = guess_aspect("Mira Kang is not what they were", names=["Mira Kang"],
                         holders=holders, sense=sense())
    assert (guess.aspect, guess.sure) == ("", False)
    assert set(guess.conflicts) == {"c1", "a1"}


def test_a_fact_nearer_the_note_examples_stays_a_note() -> None:
    guess = guess_aspect("Mira Kang loves plums", names=["Mira Kang"], sense=sense())
    assert (guess.aspect, guess.sure, guess.conflicts) == ("", True, ())


def test_the_words_still_decide_where_they_are_clear() -> None:
    # the meaning says whereabouts (a fake that disagrees), the slot words say condition
    odd = SlotSense(VectorCache(MeaningEmbeddings({"broke an arm": {"whereabouts": 1.0}})
                                .embed_documents))
    assert guess_aspect("Mira Kang broke an arm", names=["Mira Kang"],
                        sense=odd).aspect == "condition"


def test_the_lead_not_the_cosine_decides_and_the_thresholds_are_ordered() -> None:
    assert 0 < SENSE_SURE < SENSE_QUOTE
    s = sense()
    aspect, lead, runner = s.guess("한서아는 기침이 멎었다")
    assert (aspect, runner) == ("condition", "whereabouts") and lead >= SENSE_SURE


def test_the_story_s_own_facts_of_a_slot_count_once_the_story_holds_a_few() -> None:
    # one example of a slot is no evidence (three of each are needed)
    few = sense((("condition", "Mira Kang fainted"),))
    many = sense(tuple((a, t) for a, t in [
        ("condition", "Mira Kang fainted"), ("condition", "Mira Kang broke an arm"),
        ("condition", "Mira Kang caught a fever"), ("whereabouts", "Mira Kang went to the port"),
        ("whereabouts", "Mira Kang is locked in the dungeon"),
        ("whereabouts", "Mira Kang arrived at the fort"),
        ("allegiance", "Mira Kang joined the rebels"),
        ("allegiance", "Mira Kang sided with the guild"),
        ("allegiance", "Mira Kang is loyal to the crown")]))
    text = "Mira Kang went pale and dropped"
    assert few.slot_scores(text)[0] != many.slot_scores(text)[0]
    assert many.guess(text)[0] == "condition"


def test_a_rule_by_meaning_and_a_description_stays_a_setting() -> None:
    s = sense()
    assert guess_rule("mana comes back with the full moon", "mana", current_rule=False).rule \
        is False
    assert guess_rule("mana comes back with the full moon", "mana", current_rule=False,
                      sense=s).rule is True
    assert guess_rule("the city wall is white", "wall", current_rule=False, sense=s).rule is False


def test_a_beat_line_quotes_an_open_thread_by_meaning() -> None:
    vectors = VectorCache(MeaningEmbeddings(MEANINGS).embed_documents)
    threads = [("t1", "omen1", "In scene 12 the cracked seal hidden in the well"),
               ("t2", "omen2", "In scene 14 the black ring hidden in the tomb")]
    assert sensed_thread("At last the seal came out of the well, the one of scene 12",
                         threads, vectors) == "t1"
    # other numbers: another thread's scene, not this one
    assert sensed_thread("the seal came out of the well in scene 30", threads[:1],
                         vectors) is None
    # an everyday event quotes nothing, even with one thread open
    assert sensed_thread("In scene 12 a riot at the gate", threads[:1], vectors) is None


def test_vectors_are_embedded_once_per_text() -> None:
    fake = MeaningEmbeddings(MEANINGS)
    vectors = VectorCache(fake.embed_documents)
    vectors(["a", "b"])
    vectors(["a", "b", "a"])
    assert fake.calls == 1
    vectors(["c", "a"])
    assert fake.calls == 2


# ------------------------------------------------------------------------------- memory
def test_a_new_condition_in_unlisted_words_supersedes_the_old_one(
    semantic_mem: WriterMemory,
) -> None:
    old = note(semantic_mem, "한서아는 열병에 걸렸다", "Character", character_name="한서아")
    new = note(semantic_mem, "한서아는 기침이 멎었다", "Character", character_name="한서아")
    assert semantic_mem.get(str(old)).metadata["superseded_by"] == new
    assert [h.text for h in semantic_mem.character_state("한서아")] == ["한서아는 기침이 멎었다"]


def test_with_the_lexical_hash_the_meaning_is_not_asked(mem: WriterMemory) -> None:
    assert isinstance(mem.embeddings, HashingEmbeddings) and mem.slot_vectors is None
    old = note(mem, "한서아는 열병에 걸렸다", "Character", character_name="한서아")
    note(mem, "한서아는 기침이 멎었다", "Character", character_name="한서아")
    assert not mem.get(str(old)).metadata.get("superseded_by")


def test_an_unsure_meaning_keeps_both_and_flags_them_for_the_writer(
    semantic_mem: WriterMemory,
) -> None:
    note(semantic_mem, "Mira Kang fainted", "Character", character_name="Mira Kang")
    note(semantic_mem, "Mira Kang joined the rebels", "Character", character_name="Mira Kang")
    note(semantic_mem, "Mira Kang is not what they were", "Character", character_name="Mira Kang")
    texts = {h.text for h in semantic_mem.character_state("Mira Kang")}
    assert texts == {"Mira Kang fainted", "Mira Kang joined the rebels",
                     "Mira Kang is not what they were"}
    flagged = {frozenset((a.text, b.text)) for a, b in semantic_mem.conflicts()}
    assert frozenset(("Mira Kang is not what they were", "Mira Kang fainted")) in flagged


def test_a_rule_said_without_a_label_is_revised_by_its_next_version(
    semantic_mem: WriterMemory,
) -> None:
    first = note(semantic_mem, "mana comes back with the full moon", "NovelSetting",
                 keyword="mana")
    note(semantic_mem, "mana comes back with the full moon, and only then", "NovelSetting",
         keyword="mana")
    assert semantic_mem.get(str(first)).metadata.get("superseded_by")


def test_between_two_slots_the_words_name_the_meaning_decides_only_slots_it_knows() -> None:
    # "다쳤" (condition) and "슬퍼" (emotion) tie; the prototypes know no emotion: no guess
    text = "한서아는 다쳤고 슬퍼했다"
    holders = [Holder("c1", "condition", "한서아는 기절했다"),
               Holder("e1", "emotion", "한서아는 기뻐했다")]
    words_only = guess_aspect(text, names=["한서아"], holders=holders)
    assert (words_only.aspect, words_only.sure) == ("", False)
    guess = guess_aspect(text, names=["한서아"], holders=holders, sense=sense())
    assert (guess.aspect, guess.sure) == ("", False)
    assert set(guess.conflicts) == {"c1", "e1"}
