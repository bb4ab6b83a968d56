"""The forgetting curve math (pure)."""

from __future__ import annotations

import math

import pytest

from aizac.errors import InvalidInputError
from aizac.memory import forget_at, is_live, memory_factor, retention
from aizac.memory.forgetting import curve, reinforced


def test_memory_factor_is_the_seed_formula() -> None:
    for time, strength in [(0, 1), (3, 10), (23, 10), (100, 30), (0.5, 0.25)]:
        assert memory_factor(time, strength) == math.exp(-time / strength) * 10
    assert memory_factor(0, 5) == 10.0


@pytest.mark.parametrize("threshold", [0.5, 1.0, 3.0, 9.9])
@pytest.mark.parametrize("strength", [1.0, 10.0, 20.5, 40.0])
def test_forget_at_matches_the_threshold_test(strength: float, threshold: float) -> None:
    last = 7
    bound = forget_at(last, strength, threshold)
    for turn in range(last, last + int(strength * 6)):
        alive = memory_factor(turn - last, strength) >= threshold
        assert is_live(turn, bound) == alive, (turn, bound)


def test_retention_in_turns() -> None:
    assert retention(10, 1.0) == pytest.approx(23.02585, rel=1e-5)
    assert retention(40, 1.0) == pytest.approx(92.1034, rel=1e-5)
    assert retention(10, 5.0) == pytest.approx(10 * math.log(2))


def test_pinned_is_always_live() -> None:
    assert is_live(10_000, forget_at(0, 1.0), pinned=True)
    assert not is_live(10_000, forget_at(0, 1.0))


def test_reinforcement_adds_one() -> None:
    assert reinforced(10) == 11


def test_curve_with_recalls_restarts_and_strengthens() -> None:
    plain = curve(10, 40)
    recalled = curve(10, 40, recalls=[20])
    assert plain[:20] == recalled[:20]
    assert recalled[20] == 10.0
    assert recalled[30] == pytest.approx(memory_factor(10, 11))
    assert plain[30] < 1.0 < recalled[30]


def test_a_forgotten_memory_cannot_be_recalled_in_the_curve() -> None:
    # strength 10 forgets after turn 23; a "recall" at 30 must not revive it.
    assert curve(10, 40, recalls=[30])[30] == pytest.approx(memory_factor(30, 10))


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf")])
def test_bad_strength(bad: float) -> None:
    with pytest.raises(InvalidInputError, match="strength"):
        memory_factor(1, bad)


@pytest.mark.parametrize("bad", [0, 10, -2, 11])
def test_bad_threshold(bad: float) -> None:
    with pytest.raises(InvalidInputError, match="threshold"):
        forget_at(0, 10, bad)
