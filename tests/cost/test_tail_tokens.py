"""The previous-prose tail is cut by tokens, not characters."""

from __future__ import annotations

from aizac.tokens import count_tokens
from aizac.writer.context import last_tokens, tail_tokens


def test_one_long_hangul_paragraph_fits_the_budget() -> None:
    tail = tail_tokens("가" * 2000, 300)
    assert count_tokens(tail) <= 300
    assert count_tokens(tail) >= 295  # and uses it, from the end of the text
    assert tail == "가" * len(tail)


def test_chinese_and_english_paragraphs_fit_too() -> None:
    zh = tail_tokens("他走进门。" * 400, 120)
    assert 110 <= count_tokens(zh) <= 120 and zh.endswith("他走进门。")
    en = tail_tokens("the gate opened slowly " * 300, 50)
    assert 45 <= count_tokens(en) <= 50 and en.endswith("slowly")


def test_whole_paragraphs_are_kept_when_they_fit() -> None:
    text = "첫 문단이다.\n\n둘째 문단이다.\n셋째 문단이다."
    assert tail_tokens(text, 100) == "첫 문단이다.\n둘째 문단이다.\n셋째 문단이다."
    assert tail_tokens(text, 14) == "둘째 문단이다.\n셋째 문단이다."


def test_last_tokens_edges() -> None:
    assert last_tokens("가나다", 0) == ""
    assert last_tokens("가나다", 2) == "나다"
    assert last_tokens("", 5) == ""
