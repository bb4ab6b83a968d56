"""Korean particles: chosen by the sound the word ends in, read from one home."""

from __future__ import annotations

import pytest

from aizac.text.particles import (
    NAME_PARTICLES,
    NAME_TITLES,
    NOUN_PARTICLES,
    SUBJECT_PARTICLES,
    VOCATIVE_PARTICLES,
    attach,
    final_consonant,
    name_stems,
)


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


@pytest.mark.parametrize(("word", "stem"), [
    ("진도준님이", "진도준"), ("이영민과", "이영민"), ("도준이가", "도준"), ("미라 씨", "미라"),
    ("미라야", "미라"), ("할머니께서는", "할머니"), ("서울까지", "서울"), ("수아 선배에게", "수아"),
])
def test_a_name_is_found_without_what_it_carries(word: str, stem: str) -> None:
    assert stem in name_stems(word)


def test_a_stem_is_never_the_word_or_empty() -> None:
    assert name_stems("수아") == ["수"]  # the caller keeps "수아" when it names someone
    assert name_stems("이") == [] and name_stems("") == []
    assert name_stems("Mira") == []


def test_the_particle_sets_are_read_longest_first() -> None:
    for words in (NOUN_PARTICLES, NAME_PARTICLES, SUBJECT_PARTICLES, NAME_TITLES,
                  VOCATIVE_PARTICLES):
        assert [len(w) for w in words] == sorted((len(w) for w in words), reverse=True)
        assert len(set(words)) == len(words)
    assert set(NAME_PARTICLES) == {*NOUN_PARTICLES, *VOCATIVE_PARTICLES}
