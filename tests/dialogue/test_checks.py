"""The dialogue checks as pure functions over a hand-built voice canon and spoken lines."""

from __future__ import annotations

from aizac.dialogue.canon import Death, VoiceCanon
from aizac.dialogue.cards import PairVoice, VoiceCard
from aizac.dialogue.checks import check_lines, listener_of
from aizac.dialogue.lines import SpokenLine

CAST = {"강민호": ("민호",), "윤수아": (), "박지훈": ("지훈",), "최동수": ()}
CANON = VoiceCanon(
    cards={"박지훈": VoiceCard("박지훈", catchphrases=("귀찮게 하네",), memory_id="card-j")},
    pairs={
        ("강민호", "윤수아"): PairVoice("강민호", "윤수아", "polite", "선배", "m-s"),
        ("윤수아", "강민호"): PairVoice("윤수아", "강민호", "plain", "민호야", "s-m"),
        ("박지훈", "윤수아"): PairVoice("박지훈", "윤수아", "plain", "수아야", "j-s"),
        ("강민호", "박지훈"): PairVoice("강민호", "박지훈", "plain", "형", "m-j"),
    },
    cast=CAST,
    dead={"최동수": Death("d-c", "최동수는 화재로 사망했다")},
)
PAIR_SCENE = ("강민호", "윤수아")
TRIO = ("강민호", "윤수아", "박지훈")


def line(speaker: str, text: str, scene: tuple[str, ...] = PAIR_SCENE, *, to: str = "",
         flashback: bool = False, source: str = "beat") -> SpokenLine:
    return SpokenLine(speaker, text, 2, 0, scene, source, flashback, to)


def found(*lines: SpokenLine, language: str = "ko") -> list[tuple[str, str | None]]:
    return [(f.kind, f.memory_id) for f in check_lines(list(lines), CANON, language=language)]


def test_lines_that_keep_every_voice_are_clean() -> None:
    assert found(line("강민호", "선배, 어디 가세요?"), line("윤수아", "민호야, 도서관 가."),
                 line("강민호", "형, 배고파.", TRIO), line("박지훈", "귀찮게 하네.", TRIO)) == []


def test_a_junior_who_suddenly_speaks_banmal_to_a_senior_is_caught() -> None:
    assert found(line("강민호", "선배, 어디 가?")) == [("speech_level", "m-s")]
    assert found(line("강민호", "어디 가?")) == [("speech_level", "m-s")]  # no call: the scene


def test_a_swapped_form_of_address_is_caught() -> None:
    assert found(line("강민호", "수아야, 어디 가세요?")) == [("address_form", "m-s")]


def test_a_line_given_to_the_wrong_speaker_is_traced_to_whose_line_it_is() -> None:
    assert found(line("박지훈", "선배, 어디 가세요?", TRIO)) == [("wrong_speaker", "m-s")]


def test_another_characters_catchphrase_is_a_warning_citing_their_card() -> None:
    findings = check_lines([line("강민호", "귀찮게 하네, 정말요.")], CANON, language="ko")
    assert [(f.kind, f.severity, f.memory_id) for f in findings] == [
        ("catchphrase", "warning", "card-j")]


def test_a_dead_or_absent_speaker_is_caught_but_the_dead_may_speak_in_a_flashback() -> None:
    assert found(line("최동수", "살려 줘!", (*PAIR_SCENE, "최동수"))) == [("dead_speaker", "d-c")]
    assert found(line("최동수", "살려 줘!", (*PAIR_SCENE, "최동수"), flashback=True)) == []
    assert found(line("박지훈", "뭐야?")) == [("speaker_absent", None)]


def test_the_listener_comes_from_the_plan_a_name_the_scene_or_the_speakers_own_title() -> None:
    def to(text: str, scene: tuple[str, ...], plan: str = "") -> str:
        return listener_of(line("강민호", text, scene, to=plan), CANON, "ko")

    assert to("뭐 해?", PAIR_SCENE) == "윤수아"
    assert to("뭐 해?", TRIO) == ""  # three people, nothing says who
    assert to("뭐 해?", TRIO, plan="박지훈") == "박지훈"
    assert to("지훈아, 뭐 해?", TRIO) == "박지훈"
    assert to("형, 뭐 해?", TRIO) == "박지훈"  # 강민호 calls 박지훈 형
    assert to("선배, 뭐 해요?", TRIO) == "윤수아"


def test_english_lines_are_checked_by_markers_and_calls() -> None:
    canon = VoiceCanon(
        pairs={("tomreyes", "victorhale"): PairVoice("Tom Reyes", "Victor Hale", "polite",
                                                      "Mr. Hale", "t-v")},
        cast={"Tom Reyes": ("Tom",), "Victor Hale": ("Victor",)},
    )
    scene = ("Tom Reyes", "Victor Hale")

    def check(text: str) -> list[tuple[str, str | None]]:
        return [(f.kind, f.memory_id) for f in check_lines(
            [SpokenLine("Tom Reyes", text, 1, 0, scene, "beat")], canon, language="en")]

    assert check("Mr. Hale, the car is ready, sir.") == []
    assert check("Hey, the car's ready, gonna come?") == [("speech_level", "t-v")]
    assert check("Victor, the car is ready.") == [("address_form", "t-v")]
