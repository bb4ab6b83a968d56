"""Keyword splitting has one rule (aizac.keywords); the CLI, the web form and clichés use it."""

from __future__ import annotations

import pytest

from aizac.cliches import split_keywords as cliche_keywords
from aizac.errors import InvalidInputError
from aizac.keywords import split_keywords
from aizac.web.forms import split_keywords as form_keywords
from aizac.writer.service import parse_keywords

TYPED = [
    "회귀, 복수, 빙의",
    "회귀，복수、빙의",
    "회귀; 복수；빙의",
    "회귀\n복수\n\n빙의\n",
    " 회귀 ,, 복수 , 빙의 , 회귀 ",
]


@pytest.mark.parametrize("typed", TYPED)
def test_every_surface_splits_typed_keywords_alike(typed: str) -> None:
    expected = ["회귀", "복수", "빙의"]
    assert split_keywords(typed) == expected
    assert parse_keywords(typed) == expected  # the CLI and the Studio
    assert form_keywords(typed) == expected  # the web app's keyword field
    assert cliche_keywords([typed]) == expected  # the cliché database


def test_a_list_is_split_item_by_item_and_kept_in_order() -> None:
    assert split_keywords(["revenge, regression", "revenge", "  "]) == ["revenge", "regression"]
    assert parse_keywords(["revenge, regression", "revenge"]) == ["revenge", "regression"]


@pytest.mark.parametrize("split", [split_keywords, parse_keywords, form_keywords])
def test_no_keyword_is_one_error_with_the_surface_hint(split: object) -> None:
    with pytest.raises(InvalidInputError, match="No keywords given") as err:
        split(" , ;\n")  # type: ignore[operator]
    assert err.value.hint
    with pytest.raises(InvalidInputError, match="No keywords given"):
        cliche_keywords([" , ;"])


def test_the_cliche_database_also_merges_spellings_that_normalise_alike() -> None:
    assert cliche_keywords(["Time-Travel, time travel", "TIME_TRAVEL"]) == ["Time-Travel"]
