"""The forgetting curve, as pure math (no I/O, no clock).

A memory's strength ``S`` and the turn it was last reinforced ``last_turn`` fully describe it:

* ``time = turn - last_turn`` (turns since creation or the last recall),
* ``memory_factor = exp(-time / S) * 10`` (10 when fresh, falling towards 0),
* it is forgotten once ``memory_factor < threshold``, i.e. once
  ``turn > last_turn + S * ln(10 / threshold)`` — the ``forget_at`` bound.

Storing ``forget_at`` as metadata turns "only live memories" into a range filter, so moving the
story on by a turn rewrites nothing. Reinforcement (a recall) adds :data:`REINFORCE_STEP` to the
strength and restarts the clock, which pushes ``forget_at`` out.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from aizac.errors import InvalidInputError

FRESH_FACTOR = 10.0
"""``memory_factor`` of a memory at ``time == 0``."""

REINFORCE_STEP = 1.0
"""Strength added each time a memory is recalled."""


def check_strength(strength: float) -> float:
    """Return ``strength`` as a float, or raise if it is not a positive finite number."""
    value = float(strength)
    if not math.isfinite(value) or value <= 0:
        raise InvalidInputError("error.memory.strength", got=repr(strength))
    return value


def check_threshold(threshold: float) -> float:
    """Return ``threshold`` as a float, or raise unless ``0 < threshold < 10``."""
    value = float(threshold)
    if not math.isfinite(value) or not 0 < value < FRESH_FACTOR:
        raise InvalidInputError("error.memory.threshold", got=repr(threshold))
    return value


def memory_factor(time: float, strength: float) -> float:
    """``exp(-time / strength) * 10``: how vivid a memory is ``time`` turns after reinforcement."""
    return math.exp(-float(time) / check_strength(strength)) * FRESH_FACTOR


def retention(strength: float, threshold: float = 1.0) -> float:
    """How many turns an unrecalled memory of ``strength`` stays live: ``S * ln(10 / t)``."""
    return check_strength(strength) * math.log(FRESH_FACTOR / check_threshold(threshold))


def forget_at(last_turn: float, strength: float, threshold: float = 1.0) -> float:
    """The last turn at which the memory is still live: ``last_turn + S * ln(10 / t)``.

    ``turn <= forget_at`` is equivalent to ``memory_factor(turn - last_turn, S) >= threshold``.
    """
    return float(last_turn) + retention(strength, threshold)


def is_live(turn: float, forget_at_turn: float, pinned: bool = False) -> bool:
    """Whether a memory is served at ``turn`` (pinned memories always are)."""
    return pinned or turn <= forget_at_turn


def reinforced(strength: float, step: float = REINFORCE_STEP) -> float:
    """The strength after one recall."""
    return check_strength(strength) + step


def curve(
    strength: float,
    turns: int,
    recalls: Iterable[int] = (),
    threshold: float = 1.0,
    step: float = REINFORCE_STEP,
) -> list[float]:
    """``memory_factor`` at turns ``0..turns`` for a memory created at turn 0.

    A recall at turn ``r`` (listed in ``recalls``) only happens while the memory is still live —
    a forgotten memory is not served, so it cannot be reinforced — and then strengthens it and
    restarts its clock. Values after forgetting keep decaying (they are what an inspector shows).
    """
    if turns < 0:
        raise InvalidInputError("error.memory.turns", got=turns)
    pending = set(recalls)
    s = check_strength(strength)
    check_threshold(threshold)
    last = 0
    out: list[float] = []
    for t in range(turns + 1):
        factor = memory_factor(t - last, s)
        if t in pending and factor >= threshold:
            s += step
            last = t
            factor = FRESH_FACTOR
        out.append(factor)
    return out
