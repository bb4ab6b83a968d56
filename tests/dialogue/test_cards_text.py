"""Voice facts as the writer reads them: values the model wrote as sentences sit inside the line
without doubled punctuation (issue 39 item 12: ".,", "..", "맹세가.에게" in voice cards)."""

from __future__ import annotations

from aizac.dialogue.cards import PairVoice, VoiceCard, card_text, pair_text


def test_a_card_of_sentences_reads_as_one_line() -> None:
    card = VoiceCard("수아.", register="차분하고 정중함.", tics=("헛기침.", "한숨"),
                     catchphrases=("그렇군요.",), dialect="경상도.")
    said = card_text(card, "ko")
    assert said == "수아의 말투: 차분하고 정중함, 사투리: 경상도, 버릇: 헛기침, 한숨, " \
                   "입버릇: '그렇군요'"
    assert ".." not in said and ".," not in said


def test_a_pairs_names_take_their_particles_without_a_full_stop() -> None:
    said = pair_text(PairVoice("민호.", "맹세가.", "polite", "선배."), "ko")
    assert said.startswith("민호는 맹세가에게 ") and "호칭 '선배'" in said
    english = pair_text(PairVoice("Minho.", "Sua", "plain", "kid."), "en")
    assert english.startswith("Minho to Sua: ") and ".." not in english and ".;" not in english
