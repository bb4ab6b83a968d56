"""The price table is data (issue 26): every row dated with its source, cached input cheaper
than input, and the cost of a run with and without the prompt cache."""

from __future__ import annotations

import re

import pytest

from aizac.errors import InvalidInputError
from aizac.llm.prices import Price, cost, load_prices, price_of


def test_every_row_is_dated_sourced_and_cached_input_is_cheaper() -> None:
    rows = load_prices()
    assert {p.provider for p in rows} >= {"openai", "anthropic"}
    for p in rows:
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", p.as_of), p
        assert p.source.startswith("https://"), p
        assert 0 < p.cached_input < p.input < p.output, p
    assert len({(p.provider, p.model, p.as_of) for p in rows}) == len(rows)


def test_cost_with_and_without_the_cache() -> None:
    p = Price("x", "m", input=2.0, cached_input=0.5, cache_write=2.5, output=8.0,
              as_of="2026-12-01", source="https://example.invalid/")
    assert cost(p, prompt=1_000_000, output=0) == pytest.approx(2.0)
    assert cost(p, prompt=1_000_000, output=500_000) == pytest.approx(6.0)
    assert cost(p, prompt=1_000_000, output=0, cached=600_000) == pytest.approx(0.8 + 0.3)
    # a cache write costs more than plain input where the provider prices writes
    assert cost(p, prompt=1_000_000, output=0, written=1_000_000) == pytest.approx(2.5)
    assert cost(p, prompt=100, output=0, cached=500) == pytest.approx(100 * 0.5 / 1e6)


def test_the_newest_row_wins_and_an_unknown_model_is_a_clear_error() -> None:
    first = load_prices()[0]
    assert price_of(first.provider, first.model).model == first.model
    with pytest.raises(InvalidInputError, match="known"):
        price_of("openai", "no-such-model")
