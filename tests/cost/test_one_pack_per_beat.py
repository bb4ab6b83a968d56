"""Design and prose of a beat share one context pack where their casts overlap."""

from __future__ import annotations

from typing import Any

from aizac.writer.context import OnePackPerBeat


class Counting:
    def __init__(self) -> None:
        self.scenes: list[tuple[list[str], str | None]] = []

    def __call__(self, memory: Any, *, characters: list[str], query: str,
                 act_goal: str | None, location: str | None, budget: int) -> str:
        self.scenes.append((characters, act_goal))
        return f"pack {len(self.scenes)} for {', '.join(characters)} ({budget})"


def design(shared: OnePackPerBeat, memory: Any, cast: list[str], budget: int = 900) -> str:
    return shared(memory, characters=cast, query="plan", act_goal="goal", location=None,
                  budget=budget)


def prose(shared: OnePackPerBeat, memory: Any, cast: list[str], budget: int = 900) -> str:
    return shared(memory, characters=cast, query="events", act_goal=None, location="market",
                  budget=budget)


def test_prose_reuses_the_design_pack_when_the_cast_is_covered() -> None:
    inner, memory = Counting(), object()
    shared = OnePackPerBeat(inner)
    built = design(shared, memory, ["강준", "서유나", "백호"])
    assert prose(shared, memory, ["서유나 ", "강준"]) == built  # names compared normalised
    assert len(inner.scenes) == 1 and shared.reused == 1
    # A second prose call (a rewrite) builds its own pack.
    assert prose(shared, memory, ["강준"]) != built and len(inner.scenes) == 2


def test_a_new_face_another_budget_or_another_memory_builds_a_new_pack() -> None:
    inner, memory = Counting(), object()
    shared = OnePackPerBeat(inner)
    design(shared, memory, ["강준"])
    prose(shared, memory, ["강준", "한석"])  # someone the design pack does not cover
    design(shared, memory, ["강준"])
    prose(shared, memory, ["강준"], budget=250)  # the small local writer's budget
    design(shared, memory, ["강준"])
    prose(shared, object(), ["강준"])  # another project's memory
    assert len(inner.scenes) == 6 and shared.reused == 0


def test_the_shared_pack_has_no_act_goal_header() -> None:
    inner, memory = Counting(), object()
    shared = OnePackPerBeat(inner)
    design(shared, memory, ["강준"])
    prose(shared, memory, ["강준", "한석"])
    assert [goal for _, goal in inner.scenes] == [None, None]


def test_design_calls_never_reuse() -> None:
    inner, memory = Counting(), object()
    shared = OnePackPerBeat(inner)
    design(shared, memory, ["강준"])
    design(shared, memory, ["강준"])  # a regenerated design sees fresh memory
    assert len(inner.scenes) == 2
