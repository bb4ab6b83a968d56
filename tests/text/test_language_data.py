"""The words that moved from Python literals into data files still do their work.

Each case below used a Hangul or Chinese literal in a core module before the words moved to the
TOML file beside it (``writer/quality.toml``, ``dialogue/speech.toml``, ``dialogue/voice.toml``,
``style/lexicon.toml``, ``continuity/words.toml``); each fails if its entry is lost there.
"""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("value", ["장르: 현대 판타지", "1화 제목", "제 3 화", "第3章 标题",
                                   "人物：林风", "Episode 2 title", "키워드"])
def test_an_echoed_label_or_episode_title_is_echo(value: str) -> None:
    from aizac.writer.quality import is_echo

    assert is_echo(value)


@pytest.mark.parametrize(("name", "ok"), [("그는 복수를 다짐한다", False), ("검은 연꽃", True),
                                          ("他们在黄昏时分出发了", False), ("林风", True),
                                          ("An alien ship arrives and the team", False)])
def test_a_sentence_is_no_name(name: str, ok: bool) -> None:
    from aizac.writer.quality import looks_like_name

    assert looks_like_name(name) is ok


def test_the_feedback_speaks_the_prompt_language_and_names_the_project_language() -> None:
    from aizac.writer.quality import Problem, describe, repair_text

    script = [Problem("script", "story.facts[0].text", "the seal broke", "10%")]
    assert describe(script, "zh", project="ko") == (
        "“story.facts[0].text”没有用韩语书写：'the seal broke'（请用韩语书写，名字保持原样）")
    korean = describe(script, "ko", project="zh")
    assert korean == ("'story.facts[0].text' 칸의 값이 중국어로 쓰이지 않았습니다: "
                      "'the seal broke' (중국어로 쓰세요. 이름은 그대로 둡니다)")
    assert repair_text(script, "zh").startswith("上一个回答无法使用：")


def test_a_title_with_its_honorific_and_a_bare_name_are_forms_of_address() -> None:
    from aizac.dialogue.speech import parse_address, vocatives

    assert parse_address("선배님", "ko").key == parse_address("선배", "ko").key
    assert parse_address("검사님", "ko").value == "검사"  # a title the lists do not know
    assert parse_address("이름", "ko", "수아").value == parse_address("直呼其名", "zh").value
    [called] = vocatives("수아야, 가자.", "ko", {"윤수아": ()})
    assert (called.kind, called.name) == ("name", "윤수아")
    assert vocatives("수아 씨, 가요.", "ko", {"윤수아": ()})[0].value != called.value


def test_laughter_is_stripped_with_the_punctuation() -> None:
    from aizac.dialogue.speech import sentence_level

    assert sentence_level("알겠어요ㅋㅋㅋ", "ko") == sentence_level("알겠어요", "ko") == "polite"


def test_a_korean_pair_voice_puts_the_topic_particle_after_the_speaker() -> None:
    from aizac.dialogue.cards import PairVoice, pair_text

    assert pair_text(PairVoice("민호", "수아", address="선배"), "ko").startswith("민호는 수아에게")
    assert pair_text(PairVoice("민준", "수아", address="선배"), "ko").startswith("민준은 수아에게")
    assert pair_text(PairVoice("Jun", "Mira", address="boss"), "en").startswith("Jun to Mira")


def test_onomatopoeia_is_found_under_its_verb_ending() -> None:
    from aizac.style.metrics import _onomatopoeia, style_lexicon

    assert _onomatopoeia("쿵쿵거리며", style_lexicon("ko"))
    assert not _onomatopoeia("생각하며", style_lexicon("ko"))


def test_a_relation_told_as_coming_back_is_named_again() -> None:
    from aizac.continuity.text import AGAIN, has_any

    assert has_any("두 사람은 화해했다", AGAIN) and has_any("他们和好了", AGAIN)
