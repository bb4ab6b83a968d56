"""Supersession that does not depend on one optional field (issue 24 item 1).

An extractor that leaves ``aspect`` / ``rule`` / ``paid_off`` out still says what changed: the
slot words in the fact (ko/en/zh), the character's current facts, a rule's keyword, a beat line
quoting an open thread. Where that evidence points two ways, both facts are kept and the pair
is flagged for the writer, who settles it.
"""

from __future__ import annotations

import pytest

from aizac.errors import InvalidInputError, NotFoundError
from aizac.memory import WriterMemory
from aizac.memory.inference import (
    WORDS_FILE,
    Holder,
    Lexicon,
    guess_aspect,
    guess_rule,
    pays_off,
    quoted_thread,
    similarity,
)


def note(mem: WriterMemory, text: str, tag: str, **fields: object) -> str | None:
    batch = mem.stage()
    new = batch.note(text, tag, infer=True, **fields)
    batch.commit()
    return new


# ------------------------------------------------------------------------------- pure
@pytest.mark.parametrize(("text", "aspect"), [
    ("한서아는 왼쪽 다리를 크게 다쳤다", "condition"),
    ("한서아는 열병에 걸려 앓아누웠다", "condition"),
    ("한서아가 북쪽 요새로 떠났다", "whereabouts"),
    ("한서아는 지하 감옥에 갇혔다", "whereabouts"),
    ("한서아는 반란군에 합류했다", "allegiance"),
    ("한서아는 암흑 교단에 들어갔다", "allegiance"),  # going into a group is joining it
    ("한서아는 황궁에 들어갔다", "whereabouts"),
    ("Mira Kang broke an arm in the fall", "condition"),
    ("Mira Kang is locked in the dungeon", "whereabouts"),
    ("Mira Kang sided with the merchants", "allegiance"),
    ("林晓在战斗中受了重伤", "condition"),
    ("林晓逃往南方的港口", "whereabouts"),
    ("林晓投靠了叛军", "allegiance"),
    # a slot's own name as a label, in another language than the fact
    ("한서아 — whereabouts: the port town", "whereabouts"),
    ("Mira Kang 상태: 고열", "condition"),
    ("林晓 | 位置：皇宫", "whereabouts"),
])
def test_slot_words_in_three_languages_name_the_aspect(text: str, aspect: str) -> None:
    guess = guess_aspect(text, names=["한서아", "Mira Kang", "林晓"])
    assert (guess.aspect, guess.sure) == (aspect, True)


def test_a_fact_with_no_slot_words_is_a_note_and_a_keyword_can_name_the_slot() -> None:
    assert guess_aspect("Mira Kang hums an old song").aspect == ""
    assert guess_aspect("Mira Kang: the port town", "whereabouts").aspect == "whereabouts"
    assert guess_aspect("Mira Kang is in love with Jun").aspect != "whereabouts"


def test_a_restatement_in_other_words_finds_its_slot_among_the_current_facts() -> None:
    holders = [Holder("c1", "condition", "Mira Kang hums the ballad of the grey heron"),
               Holder("w1", "whereabouts", "Mira Kang rests at the Lantern inn")]
    guess = guess_aspect("Mira Kang still hums the grey heron ballad", holders=holders,
                         names=["Mira Kang"])
    assert guess.aspect == "condition"


def test_a_fact_said_again_keeps_its_slot_against_a_word_the_story_taught() -> None:
    # The story's whereabouts facts taught "since" (their restatements open with it); a fact
    # that says the current allegiance again, opening the same way, is still the allegiance.
    taught = [("whereabouts", f"Since scene {n}: Jun Hart is in the port town {n}")
              for n in range(1, 7)]
    taught += [("condition", f"Jun Hart broke an arm in battle {n}") for n in range(1, 7)]
    lexicon = Lexicon(taught, ["Jun Hart"])
    text = "Since scene 12: Mira Kang shares the rebel leaders' cause"
    assert lexicon.evidence(text, ["Mira Kang"])["whereabouts"] > 0
    holders = [Holder("a1", "allegiance", "Mira Kang, scene 12: shares the rebel leaders' cause"),
               Holder("c1", "condition", "Mira Kang, scene 15: lost consciousness")]
    guess = guess_aspect(text, holders=holders, names=["Mira Kang", "Jun Hart"], lexicon=lexicon)
    assert guess.aspect == "allegiance"


def test_the_story_s_frame_words_do_not_make_a_restatement() -> None:
    # Every fact of this story opens "Log entry N on <name>:"; a new fact sharing only that
    # heading with the one current fact is not that fact said again (it was read as one).
    story = [("condition", "Log entry 3 on Jun Hart: broke an arm"),
             ("whereabouts", "Log entry 4 on Jun Hart: is locked in the dungeon"),
             ("allegiance", "Log entry 5 on Ada Voss: joined the rebels")]
    names = ["Mira Kang", "Jun Hart", "Ada Voss"]
    lexicon = Lexicon(story, names)
    assert {"log", "entry"} <= lexicon.frame
    holders = [Holder("a1", "allegiance", "Log entry 5 on Mira Kang: joined the rebels")]
    new = "Log entry 9 on Mira Kang: coughs through the night"
    assert guess_aspect(new, holders=holders, names=names).aspect == "allegiance"  # words only
    assert guess_aspect(new, holders=holders, names=names, lexicon=lexicon).aspect == ""
    again = "Log entry 9 on Mira Kang: still with the rebels (since entry 5)"
    assert guess_aspect(again, holders=holders, names=names,
                        lexicon=lexicon).aspect == "allegiance"


@pytest.mark.parametrize(("text", "aspect"), [
    ("《소속 변경》 한서아 · 상단과 동업하기로 했다", "allegiance"),
    ("「부상 경과」 한서아 · 새벽에 돌아왔다", "condition"),
    ("«loyalty» Mira Kang · decided to go home", "allegiance"),
])
def test_a_slot_word_heading_its_field_in_brackets_is_a_label(text: str, aspect: str) -> None:
    assert guess_aspect(text, names=["한서아", "Mira Kang"]).aspect == aspect


def test_a_number_in_brackets_is_no_heading() -> None:
    scores = guess_aspect("한서아는 노래한다 (3번째 장면 부상 이후)", names=["한서아"]).scores
    assert scores["condition"] == 1.0  # a cue, not a label


@pytest.mark.parametrize(("text", "aspect"), [
    ("한서아는 반란군 편에 서기로 결심했다", "allegiance"),
    ("한서아는 상단과 동업하기로 했다", "allegiance"),
    ("한서아는 왕도로 떠나기로 했다", "whereabouts"),
    ("Mira Kang decided to fight for the guild", "allegiance"),
    ("한서아는 복수를 결심했다", "goal"),
    ("Mira Kang vowed to avenge her father", "goal"),
])
def test_a_decision_is_about_the_slot_of_what_is_decided(text: str, aspect: str) -> None:
    assert guess_aspect(text, names=["한서아", "Mira Kang"]).aspect == aspect


@pytest.mark.parametrize(("text", "aspect"), [
    ("한서아는 예전 몸으로 돌아왔다", "condition"),
    ("한서아는 원래 상태로 돌아갔다", "condition"),
    ("Mira Kang returned to health", "condition"),
    ("한서아는 감옥으로 돌아왔다", "whereabouts"),
    ("Mira Kang returned to the capital", "whereabouts"),
])
def test_going_back_to_a_state_of_the_body_is_a_condition(text: str, aspect: str) -> None:
    assert guess_aspect(text, names=["한서아", "Mira Kang"]).aspect == aspect


def test_frame_words_do_not_make_facts_alike_by_meaning_either() -> None:
    lexicon = Lexicon([("condition", "Log entry 3 on Jun Hart: broke an arm"),
                       ("whereabouts", "Log entry 4 on Jun Hart: is locked in the dungeon")],
                      ["Jun Hart"])
    a, b = "Log entry 7 on Mira Kang: hums", "Log entry 8 on Mira Kang: sleeps"
    assert similarity(a, b, ["Mira Kang"]) > similarity(a, b, ["Mira Kang"], lexicon.frame)


@pytest.mark.parametrize(("text", "aspect"), [
    ("한서아는 밤새 열이 자꾸 올랐다", "condition"),  # the fever rose, not a climb
    ("한서아는 탑에 올랐다", "whereabouts"),
    ("Mira Kang stays neutral", "allegiance"),  # "stays" alone is a state, not a place
    ("Mira Kang stays in the capital", "whereabouts"),
    ("한서아는 누구에게도 줄을 서지 않았다", "allegiance"),
    ("Mira Kang status: has a broken arm", "condition"),  # "status" names no one slot
    # a slot word before the story's time points to a moment ("back in scene 83")
    ("Mira Kang was unaffiliated with any faction, same as back in scene 83", "allegiance"),
    ("Mira Kang is back in the capital", "whereabouts"),
    # the body as the object of a verb of staying is no state of the body
    ("한서아는 숲속 오두막에 몸을 의탁하여 살더라", "whereabouts"),
    ("한서아는 원래 몸으로 돌아왔다", "condition"),
    ("status: knighted", "status"),
    # what goes back or leaves is not the character: its strength, its illness
    ("한서아는 기력이 돌아와 힘이 펄펄 난다", "condition"),
    ("한서아는 병이 말끔히 떨어져 씩씩하게 뛰어다닌다", "condition"),
    ("한서아가 북쪽 요새로 돌아왔다", "whereabouts"),
    ("그녀가 북쪽 요새로 돌아왔다", "whereabouts"),
    # a life given to a side is a vow, not a condition; the road to the underworld is death
    ("한서아는 황실을 목숨 바쳐 섬기기로 맹세했다", "allegiance"),
    ("한서아는 길드를 위해 목숨을 걸었다", "allegiance"),
    ("한서아는 황천길로 가 버렸다", "condition"),
    ("한서아는 저승으로 떠났다", "condition"),
    # "-ㄴ 상태" is a verb's result, not the condition label: the verb says the slot
    ("한서아는 탑에 올라간 상태임", "whereabouts"),
    ("[loc.] 한서아는 탑에 올라간 상태임 (장면 102)", "whereabouts"),
    ("한서아는 지하 감옥에 갇힌 상태다", "whereabouts"),
    ("한서아는 반란군에 합류한 상태다", "allegiance"),
    ("한서아는 다리를 다친 상태다", "condition"),
    ("한서아의 상태: 고열", "condition"),
    # the story's time arriving is no one's arrival
    ("이때 101번째 장면 당도하니, 한서아는 반란군에 가담했다", "allegiance"),
    ("51번째 장면에 이르러 한서아는 고열에 시달렸다", "condition"),
    ("한서아는 51번째 장면에 북쪽 요새에 이르렀다", "whereabouts"),
])
def test_the_words_around_a_slot_word_decide_its_slot(text: str, aspect: str) -> None:
    assert guess_aspect(text, names=["한서아", "Mira Kang"]).aspect == aspect


def test_a_beat_line_names_a_thread_by_its_own_words_in_any_order() -> None:
    threads = [("t1", "", "12번째 장면에서 검이 강바닥에 숨겨졌다"),
               ("t2", "", "14번째 장면에서 지도가 강바닥에 숨겨졌다"),
               ("t3", "", "15번째 장면에서 반지가 사당에 숨겨졌다")]
    line = "강바닥을 샅샅이 훑다 검을 손에 넣었다 (12번째 장면의 그것)"
    assert quoted_thread(line, threads, need_reveal=True) == "t1"
    assert quoted_thread("Searching the well, they got hold of the ring from scene 3",
                         [("r", "", "In scene 3 the ring was hidden in the well"),
                          ("s", "", "In scene 5 the map was hidden in the tomb")],
                         need_reveal=True) == "r"


SWORD = "12번째 장면에서 부러진 검이 강바닥에 숨겨졌다"
MAP = "In scene 14 the torn map was hidden in the old tomb"
SEAL = "第16个场景里，破碎的印章被藏在井里"


@pytest.mark.parametrize(("line", "thread"), [
    # no word of the list: what the line adds to the thread's words says it moved on
    ("부러진 검, 강바닥에서 확보됨 (12번째 장면에 숨겨진 것)", SWORD),
    ("12번째 장면의 부러진 검을 강바닥에서 건져 올려 칼집에 꽂았다", SWORD),
    ("torn map secured from the old tomb (hidden in scene 14)", MAP),
    ("The torn map hidden in the old tomb in scene 14 was put to use", MAP),
    ("第16个场景藏在井里的破碎印章被取出，交到了主角手上", SEAL),
    # a word of the list, and one beside a negation that does not touch it
    ("The torn map, not seen since scene 14, was finally dug out of the old tomb", MAP),
    ("Hauled up from the old tomb, the torn map hidden in scene 14 was put to use at last", MAP),
    ("Quest complete! The torn map stashed in the old tomb in scene 14 is in your inventory",
     MAP),
    ("Hero snatches the torn map from the old tomb: the secret of scene 14 is secret no more",
     MAP),
    # "planted" is how a thread is set up, not a plan
    ("Radio: we have the torn map. Pulled it from the old tomb, the one planted in scene 14.",
     MAP),
])
def test_a_line_that_quotes_a_thread_and_says_something_new_of_it_pays_it_off(
    line: str, thread: str,
) -> None:
    assert pays_off(line, thread)
    assert quoted_thread(line, [("t", "", thread)], need_reveal=True) == "t"


@pytest.mark.parametrize(("line", "thread"), [
    ("12번째 장면에 강바닥에 숨겨진 부러진 검을 떠올렸다", SWORD),  # remembered
    ("강바닥의 부러진 검은 아직 그대로 남아 있다 (12번째 장면)", SWORD),  # still there
    ("강바닥을 뒤졌지만 12번째 장면의 부러진 검은 흔적도 없었다", SWORD),  # nothing found
    ("12번째 장면의 부러진 검을 강바닥에서 발견하지 못했다", SWORD),  # a negated cue
    ("12번째 장면의 부러진 검, 강바닥", SWORD),  # only the thread's own words
    ("They searched the old tomb for the torn map of scene 14", MAP),
    ("The torn map of scene 14 was never found in the old tomb", MAP),
    ("The torn map hidden in the old tomb in scene 14 still lies there", MAP),
    ("第16个场景里藏在井里的破碎印章没有找到", SEAL),
    ("他想起了第16个场景藏在井里的破碎印章", SEAL),
    # a cue that did not happen: nobody did it, nothing came of it, or it is only meant to
    ("The old tomb was searched for the torn map of scene 14, but nothing had been turned up",
     MAP),
    ("The torn map of scene 14 is somewhere in the old tomb; nobody has laid hands on it yet",
     MAP),
    ("Quest updated: retrieve the torn map from the old tomb (scene 14), progress 0/1", MAP),
    ("They went to the old tomb to recover the torn map hidden in scene 14", MAP),
    ("12번째 장면에 강바닥에 은닉된 부러진 검을 회수하고자 수색조가 파견되었음", SWORD),
    ("12번째 장면의 부러진 검은 강바닥에서 발견되지 아니하였음", SWORD),
    ("第16个场景藏在井里的破碎印章，他们打算去找到", SEAL),
    # not yet secured, buried deeper, cannot be taken out: a prefix or a word before the verb
    ("12번째 장면에 강바닥에 은닉된 부러진 검: 경비 인력 배치, 현재까지 미확보", SWORD),
    ("12번째 장면의 부러진 검, 누가 강바닥에 더 깊숙이 묻어 버려서 이제 아무도 못 꺼낸다", SWORD),
    ("Officers guard the old tomb; the torn map hidden there in scene 14 remains unrecovered",
     MAP),
    ("Nobody's rolled high enough to get the torn map out of the old tomb (scene 14) yet", MAP),
    # searching (the present of 찾다 is seeking), no matter how hard, and not seen
    ("강바닥으로 달려가 12번째 장면의 부러진 검을 찾는데, 아무리 뒤져도 코빼기도 안 보인다", SWORD),
    ("12번째 장면의 부러진 검을 강바닥에서 찾고 있다", SWORD),
    ("The torn map of scene 14 is planned to be taken from the old tomb", MAP),
    # decided to (a plan), a search that turned up nothing, a thing that remains where it was
    ("주인공이 강바닥의 부러진 검을 나중에 회수하기로 함 (12번째 장면 참고)", SWORD),
    ("A search of the old tomb for the torn map of scene 14 turned up nothing.", MAP),
    ("The torn map from scene 14 remains hidden in the old tomb.", MAP),
])
def test_a_line_that_says_the_thread_still_waits_pays_nothing_off(line: str, thread: str
                                                                  ) -> None:
    assert not pays_off(line, thread)
    assert quoted_thread(line, [("t", "", thread)], need_reveal=True) is None


def test_words_that_point_two_ways_keep_both_and_flag_the_facts_they_may_replace() -> None:
    holders = [Holder("c1", "condition", "한서아는 다리를 다쳤다"),
               Holder("w1", "whereabouts", "한서아는 왕도에 있다"),
               Holder("a1", "allegiance", "한서아는 길드 편에 섰다")]
    guess = guess_aspect("한서아는 쓰러진 채 떠났다", holders=holders,
                         names=["한서아"])
    assert guess.aspect == "" and not guess.sure
    assert set(guess.conflicts) == {"c1", "w1"}


def test_a_rule_by_its_keyword_or_its_label_and_doubt_beside_a_plain_setting() -> None:
    assert guess_rule("마나는 이제 아무 때나 회복된다", "마나", current_rule=True).rule
    assert guess_rule("The law of gates: they open every day", "gates",
                      current_rule=False).rule
    assert guess_rule("门的规则：每三天开一次", "门", current_rule=False).rule
    assert not guess_rule("The capital lies by the sea", "capital", current_rule=False).rule
    doubt = guess_rule("Only nobles may enter the capital", "capital", current_rule=False,
                       same_keyword=["s1"])
    assert (doubt.rule, doubt.sure, doubt.conflicts) == (False, False, ("s1",))


def test_a_beat_line_quotes_an_open_thread_with_the_same_numbers_only() -> None:
    threads = [("t12", "복선3", "12번째 장면에서 깨진 인장이 우물 속에 숨겨졌다"),
               ("t18", "복선4", "18번째 장면에서 깨진 인장이 우물 속에 숨겨졌다"),
               ("t20", "omen5", "In scene 20 a black ring was buried under the shrine")]
    assert quoted_thread("12번째 장면에 우물 속에 숨겨진 깨진 인장의 비밀이 드러났다",
                         threads, need_reveal=True) == "t12"
    assert quoted_thread("우물 속에 숨겨진 깨진 인장이 드러났다", threads,
                         need_reveal=True) is None  # which of the two? neither is closed
    assert quoted_thread("12번째 장면에 우물 속에 숨겨진 깨진 인장을 떠올렸다", threads,
                         need_reveal=True) is None  # remembered, not paid off
    assert quoted_thread("the black ring buried under the shrine in scene 20", threads) == "t20"
    assert quoted_thread("복선4가 회수되었다", threads, need_reveal=True) == "t18"


def test_the_word_lists_are_data_beside_the_code() -> None:
    assert WORDS_FILE.suffix == ".toml" and WORDS_FILE.parent.name == "memory"
    assert "다쳤" in WORDS_FILE.read_text(encoding="utf-8")


# ------------------------------------------------------------------------------ memory
def test_a_condition_without_its_aspect_supersedes_the_old_condition(mem: WriterMemory) -> None:
    hurt = note(mem, "한서아는 다리를 다쳤다", "Character", character_name="한서아", chapter=1)
    where = note(mem, "한서아는 왕도에 있다", "Character", character_name="한서아", chapter=1)
    mem.advance()
    sick = note(mem, "한서아는 열병에 걸렸다", "Character", character_name="한서아", chapter=2)
    assert {h.id for h in mem.character_state("한서아")} == {where, sick}
    assert mem.get(str(hurt)).metadata["superseded_by"] == sick
    assert mem.get(str(sick)).metadata["aspect"] == "condition"


def test_without_infer_a_fact_without_aspect_stays_a_note(mem: WriterMemory) -> None:
    batch = mem.stage()
    a = batch.note("한서아는 다리를 다쳤다", "Character", character_name="한서아")
    b = batch.note("한서아는 열병에 걸렸다", "Character", character_name="한서아")
    batch.commit()
    assert {h.id for h in mem.character_state("한서아")} == {a, b}


def test_a_revised_rule_without_the_rule_flag_supersedes_by_its_keyword(
    mem: WriterMemory,
) -> None:
    old = note(mem, "게이트 규칙: 게이트는 사흘마다 열린다", "NovelSetting", keyword="게이트")
    new = note(mem, "게이트는 이제 매일 열린다", "NovelSetting", keyword="게이트")
    assert [h.id for h in mem.world_rules()] == [new]
    assert mem.get(str(old)).metadata["superseded_by"] == new


def test_an_unsure_fact_is_kept_beside_the_other_and_the_writer_settles_the_pair(
    mem: WriterMemory,
) -> None:
    hurt = note(mem, "한서아는 다리를 다쳤다", "Character", character_name="한서아", chapter=1)
    where = note(mem, "한서아는 왕도에 있다", "Character", character_name="한서아", chapter=1)
    both = note(mem, "한서아는 쓰러진 채 떠났다", "Character",
                character_name="한서아", chapter=2)
    assert {h.id for h in mem.character_state("한서아")} == {hurt, where, both}
    pairs = {(a.id, b.id) for a, b in mem.conflicts()}
    assert pairs == {(both, hurt), (both, where)}

    mem.settle(str(both), str(where), "flagged")  # it replaces her whereabouts
    assert mem.get(str(where)).metadata["superseded_by"] == both
    assert mem.get(str(both)).metadata["aspect"] == "whereabouts"
    assert {(a.id, b.id) for a, b in mem.conflicts()} == {(both, hurt)}
    mem.settle(str(both), str(hurt), "both")
    assert mem.conflicts() == []
    assert {h.id for h in mem.character_state("한서아")} == {hurt, both}
    with pytest.raises(NotFoundError):  # settled: nothing waits
        mem.settle(str(both), str(hurt), "other")
    with pytest.raises(InvalidInputError):
        mem.settle(str(both), str(hurt), "neither")


def test_settling_is_undone_like_any_commit(mem: WriterMemory) -> None:
    note(mem, "Mira Kang hurt a leg", "Character", character_name="Mira Kang")
    where = note(mem, "Mira Kang is in the capital", "Character", character_name="Mira Kang")
    both = note(mem, "Mira Kang, wounded, hides in the port town", "Character",
                character_name="Mira Kang")
    pairs = mem.conflicts()
    assert pairs and all(a.id == both for a, _ in pairs)
    batch = mem.settle(str(both), str(where), "other")
    assert mem.get(str(both)).metadata["forgotten"] is True
    assert mem.conflicts() == []
    mem.undo_commit(batch)
    assert mem.get(str(both)).metadata["forgotten"] is False
    assert {b.id for _, b in mem.conflicts()} >= {where}


def test_a_flag_follows_the_slot_when_the_other_fact_is_superseded(mem: WriterMemory) -> None:
    note(mem, "한서아는 다리를 다쳤다", "Character", character_name="한서아", chapter=1)
    where = note(mem, "한서아는 왕도에 있다", "Character", character_name="한서아", chapter=1)
    both = note(mem, "한서아는 쓰러진 채 떠났다", "Character",
                character_name="한서아", chapter=2)
    moved = note(mem, "한서아는 북쪽 요새로 갔다", "Character", character_name="한서아",
                 chapter=3)
    assert mem.get(str(where)).metadata["superseded_by"] == moved
    assert (both, moved) in {(a.id, b.id) for a, b in mem.conflicts()}
