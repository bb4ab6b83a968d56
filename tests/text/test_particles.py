"""Korean particles chosen by the sound the word ends in."""

from __future__ import annotations

import pytest

from aizac.text.particles import attach, final_consonant


@pytest.mark.parametrize(("word", "particle", "expected"), [
    ("도준", "이", "도준이"), ("서아", "이", "서아가"), ("서아", "가", "서아가"),
    ("검", "를", "검을"), ("칼", "으로", "칼로"), ("집", "로", "집으로"), ("바다", "로", "바다로"),
    ("미라", "과", "미라와"), ("도준", "와", "도준과"), ("'검'", "이", "'검'이"),
    ("3", "이", "3이"), ("2", "이", "2가"), ("10", "이", "10이"), ("7", "로", "7로"),
    ("Baek Dohyun", "이", "Baek Dohyun이"), ("Yoon Jiwoo", "이", "Yoon Jiwoo가"),
    ("Kang", "은", "Kang은"), ("Mike", "는", "Mike는"), ("Jane", "이", "Jane이"),
    ("李明", "이", "李明이(가)"), ("李明", "로", "李明(으)로"),
])
def test_the_particle_agrees(word: str, particle: str, expected: str) -> None:
    assert attach(word, particle) == expected


def test_an_unknown_particle_is_refused() -> None:
    with pytest.raises(KeyError):
        attach("도준", "께서")


def test_punctuation_and_empty_values() -> None:
    assert final_consonant("") is None
    assert final_consonant("검.)") == 16
