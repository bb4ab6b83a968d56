"""Speech levels and forms of address read from a line (Korean endings, English/Chinese markers)."""

from __future__ import annotations

import pytest

from aizac.dialogue.speech import level_of, parse_address, sentences, vocatives

CAST = {"윤수아": (), "강민호": ("민호",), "Mira Kang": ("Mira",), "林风": ()}


@pytest.mark.parametrize(("line", "level"), [
    ("선배, 어디 가세요?", "polite"),
    ("회장님, 보고드리겠습니다.", "formal"),
    ("알겠습니까?", "formal"),
    ("아닙니다.", "formal"),
    ("합시다.", "formal"),
    ("그렇죠?", "polite"),
    ("네.", "polite"),
    ("여기서 뭐 해?", "plain"),
    ("늦었어.", "plain"),
    ("이제 시작이야.", "plain"),
    ("아니다.", "plain"),  # 니다 without ㅂ before it is not formal
    ("응.", "plain"),
    ("됐거든.", "plain"),
    ("잘 가, 누나", "plain"),  # a trailing vocative is not the ending
    ("Would you kindly wait, sir?", "polite"),
    ("Hey, you gonna help or what?", "plain"),
    ("请问您去哪儿？", "polite"),
    ("你去哪儿？", "plain"),
])
def test_a_lines_level_is_read_from_its_endings_or_markers(line: str, level: str) -> None:
    lang = "ko" if any("가" <= c <= "힣" for c in line) else (
        "zh" if any("\u4e00" <= c <= "\u9fff" for c in line) else "en")
    reading = level_of(line, lang)
    assert reading is not None and reading.level == level, reading


@pytest.mark.parametrize("line", ["선배!", "수아야!", "그건 필요.", "좋아요. 그런데 뭐 해?",
                                  "Yes."])
def test_nothing_decides_the_level_of_a_call_a_noun_or_a_mixed_line(line: str) -> None:
    lang = "en" if line.isascii() else "ko"
    assert level_of(line, lang, ["수아", "윤수아"]) is None


def test_vocatives_are_titles_and_names_at_the_edges_of_a_sentence() -> None:
    def keys(line: str, lang: str = "ko") -> list[str]:
        return [a.key for a in vocatives(line, lang, CAST)]

    assert keys("선배님, 어디 가세요?") == ["title:선배"]  # 님 or not: one form
    assert keys("수아야, 가자!") == ["name:name"]
    assert keys("민호 씨, 왜요?") == ["name:name씨"]
    assert keys("김 회장님, 늦었습니다.") == ["title:회장"]
    assert keys("어제 선배가 그러던데 진짜야?") == []  # a mention, not a call
    assert keys("Mira, wait.", "en") == ["name:name"]
    assert keys("Yes, sir.", "en") == ["title:sir"]
    assert keys("Mr. Kang, please.", "en") == ["title:sir"]  # sir, Mr., ma'am: one form
    assert keys("师兄，你来了！", "zh") == ["title:师兄"]


def test_a_stored_address_parses_to_the_same_key_as_the_call() -> None:
    assert parse_address("선배님", "ko").key == vocatives("선배, 가요", "ko", CAST)[0].key
    assert parse_address("수아야", "ko", "윤수아").key == "name:name"
    assert parse_address("bare name", "en", "Mira Kang").key == "name:name"


def test_the_dot_of_mr_does_not_end_a_sentence() -> None:
    assert sentences("Mr. Kang, please. Now.") == ["Mr Kang, please.", "Now."]


def test_a_quote_is_given_to_a_subject_with_an_honorific_particle() -> None:
    from aizac.dialogue.lines import attributed

    cast = {"최동수": (), "윤수아": ()}
    # 께서는 was missing from the subject particles the dialogue check kept of its own.
    assert attributed('동수께서는 "가자."라고 말했다.', "ko", cast) == [("최동수", "가자.")]
    assert attributed('수아가 "가자."라고 말했다.', "ko", cast) == [("윤수아", "가자.")]
    assert attributed('수아의 동생이 "가자."라고 말했다.', "ko", cast) == []
