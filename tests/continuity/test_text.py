"""The Korean particles the continuity text heuristics read (aizac/text/particles.toml)."""

from __future__ import annotations

import pytest

from aizac.continuity.text import acts_as_subject, same_place


@pytest.mark.parametrize(("text", "name", "subject"), [
    ("박철수가 문을 열었다", "박철수", True),
    ("박철수가, 결국 문을 열었다", "박철수", True),  # the particle ends the word, no space needed
    ("할머니께서는 문을 열었다", "할머니", True),  # 께서는 was missing
    ("박철수의 유언장이 나왔다", "박철수", False),
    ("박철수가문의 저택", "박철수", False),
    ("박철수도 문을 열었다", "박철수", False),  # 도 marks an object as often
])
def test_a_korean_subject_is_the_name_and_a_particle_that_ends_the_word(
        text: str, name: str, subject: bool) -> None:
    assert acts_as_subject(text, name) is subject


def test_a_place_word_loses_its_particle_but_not_an_honorific() -> None:
    assert same_place("북쪽 요새까지", "요새에 머물고 있다")  # 까지 was missing
    # 씨 and 님 are no particles of a place: "김씨" cut to "김" agreed with "김해".
    assert not same_place("김씨 저택", "김해에 머물고 있다")
