"""Reading the facts an illustration is drawn from out of a project's memory (exact reads).

Every version of a fact is read (superseded and decayed ones included, the writer's explicit
forgetting left to :func:`aizac.illustration.looks.holds_at`), with the position of the version
that replaced it, so a picture of an early episode shows the story as it stood there. Nothing
is reinforced: drawing a scene is not remembering it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from aizac.errors import AizacError
from aizac.illustration.looks import Fact, Position, established
from aizac.memory.facts import APPEARANCE


class FactMemory(Protocol):
    """The reads of :class:`~aizac.memory.store.WriterMemory` used here."""

    def get_where(self, where: Any, limit: int | None = None, *, include_forgotten: bool = False,
                  include_superseded: bool = False) -> list[Any]: ...
    def get(self, memory_id: str) -> Any: ...
    def resolve_name(self, name: str) -> str: ...


def _facts(memory: FactMemory, hits: Iterable[Any]) -> list[Fact]:
    out: list[Fact] = []
    for hit in hits:
        replaced: Position | None = None
        successor = str(hit.metadata.get("superseded_by") or "")
        if successor:
            try:
                replaced = established(memory.get(successor).metadata)
            except (AizacError, KeyError):  # a successor gone (its commit undone): current
                replaced = None
        out.append(Fact(hit.id, hit.text, dict(hit.metadata), replaced))
    return out


def canonical(memory: FactMemory, name: str) -> str:
    """The stored name of a character (an alias resolves to its character)."""
    try:
        return memory.resolve_name(name)
    except AizacError:
        return name


def appearance_facts(memory: FactMemory, name: str) -> list[Fact]:
    """Every version of every appearance fact about ``name`` (its canonical name)."""
    where = {"$and": [{"tag": "Character"}, {"character_name": canonical(memory, name)},
                      {"aspect": APPEARANCE}]}
    hits = memory.get_where(where, include_forgotten=True, include_superseded=True)
    return _facts(memory, hits)


def world_facts(memory: FactMemory) -> list[Fact]:
    """Every version of every setting fact (places, objects, world rules)."""
    hits = memory.get_where({"tag": "NovelSetting"}, include_forgotten=True,
                            include_superseded=True)
    return _facts(memory, hits)


__all__ = ["FactMemory", "appearance_facts", "canonical", "world_facts"]
