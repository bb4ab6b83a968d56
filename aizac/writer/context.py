"""Context for beat and prose prompts: the context pack adapter and prose tails."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
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
    words: Mapping[str, str] | None = None,
) -> str:
    """The context pack of :mod:`aizac.retrieval` rendered as prompt text, its headings in
    ``words`` (the story language's :attr:`~aizac.writer.prompt_words.PromptWords.pack`).

    Nothing is reinforced here: the text carries the ids of the memories in the pack
    (:class:`UsedContext`), which the writer reinforces once what it generated from them is
    stored (an aborted, failed or discarded generation changes no strength)."""
    from aizac.retrieval.context import Scene, build_context

    scene = Scene(characters=characters, query=query, act_goal=act_goal, location=location)
    pack = build_context(memory, scene, budget, reinforce=False, words=words)
    return UsedContext(pack.render(), [i.memory_id for i in pack.items if i.memory_id])


class UsedContext(str):
    """Context text that remembers the ids of the memories it was built from."""

    memory_ids: tuple[str, ...] = ()

    def __new__(cls, text: str, memory_ids: Sequence[str] = ()) -> UsedContext:
        value = super().__new__(cls, text)
        value.memory_ids = tuple(memory_ids)
        return value


def _cast_key(names: list[str]) -> set[str]:
    return {" ".join(n.split()).casefold() for n in names if n.strip()}


class OnePackPerBeat:
    """One context pack per beat, shared by the beat's design and its prose.

    Wraps a :class:`ContextBuilder`. A design call (it passes the act's goal) builds the pack
    and keeps it; the next prose call (no act goal) reuses that pack instead of building a
    second one when the scene's cast is among the characters the pack was built for and the
    budget is the same (the usual case: consecutive beats keep their cast). Otherwise, or for
    a second prose call, it builds its own. The reused pack is the one the design was based on.

    The shared pack is built without the act-goal header: the beat prompt states the goal
    itself (the header only repeated it), and the prose writer is not shown the act's goal.

    Args:
        builder: the underlying context builder.
        language: the story's language at call time: a builder that takes ``words`` gets
            that language's prompt words (its headings read in the story's language).
    """

    def __init__(self, builder: ContextBuilder,
                 language: Callable[[], str] | None = None) -> None:
        self.builder = builder
        self.language = language
        self._words = _takes_words(builder)
        self._design: tuple[Any, set[str], int, str] | None = None
        self.reused = 0

    def forget(self) -> None:
        """Drop the kept pack (the project changed in another process)."""
        self._design = None

    def __call__(
        self,
        memory: Any,
        *,
        characters: list[str],
        query: str,
        act_goal: str | None,
        location: str | None,
        budget: int,
    ) -> str:
        kept, self._design = self._design, None
        if act_goal is None and kept is not None:
            owner, cast, size, text = kept
            if owner is memory and size == budget and _cast_key(characters) <= cast:
                self.reused += 1
                return text
        extra: dict[str, Any] = {}
        if self._words and self.language is not None:
            from aizac.writer.prompt_words import prompt_words

            extra["words"] = prompt_words(self.language()).pack
        text = self.builder(
            memory, characters=characters, query=query, act_goal=None,
            location=location, budget=budget, **extra,
        )
        if act_goal is not None:
            self._design = (memory, _cast_key(characters), budget, text)
        return text


def _takes_words(builder: Any) -> bool:
    import inspect

    try:
        return "words" in inspect.signature(builder).parameters
    except (TypeError, ValueError):
        return False


def scene_brief(beat: Any) -> str:
    """A beat as a short scene description for the prose prompt (pure).

    Place and time, who is there, what happens, the key lines and the tension; no field labels
    and no planning notes (what it sets up or pays off), which small models copy into prose;
    repeated lines are kept once.
    """
    lines = [", ".join(p for p in (beat.time, beat.location) if p)]
    if beat.characters:
        lines.append(", ".join(beat.characters))
    lines += [str(e) for e in beat.events]
    lines += [f'{d.speaker}: "{d.line}"' for d in beat.dialogue]
    lines += [str(c) for c in beat.conflicts[:1]]
    # A weak planner repeats one value across fields; repeated lines only invite a loop.
    return "\n".join(dict.fromkeys(line for line in lines if line.strip()))


def tail_tokens(text: str, budget: int) -> str:
    """The last paragraphs of ``text`` that fit ``budget`` tokens (pure).

    When even the last paragraph is over budget, its end is cut by tokens (not by characters:
    a Hangul or CJK character is a token, so a character cut would double the budget)."""
    kept: list[str] = []
    used = 0
    for para in reversed([p for p in text.splitlines() if p.strip()]):
        cost = count_tokens(para)
        if used + cost > budget:
            if not kept:
                kept.append(last_tokens(para, budget))
            break
        kept.append(para)
        used += cost
    return "\n".join(p for p in reversed(kept) if p)


def last_tokens(text: str, budget: int) -> str:
    """The longest suffix of ``text`` whose token estimate fits ``budget`` (pure).

    Dropping characters from the front never raises the estimate, so a binary search over the
    start finds it in O(n log n)."""
    if budget <= 0:
        return ""
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi) // 2
        if count_tokens(text[mid:]) <= budget:
            hi = mid
        else:
            lo = mid + 1
    return text[lo:].strip()


def repetition_start(
    text: str, *, max_unit: int = 160, min_span: int = 48
) -> int | None:
    """Where a degenerate loop at the end of ``text`` begins, or ``None`` (pure).

    A loop is a unit of at most ``max_unit`` characters repeated back to back over at least
    ``min_span`` characters: six times for a short unit, three times for a unit of 20
    characters or more (so "ㅋㅋㅋ" or "......" are left alone). Small local models sometimes
    fall into such loops ("1.1.1.1...", or the prompt echoed again and again); the prose
    stream stops there and the loop is trimmed from what is saved.
    """
    for unit in range(1, max_unit + 1):
        repeats = max(3 if unit >= 20 else 6, -(-min_span // unit))
        span = unit * repeats
        if len(text) < span:
            break
        pattern = text[-unit:]
        if not pattern.strip() or text[-span:] != pattern * repeats:
            continue
        start = len(text) - span
        while start >= unit and text[start - unit : start] == pattern:
            start -= unit
        return start + unit  # keep one occurrence
    return None


def _line_key(line: str) -> str:
    return re.sub(r"\W+", "", line.casefold())


def repeated_line_start(text: str, *, min_chars: int = 20) -> int | None:
    """Where the last complete line of ``text`` starts if it repeats an earlier line (pure).

    Lines are compared without case, spaces and punctuation; lines shorter than ``min_chars``
    (a lone "..." or a one-word reply) may repeat. Small models fall into paragraph loops too
    long for :func:`repetition_start`; the prose stream stops at the first repeated paragraph.
    """
    if not text.endswith("\n"):
        return None
    body = text.rstrip("\n")
    start = body.rfind("\n") + 1
    last = _line_key(body[start:])
    if len(last) < min_chars:
        return None
    return start if last in {_line_key(line) for line in body[:start].splitlines()} else None
