"""Degenerate model output is recognised (the examples of issue 12) and good output passes."""

from __future__ import annotations

from typing import Any

import pytest

from aizac.writer import quality
from aizac.writer.schemas import (
    BeatDesign,
    CharacterExtraction,
    CharacterProfile,
    DialogueLine,
    NovelPlot,
    RelationExtraction,
    StoryExtraction,
)


def plot_data(**changes: Any) -> dict[str, Any]:
    acts = [
        {"stage": s, "goal": g, "episodes": 10, "key_events": [e]}
        for s, g, e in zip(
            ("exposition", "development", "crisis", "climax", "resolution"),
            ("진도준이 회귀해 재벌가 막내로 태어난다", "투자로 그룹 안에 자기 세력을 만든다",
             "큰아버지들이 그를 횡령범으로 몬다", "주주총회에서 경영권을 되찾는다",
             "그룹을 개혁하고 전생의 가족을 찾는다"),
            ("벼랑길에서 죽고 1987년 병실에서 깨어난다", "IMF 직전에 달러를 사 모은다",
             "압수수색 날 자신의 투자가 증거로 쓰인다", "할아버지의 마지막 편지가 낭독된다",
             "옛 사원증을 서랍에 넣어 둔다"),
            strict=True,
        )
    ]
    data: dict[str, Any] = {
        "title": "재벌집 막내아들의 두 번째 인생",
        "logline": "충직한 비서가 자신을 죽인 재벌가의 막내로 회귀해 복수한다.",
        "genre": "현대 판타지",
        "keywords": ["회귀", "복수", "재벌"],
        "characters": [
            {"name": "진도준", "role": "주인공", "profile": "회귀한 재벌가 막내 손자"},
            {"name": "진양철", "role": "회장", "profile": "손자의 재능을 알아보는 창업주"},
        ],
        "settings": [{"name": "순양그룹", "description": "진씨 일가가 지배하는 재벌 그룹"}],
        "acts": acts,
    }
    data.update(changes)
    return data


def kinds(value: Any, language: str = "ko") -> set[str]:
    return {p.kind for p in quality.find_problems(value, language=language)}


def test_a_good_korean_plot_passes() -> None:
    assert quality.find_problems(NovelPlot.model_validate(plot_data()), language="ko") == []


def test_template_words_as_title_and_heading_are_echo() -> None:
    assert "echo" in kinds(NovelPlot.model_validate(plot_data(title="장르: 현대 판타지")))
    assert "echo" in kinds(NovelPlot.model_validate(plot_data(title="1화 제목")))
    assert "echo" in kinds(NovelPlot.model_validate(plot_data(logline="## Recent summary")))
    assert "echo" in kinds(NovelPlot.model_validate(plot_data(logline="$keywords 이야기")))


def test_every_act_goal_development_is_caught() -> None:
    data = plot_data()
    for act in data["acts"]:
        act["goal"] = "development"
    found = quality.find_problems(NovelPlot.model_validate(data), language="ko")
    assert {p.kind for p in found} >= {"echo", "repeat"}
    assert any(p.path == "acts[].goal" for p in found if p.kind == "repeat")


def test_an_english_plot_for_a_korean_project_is_the_wrong_script() -> None:
    data = plot_data(
        title="The Chaebol's Youngest Son",
        logline="A loyal secretary returns as the youngest grandson of the family that killed him.",
        genre="modern fantasy",
        characters=[{"name": "Jin Do-jun", "role": "protagonist", "profile": "a regressor"}],
        settings=[],
    )
    for act in data["acts"]:
        act["goal"] = f"He moves against the family, step {act['stage']} of the plan."
        act["key_events"] = ["A board meeting turns against the uncles."]
    found = kinds(NovelPlot.model_validate(data))
    assert "script" in found
    # The same plot is fine for an English project.
    assert "script" not in kinds(NovelPlot.model_validate(data), "en")


def test_sentences_as_names_in_plot_beat_and_extraction() -> None:
    plot = NovelPlot.model_validate(plot_data(characters=[
        {"name": "진도준", "role": "주인공", "profile": "회귀한 막내"},
        {"name": "The mark confesses to a hidden offshore,", "role": "조연", "profile": "표적"},
    ]))
    assert [p.path for p in quality.find_problems(plot, language="ko")] == [
        "characters[1].name"
    ]
    beat = BeatDesign(
        location="우주 정거장", time="밤",
        characters=["한서진", "An alien ship arrives, and the team is a"],
        events=["외계 함선이 도착한다"],
    )
    assert kinds(beat) == {"name"}
    relation = RelationExtraction.model_validate({"facts": [
        {"a": "한서진", "b": "그는 복수를 다짐한다", "text": "둘은 적이 된다"},
    ]})
    assert kinds(relation) == {"name"}
    character = CharacterExtraction.model_validate({"facts": [
        {"who": "The team pays off the damage.", "aspect": "other", "text": "팀이 빚을 갚는다"},
    ]})
    assert kinds(character) == {"name"}


@pytest.mark.parametrize(
    "name", ["진도준", "Jin Do-jun", "Lady Elise of Winter", "아르센 드 로엔", "林晚", "Dr. Kim"]
)
def test_real_names_are_names(name: str) -> None:
    assert quality.looks_like_name(name)


@pytest.mark.parametrize(
    "name",
    [
        "The mark confesses to a hidden offshore,",
        "An alien ship arrives, and the team is a",
        "The swindler is running for office",
        "그는 복수를 다짐한다",
        "진도준: 주인공",
        "他在雨夜里终于决定离开这座城市了",
    ],
)
def test_sentences_are_not_names(name: str) -> None:
    assert not quality.looks_like_name(name)


def test_one_sentence_in_every_field_is_caught() -> None:
    same = "The swindler is running for office"
    beat = BeatDesign(
        location=same[:60], time=same[:60], characters=["민서"], events=[same],
        emotions=[same[:60]], conflicts=[same], sets_up=[same], pays_off=[same],
    )
    found = quality.find_problems(beat, language="en")
    assert [p.kind for p in found] == ["repeat"]


def test_a_good_beat_profile_and_extraction_pass() -> None:
    beat = BeatDesign(
        location="순양그룹 회장실", time="1987년 겨울 밤",
        characters=["진도준", "진양철"],
        events=["진도준이 할아버지 앞에서 주가 폭락을 예언한다"],
        dialogue=[DialogueLine(speaker="진양철", line="네가 그걸 어떻게 아느냐.")],
        emotions=["긴장"], conflicts=["아이의 말을 믿을 것인가"],
    )
    assert quality.find_problems(beat, language="ko") == []
    profile = CharacterProfile(
        name="진양철", aliases=["회장님"], role="순양그룹 창업주",
        profile="냉정하지만 손자의 재능을 알아본다", goal="그룹을 지킬 후계자를 찾는다",
    )
    assert quality.find_problems(profile, language="ko") == []
    story = StoryExtraction.model_validate({"facts": [
        {"text": "진도준이 주가 폭락을 예언했다", "keyword": "예언"},
        {"text": "진양철이 손자를 서재로 불렀다", "keyword": "독대"},
    ]})
    assert quality.find_problems(story, language="ko") == []


def test_repair_text_speaks_the_project_language() -> None:
    problems = quality.find_problems(
        BeatDesign(location="밤", time="밤", characters=["그는 복수를 다짐한다"], events=["x"]),
        language="ko",
    )
    text = quality.repair_text(problems, "ko")
    assert text.startswith("앞의 답은 쓸 수 없습니다") and "이름이 아닙니다" in text
    assert "is not a name" in quality.describe(problems, "en")


def test_enum_aspects_of_character_facts_are_not_degenerate() -> None:
    """CharacterFact.aspect is a closed English enum: four facts of one aspect in a Korean
    project are neither a repeat, an echo nor the wrong script."""
    from aizac.writer.quality import find_problems
    from aizac.writer.schemas import CharacterExtraction

    reply = CharacterExtraction.model_validate({"facts": [
        {"who": name, "aspect": "whereabouts", "text": f"{name}은 {place}에 있다"}
        for name, place in (("진도준", "왕도"), ("이서연", "북쪽 요새"), ("박민호", "항구"),
                            ("최지우", "황궁"))
    ]})
    assert find_problems(reply, language="ko") == []


@pytest.mark.parametrize("name", ["12345678", "2022-01-20; 2", "1987", "-"])
def test_a_name_without_a_letter_is_not_a_name(name: str) -> None:
    assert not quality.looks_like_name(name)


def test_a_beat_placed_at_a_number_is_caught() -> None:
    # The embedded model's beat: location "12345678" was stored as canon before.
    beat = BeatDesign(
        location="12345678", time="1987년 겨울 밤", characters=["진도준"],
        events=["진도준이 할아버지 앞에서 주가 폭락을 예언한다"],
    )
    found = quality.find_problems(beat, language="ko")
    assert [(p.kind, p.path) for p in found] == [("name", "location")]


# ------------------------------------------------------------ names are names (issue 24 item 3)
ROMANISED = ["Yoon Jiwoo", "Baek Dohyun", "Kang Taeho"]
HANGUL = ["한서아", "백도현", "강태호"]
HANZI = ["林晓", "陈默"]


def _story(*texts: str) -> StoryExtraction:
    return StoryExtraction.model_validate({"facts": [{"text": t} for t in texts]})


def script_problems(value: Any, language: str, names: list[str]) -> list[str]:
    return [p.detail for p in quality.find_problems(value, language=language, names=names)
            if p.kind == "script"]


KOREAN_WITH_ROMANISED = _story(
    "Yoon Jiwoo와 Baek Dohyun이 Kang Taeho를 쫓았다.",
    "Baek Dohyun은 Kang Taeho의 검을 빼앗아 강물에 던졌다.",
    "Yoon Jiwoo는 Kang Taeho가 숨긴 장부를 찾아냈다.",
)


def test_a_korean_extraction_about_a_romanised_cast_is_korean() -> None:
    assert script_problems(KOREAN_WITH_ROMANISED, "ko", ROMANISED) == []
    # what the check said before it knew the cast: the names counted as English
    assert script_problems(KOREAN_WITH_ROMANISED, "ko", []) != []


@pytest.mark.parametrize(("language", "texts", "cast"), [
    ("en", ["한서아 and 백도현 chased 강태호 through the night market until dawn.",
            "백도현 threw 강태호's sword into the river and ran."], HANGUL),
    ("zh", ["Yoon Jiwoo和한서아一起追赶Kang Taeho，直到天亮才停下。",
            "Baek Dohyun把林晓的剑扔进了河里。"], [*ROMANISED, *HANGUL, *HANZI]),
    ("ko", ["林晓와 陈默은 Kang Taeho를 따라 북쪽 요새로 향했다.",
            "陈默은 한서아에게 Yoon Jiwoo의 편지를 건넸다."], [*ROMANISED, *HANGUL, *HANZI]),
])
def test_mixed_casts_in_every_language_pass(language: str, texts: list[str],
                                            cast: list[str]) -> None:
    assert script_problems(_story(*texts), language, cast) == []


def test_names_the_reply_gives_and_quoted_proper_nouns_count_as_names() -> None:
    reply = CharacterExtraction.model_validate({"facts": [
        {"who": "c1", "name": "Kang Taeho", "aspect": "other",
         "text": "Kang Taeho는 Baek Dohyun에게 등을 돌렸다"},
        {"who": "c2", "name": "Baek Dohyun", "aspect": "other",
         "text": "Baek Dohyun은 Kang Taeho를 끝까지 쫓았다"},
    ]})
    assert script_problems(reply, "ko", []) == []
    quoted = _story('한서아는 "Black Lotus Syndicate" 본부로 들어가 장부를 훔쳤다.',
                    "백도현은 『Moonlit Blade』를 읽고 검술을 익혔다.")
    assert script_problems(quoted, "ko", []) == []


def test_english_sentences_in_a_korean_project_are_still_refused() -> None:
    english = _story("Yoon Jiwoo and Baek Dohyun chased Kang Taeho through the market.",
                     "Baek Dohyun threw the sword of Kang Taeho into the river at night.",
                     'Yoon Jiwoo said "we are going to find the ledger before the dawn".')
    assert script_problems(english, "ko", ROMANISED) != []
