"""The style profile: measured from the writer's own text, the same for the same text."""

from __future__ import annotations

import dataclasses

from aizac.style import Passage, build_profile, count, drift
from aizac.style.edits import edit_words, tally

WRITER_KO = """민호는 문을 열었어. 바람이 거셌어.
"선배, 어디 가세요?"
수아는 대답하지 않았어… 쿵. 쿵쿵.
두근두근. 심장이 뛰었어!"""
MODEL_KO = """민호는 매우 조심스럽게 문을 열었고 밖에서는 바람이 그러나 거세게 불어오고 있었다.
"선배, 어디 가세요?"
수아는 대답하지 않고 계단을 천천히 내려가 버렸으며 민호는 그 뒷모습을 한참 동안 바라보았다."""


def passage(key: str, writer: str, model: str = "", kind: str = "prose") -> Passage:
    return Passage(key, kind, "ko", model, writer)


def test_metrics_read_sentences_paragraphs_dialogue_endings_marks_and_sounds() -> None:
    m = count(WRITER_KO, "ko").metrics("ko")
    assert m.paragraph_len and 0 < m.dialogue_share < 0.3
    assert m.endings["eo"] > m.endings["da"]  # 했어 narration, not 했다
    assert m.honorific_share == 1.0  # the one line is 해요체
    assert m.punctuation["ellipsis"] > 0 and m.punctuation["exclamation"] > 0
    assert m.onomatopoeia > 0 and {"쿵쿵", "두근두근"} <= set(m.onomatopoeia_words)
    long = count(MODEL_KO, "ko").metrics("ko")
    assert long.sentence_len > 2 * m.sentence_len and long.long_share > 0.5
    assert long.endings["da"] == 1.0
    english = count('Mira ran. "Wait, sir!" she said. Bang.\nThe door held.', "en").metrics("en")
    assert english.endings == {} and english.onomatopoeia > 0 and english.sentence_len < 4


def test_the_same_passages_give_the_same_profile_in_any_order() -> None:
    passages = [passage("p/1", WRITER_KO, MODEL_KO), passage("p/2", "그는 웃었어.\n\"왜?\""),
                passage("p/3", MODEL_KO)]
    one = build_profile(passages, "ko")
    again = build_profile(list(reversed(passages)), "ko")
    assert one == again and one.to_dict() == again.to_dict()
    assert one.passages == 3 and one.edits == 1


def test_the_profile_is_the_writers_text_not_the_models() -> None:
    drafted_only = passage("p/1", "", MODEL_KO)
    assert not build_profile([drafted_only], "ko").ready
    edited = build_profile([passage("p/1", WRITER_KO, MODEL_KO)], "ko")
    assert edited.metrics == count(WRITER_KO, "ko").metrics("ko")
    assert build_profile([passage("p/1", WRITER_KO)], "en").passages == 0  # other language


def test_edits_count_the_words_a_writer_keeps_deleting_and_adding() -> None:
    one = edit_words("그는 매우 빠르게 달렸다. 그러나 늦었다.", "그는 달렸어. 늦었어.", "ko")
    assert {"매우", "그러나", "달렸다"} <= one.deleted and {"달렸어", "늦었어"} <= one.added
    two = edit_words("그녀는 매우 기뻤다.", "그녀는 기뻤어.", "ko")
    deleted, _ = tally([one, two])
    assert ("매우", 2) in deleted and ("그러나", 1) not in deleted  # once is not a habit
    profile = build_profile([
        passage("a", "그는 달렸어. 늦었어.", "그는 매우 빠르게 달렸다. 그러나 늦었다."),
        passage("b", "그녀는 기뻤어.", "그녀는 매우 기뻤다.")], "ko")
    assert profile.deleted[0] == ("매우", 2)


def test_drift_is_zero_for_the_writers_own_text_and_grows_with_the_models() -> None:
    profile = build_profile([passage("p/1", WRITER_KO, MODEL_KO)], "ko")
    same = drift(profile, [WRITER_KO], 3)
    far = drift(profile, [MODEL_KO], 3)
    assert same.score == 0.0 and far.score > 20.0 and far.episode == 3
    worst = {r.metric for r in far.worst(4)}
    assert {"ending_da", "ending_eo"} & worst
    row = next(r for r in far.rows if r.metric == "sentence_len")
    assert row.drafted > row.writer and 0 < row.gap <= 1
    assert dataclasses.replace(far, rows=()).score == 0.0


def test_a_counted_word_loses_every_particle_a_noun_carries() -> None:
    from aizac.style.metrics import words

    # 하고 and 랑 were missing from the list the style profile kept of its own.
    assert words("민수하고 영희랑 서울까지 갔다", "ko") == ["민수", "영희", "서울", "갔다"]
    assert words("사랑 노래", "ko") == ["사랑", "노래"]  # too short to be a word and 랑
