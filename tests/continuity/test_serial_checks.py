"""The serial continuity report's deterministic checks: each finds its plant, at the right
episode and paragraph with both quotes, and stays quiet on the clean telling."""

from __future__ import annotations

from aizac.continuity.serial_checks import (
    Death,
    Person,
    Quantity,
    RelationChange,
    SceneText,
    SerialInput,
    Sighting,
    ThreadFacts,
    abandoned_threads,
    changed_quantities,
    dead_acting,
    design_sightings,
    name_variants,
    one_apart,
    two_places,
)
from aizac.continuity.serial_report import Spot
from aizac.dialogue.serial import speech_switches

CAST = (Person("백무진", ("무진", "백 대주")), Person("한서아", ("서아",)),
        Person("오민재", ("민재",)), Person("윤하린", ("하린",)))


def serial(*episodes: list[str], **facts: object) -> SerialInput:
    """One scene per episode (episode n is ``episodes[n-1]``, paragraphs numbered from 1)."""
    scenes = tuple(SceneText(n, 1, tuple(paras)) for n, paras in enumerate(episodes, 1))
    return SerialInput("ko", scenes, CAST, **facts)  # type: ignore[arg-type]


DEATH_TEXT = "흑랑의 칼이 백무진의 가슴을 꿰뚫었다. 백무진은 그렇게 죽었다."
DEATH = Death("백무진", Spot(1, 2, DEATH_TEXT))


def test_a_dead_character_acting_is_found_with_both_places() -> None:
    data = serial(["서아는 성문을 지켰다.", DEATH_TEXT],
                  ["바람이 불었다.", "문이 열리고 백무진이 들어왔다. 그는 화로 곁에 앉았다."],
                  deaths=(DEATH,))
    [found] = dead_acting(data)
    assert found.subtype == "dead_character" and found.category == "characterization"
    assert (found.at.episode, found.at.paragraph) == (2, 2)
    assert "백무진이 들어왔다" in found.at.quote and found.source == DEATH.at


def test_the_dead_remembered_mourned_or_owned_is_no_finding() -> None:
    data = serial(["서아는 성문을 지켰다.", DEATH_TEXT],
                  ["서아는 백무진의 낡은 칼을 닦았다.", "백무진의 장례식은 조용했다.",
                   "백무진이 살아 있었다면 뭐라고 했을까.", "민재가 말했다. “백무진이 그랬어요.”"],
                  deaths=(DEATH,))
    assert dead_acting(data) == []
    before = serial(["백무진이 들어왔다.", DEATH_TEXT], deaths=(DEATH,))
    assert dead_acting(before) == []  # alive then


def test_a_name_spelled_two_ways_cites_the_first_use_of_the_name() -> None:
    data = serial(["백무진은 성문을 지켰다.", "백무진이 웃었다."],
                  ["백무신은 바람의 방향을 살폈다."])
    [found] = name_variants(data)
    assert found.subtype == "nomenclature" and found.category == "factual"
    assert (found.at.episode, found.at.paragraph) == (2, 1)
    assert found.source is not None and (found.source.episode, found.source.paragraph) == (1, 1)
    clean = serial(["백무진은 성문을 지켰다.", "백무진이 웃었다."], ["백무진은 바람을 살폈다."])
    assert name_variants(clean) == []


def test_one_apart() -> None:
    assert one_apart("백무신", "백무진") and one_apart("Victor", "Victr")
    assert not one_apart("백무진", "백무진") and not one_apart("한서아", "서진우")


def test_a_number_that_changed_without_a_told_change() -> None:
    old = Quantity("q1", "금화", 300, Spot(1, 1, "금화는 삼백 냥뿐이었다."))
    new = Quantity("q2", "금화", 500, Spot(3, 2, "금화 오백 냥이 쌓여 있었다."), "q1")
    [found] = changed_quantities(serial(quantities=(old, new)))
    assert found.subtype == "quantity" and found.at == new.at and found.source == old.at
    told = Quantity("q2", "금화", 500, new.at, "q1", stated_change=True)
    same = Quantity("q2", "금화", 300, new.at, "q1")
    assert changed_quantities(serial(quantities=(old, told))) == []
    assert changed_quantities(serial(quantities=(old, same))) == []


def test_two_places_at_one_time() -> None:
    a = Sighting("서아", "북방 요새 성벽", "밤", Spot(4, 2, "서아는 요새 성벽에서 밤을 지켰다."))
    b = Sighting("한서아", "왕도 서문 시장", "밤", Spot(4, 5, "같은 시각, 서아는 시장에 있었다."))
    [found] = two_places(serial(sightings=(a, b)))
    assert found.subtype == "geography" and found.at == b.at and found.source == a.at
    other = Sighting("오민재", "왕도 서문 시장", "밤", b.at)
    later = Sighting("한서아", "왕도 서문 시장", "아침", b.at)
    near = Sighting("한서아", "요새 병영", "밤", b.at)
    for clean in (other, later, near):
        assert two_places(serial(sightings=(a, clean))) == []


def test_design_sightings_put_the_cast_where_the_scene_is() -> None:
    scene = SceneText(2, 4, ("바람이 불었다.", "서아는 칼을 닦았다."), 7, "요새", "밤", ("서아",))
    [seen] = design_sightings([scene], CAST)
    assert seen == Sighting("한서아", "요새", "밤", Spot(2, 5, "서아는 칼을 닦았다.", 7))


def test_a_thread_left_untouched_for_n_episodes() -> None:
    planted = Spot(2, 3, "우물 밑에서 이름을 부르는 소리가 들린다는 소문이 돌았다.")
    thread = ThreadFacts("well", planted.quote, planted)
    [found] = abandoned_threads(serial(threads=(thread,)), last=20, gap=10)
    assert found.subtype == "abandoned_thread" and found.at == planted and found.source is None
    touched = ThreadFacts("well", planted.quote, planted, (Spot(15, 1, "목소리가 또렷해졌다."),))
    paid = ThreadFacts("well", planted.quote, planted, (), Spot(18, 1, "목소리는 그쳤다."))
    assert abandoned_threads(serial(threads=(touched,)), last=20, gap=10) == []
    assert abandoned_threads(serial(threads=(paid,)), last=20, gap=10) == []
    assert abandoned_threads(serial(threads=(thread,)), last=12, gap=10) == []


POLITE = "민재가 하린에게 말했다. “약초를 받아 왔습니다.” 하린은 보따리를 받았다."
PLAIN = "민재가 하린에게 말했다. “약초 다 떨어졌어. 내가 구해 올게.” 하린은 고개를 끄덕였다."


def test_a_speech_level_switched_without_a_relation_change() -> None:
    rel = (RelationChange("오민재", "윤하린", "심부름꾼과 약사", 1),)
    data = serial([POLITE], ["바람이 불었다.", PLAIN], [POLITE], relations=rel)
    [found] = speech_switches(data)
    assert found.subtype == "speech_level" and (found.at.episode, found.at.paragraph) == (2, 2)
    assert found.source is not None and found.source.quote == POLITE
    assert speech_switches(serial([POLITE], [POLITE], relations=rel)) == []
    changed = (*rel, RelationChange("오민재", "윤하린", "남매", 2))
    assert speech_switches(serial([POLITE], ["바람이 불었다.", PLAIN], relations=changed)) == []
