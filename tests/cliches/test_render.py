"""render_tropes_for_prompt: whole lines, arc order, never over the token budget."""

from __future__ import annotations

import pytest

from aizac.cliches import ClicheDB, TropeArc, render_tropes_for_prompt
from aizac.tokens import count_tokens


@pytest.fixture(scope="module")
def arcs(db: ClicheDB) -> list[TropeArc]:
    return db.expand_keywords(["회귀", "복수"], k_tropes=3)


def test_full_render_lists_every_beat_in_arc_order(arcs: list[TropeArc]) -> None:
    text = render_tropes_for_prompt(arcs, max_tokens=100_000)
    lines = text.splitlines()
    headers = [line for line in lines if line.startswith("## ")]
    assert [h.split()[1] for h in headers] == [a.trope for a in arcs]
    assert "회귀" in headers[0] and "regression" in headers[0]
    beat_lines = [line for line in lines if line.startswith("- [")]
    assert len(beat_lines) == sum(len(a.beats) for a in arcs)
    first_arc = beat_lines[: len(arcs[0].beats)]
    assert first_arc[0].startswith("- [exposition] ")
    assert first_arc[-1].startswith("- [resolution] ")
    assert arcs[0].beats[0].summary in first_arc[0]


@pytest.mark.parametrize("budget", [0, 5, 40, 120, 400, 900])
def test_budget_is_respected(arcs: list[TropeArc], budget: int) -> None:
    text = render_tropes_for_prompt(arcs, max_tokens=budget)
    assert count_tokens(text) <= budget
    lines = text.splitlines()
    for i, line in enumerate(lines):  # a header always has at least one beat under it
        if line.startswith("## "):
            assert i + 1 < len(lines) and lines[i + 1].startswith("- [")


def test_small_budget_keeps_the_best_arc_first(arcs: list[TropeArc]) -> None:
    full = render_tropes_for_prompt(arcs, max_tokens=100_000)
    part = render_tropes_for_prompt(arcs, max_tokens=count_tokens(full) // 3)
    assert part and full.startswith(part)
    assert arcs[0].trope in part and arcs[-1].trope not in part
    assert render_tropes_for_prompt([], 500) == ""
