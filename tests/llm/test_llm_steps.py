"""One core, two shells (aizac.llm.steps): the sync and async drivers give the core the same
results and the same errors, so a loop written once behaves the same both ways."""

from __future__ import annotations

import asyncio
from collections.abc import Generator

import pytest

from aizac.llm.steps import Steps, arun, run


def _core(asks: list[str]) -> Generator[str, str, list[str]]:
    """Asks each question; a ValueError from one is noted and the loop goes on."""
    got = []
    for ask in asks:
        try:
            got.append((yield ask))
        except ValueError as e:
            got.append(f"refused: {e}")
    return got


def _answer(ask: str) -> str:
    if ask == "bad":
        raise ValueError("no")
    return ask.upper()


async def _aanswer(ask: str) -> str:
    await asyncio.sleep(0)
    return _answer(ask)


def test_sync_and_async_shells_drive_the_same_core_alike() -> None:
    asks = ["a", "bad", "b"]
    expected = ["A", "refused: no", "B"]
    assert run(_core(asks), _answer) == expected
    assert asyncio.run(arun(_core(asks), _aanswer)) == expected


def test_an_error_the_core_does_not_handle_leaves_both_shells() -> None:
    def strict(asks: list[str]) -> Generator[str, str, str]:
        reply = yield asks[0]
        return reply

    with pytest.raises(ValueError, match="no"):
        run(strict(["bad"]), _answer)
    with pytest.raises(ValueError, match="no"):
        asyncio.run(arun(strict(["bad"]), _aanswer))


def test_a_streaming_shell_passes_effects_on_and_close_runs_the_cores_finally() -> None:
    closed: list[bool] = []

    def core() -> Generator[int, None, None]:
        try:
            yield from range(10)
        finally:
            closed.append(True)

    steps = Steps(core())
    seen = []
    for effect in steps:
        seen.append(effect)
        if effect == 2:
            break
    steps.close()
    assert seen == [0, 1, 2]
    assert closed == [True]
