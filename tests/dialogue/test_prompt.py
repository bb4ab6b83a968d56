"""The dialogue notes of the prose prompt: the speakers' voices only, within their budget."""

from __future__ import annotations

from aizac.dialogue.canon import VoiceCanon
from aizac.dialogue.cards import PairVoice, VoiceCard
from aizac.dialogue.plan import DialoguePlan, PlanTurn, settle_plan
from aizac.dialogue.prompt import dialogue_block, plan_lines, voice_lines
from aizac.tokens import count_tokens

CANON = VoiceCanon(
    cards={"박지훈": VoiceCard("박지훈", "무뚝뚝함", catchphrases=("귀찮게 하네",)),
           "진양철": VoiceCard("진양철", "위압적", catchphrases=("돈은 거짓말을 안 한다",))},
    pairs={("강민호", "윤수아"): PairVoice("강민호", "윤수아", "polite", "선배"),
           ("진양철", "강민호"): PairVoice("진양철", "강민호", "plain", "민호")},
    cast={"강민호": (), "윤수아": (), "박지훈": (), "진양철": ()},
)


def test_only_the_speakers_cards_and_how_they_speak_to_those_present() -> None:
    lines = voice_lines(CANON, ["강민호", "박지훈"], "ko", ["강민호", "윤수아", "박지훈"])
    assert lines == ["박지훈의 말투: 무뚝뚝함, 입버릇: '귀찮게 하네'",
                     "강민호는 윤수아에게 존댓말(해요체), 호칭 '선배'"]
    assert not any("진양철" in line for line in lines)  # not in the scene, not a speaker


def test_the_block_fits_its_budget_dropping_the_plan_before_the_voices() -> None:
    plan = DialoguePlan(turns=[PlanTurn(speaker="강민호", to="윤수아", wants="붙잡기",
                                        gist="잠깐만")] * 4)
    voices = voice_lines(CANON, ["강민호", "박지훈"], "ko", ["윤수아"])
    full = dialogue_block(voices, plan_lines(plan, "ko"), "ko", 1000)
    assert "## 대화 계획" in full and "## 말하는 인물의 말투" in full
    tight = dialogue_block(voices, plan_lines(plan, "ko"), "ko", count_tokens(full) - 10)
    assert count_tokens(tight) <= count_tokens(full) - 10 and "존댓말(해요체)" in tight
    small = dialogue_block(voices, plan_lines(plan, "ko"), "ko", 40)
    assert "## 대화 계획" not in small and count_tokens(small) <= 40
    assert dialogue_block([], [], "ko", 100) == ""


def test_a_plans_turns_are_kept_between_the_scenes_speakers() -> None:
    plan = DialoguePlan(turns=[
        PlanTurn(speaker="강민호", to="윤수아", wants="-", gist="a"),
        PlanTurn(speaker="누군가", to="윤수아", wants="-", gist="b"),
        PlanTurn(speaker="윤수아", to="윤수아", wants="-", gist="c"),
    ])
    settled = settle_plan(plan, ["강민호", "윤수아"])
    assert settled is not None and [t.gist for t in settled.turns] == ["a"]
    assert settle_plan(DialoguePlan(turns=plan.turns[1:]), ["강민호", "윤수아"]) is None
