"""Context for beat and prose prompts: the context pack adapter and prose tails."""

from __future__ import annotations

from typing import Any, Protocol

from aizac.tokens import count_tokens


class ContextBuilder(Protocol):
    """Builds the memory context text a scene needs, within ``budget`` tokens."""

    def __call__(
        self,
        memory: Any,
        *,
        characters: list[str],
        query: str,
        act_goal: str | None,
        location: str | None,
        budget: int,
    ) -> str: ...


def default_context(
    memory: Any,
    *,
    characters: list[str],
    query: str,
    act_goal: str | None,
    location: str | None,
    budget: int,
) -> str:
    """The context pack of :mod:`aizac.retrieval` rendered as prompt text."""
    from aizac.retrieval.context import Scene, build_context

    scene = Scene(characters=characters, query=query, act_goal=act_goal, location=location)
    return str(build_context(memory, scene, budget).render())


def tail_tokens(text: str, budget: int) -> str:
    """The last paragraphs of ``text`` that fit ``budget`` tokens (pure)."""
    kept: list[str] = []
    used = 0
    for para in reversed([p for p in text.splitlines() if p.strip()]):
        cost = count_tokens(para)
        if used + cost > budget:
            if not kept:
                kept.append(para[-budget * 2 :])
            break
        kept.append(para)
        used += cost
    return "\n".join(reversed(kept))


def repetition_start(
    text: str, *, max_unit: int = 24, min_repeats: int = 6, min_span: int = 48
) -> int | None:
    """Where a degenerate loop at the end of ``text`` begins (a unit of at most ``max_unit``
    characters repeated at least ``min_repeats`` times over at least ``min_span`` characters,
    so "ㅋㅋㅋ" or "......" are left alone), or ``None`` (pure).

    Small local models sometimes fall into such loops ("1.1.1.1..."); the prose stream stops
    there and the loop is trimmed from what is saved.
    """
    for unit in range(1, max_unit + 1):
        span = unit * max(min_repeats, -(-min_span // unit))
        if len(text) < span:
            continue
        pattern = text[-unit:]
        if not pattern.strip() or text[-span:] != pattern * (span // unit):
            continue
        start = len(text) - span
        while start >= unit and text[start - unit : start] == pattern:
            start -= unit
        return start + unit  # keep one occurrence
    return None
