"""What a character looks like, and which world facts stand, at one point of the story (pure).

An illustration of episode ``E`` must show the story as it stood there, whenever it is drawn:

* a fact counts from where it was established (its ``chapter`` and ``beat``) on — the scar
  from episode 40 is not in episode 12's picture, even when episode 12 is illustrated after
  episode 50 was written (a later fact is also a spoiler there);
* a superseded fact counts until the position of the fact that replaced it — the black hair
  of episode 1 is in episode 10's picture and never in one from episode 30, where it turned
  white;
* a fact the writer forgot (``forgotten``) never counts; decay does not matter: a look is not
  trivia that fades, it holds until the story changes it.

Only facts are read here (:class:`Fact`, built by :mod:`aizac.illustration.sources` from the
memory); nothing is reinforced.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from aizac.memory.facts import fact_slot, name_key

Position = tuple[int, int]
"""``(episode, beat index)``; a fact at beat 0 stands from the episode's start."""


@dataclass(frozen=True)
class Fact:
    """One stored fact as illustrations read it.

    Attributes:
        id: the memory id.
        text: what it says.
        metadata: its stored metadata (tag, keyword, chapter, beat, superseded_by, ...).
        replaced_at: where the fact that superseded it was established (``None``: current).
    """

    id: str
    text: str
    metadata: Mapping[str, Any]
    replaced_at: Position | None = None

    @property
    def at(self) -> Position:
        """Where the fact was established."""
        return established(self.metadata)

    @property
    def keyword(self) -> str:
        return str(self.metadata.get("keyword") or "").strip()


def established(meta: Mapping[str, Any]) -> Position:
    """``(chapter, beat)`` of a memory's metadata."""
    return int(meta.get("chapter", 0) or 0), int(meta.get("beat", 0) or 0)


def holds_at(fact: Fact, where: Position) -> bool:
    """Whether ``fact`` is part of the story at ``where`` (see the module docstring)."""
    if fact.metadata.get("forgotten"):
        return False
    if fact.at > where:
        return False
    return fact.replaced_at is None or fact.replaced_at > where


def _story_order(fact: Fact) -> tuple[int, int, int, str]:
    return (*fact.at, int(fact.metadata.get("created_turn", 0) or 0), fact.id)


def standing(facts: Iterable[Fact], where: Position) -> list[Fact]:
    """The facts that hold at ``where``, one per slot (the latest), in story order.

    Two holders of one slot can both hold when older data was written without superseding;
    the one established last wins, as it does for the writer's memory."""
    held = sorted((f for f in facts if holds_at(f, where)), key=_story_order)
    by_slot: dict[str, Fact] = {}
    loose: list[Fact] = []
    for fact in held:
        slot = fact_slot(fact.metadata)
        if slot:
            by_slot.pop(slot, None)  # re-insert: the dict keeps story order of the winners
            by_slot[slot] = fact
        else:
            loose.append(fact)
    return sorted([*by_slot.values(), *loose], key=_story_order)


@dataclass(frozen=True)
class Look:
    """A character's look at one point: the appearance facts that hold there."""

    name: str
    features: tuple[Fact, ...] = ()

    @property
    def texts(self) -> list[str]:
        return [f.text for f in self.features]


def look_at(name: str, facts: Sequence[Fact], where: Position, *, limit: int = 6) -> Look:
    """``name``'s look at ``where`` from its appearance facts (at most ``limit``, the latest
    kept). The same facts at the same point always give the same look, so every picture of one
    moment draws a character alike."""
    kept = standing(facts, where)
    return Look(name, tuple(kept[-limit:]) if limit > 0 else ())


def touches(fact: Fact, scene_text: str) -> bool:
    """Whether a world fact concerns a scene: its keyword (a place, object, rule) is named in
    the scene's text (compared without case, spaces or punctuation)."""
    key = name_key(fact.keyword)
    return bool(key) and key in name_key(scene_text)


def world_at(
    facts: Iterable[Fact], where: Position, scene_text: str, *, limit: int = 4
) -> list[Fact]:
    """The world facts (settings, rules) that hold at ``where`` and that the scene touches,
    newest first (at most ``limit``)."""
    kept = [f for f in standing(facts, where) if touches(f, scene_text)]
    return list(reversed(kept))[:limit]


__all__ = [
    "Fact",
    "Look",
    "Position",
    "established",
    "holds_at",
    "look_at",
    "standing",
    "touches",
    "world_at",
]
