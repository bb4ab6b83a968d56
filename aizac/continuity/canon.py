"""Current canon as plain data, and the thin adapter that reads it from the memory.

:func:`read_canon` asks the memory's keyed lookups only about what the draft touches: each
named character's current state per aspect (the slot holder, decayed or not — a death from
episode 1 is still canon at episode 300), the current relation of each pair the draft states
with its superseded versions, the pinned memories, and the cast with aliases. Everything else in
this package works on the :class:`Canon` it returns, without the memory.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aizac.errors import AizacError
from aizac.memory.facts import fact_slot, name_key, text_key

if TYPE_CHECKING:
    from aizac.memory.store import WriterMemory

STATE_ASPECTS: tuple[str, ...] = ("condition", "status", "whereabouts", "allegiance")
"""The aspects of a character's state the checks compare a draft against."""


@dataclass(frozen=True)
class Fact:
    """One canon memory, reduced to what the checks read."""

    id: str
    text: str
    tag: str
    name: str = ""
    pair: tuple[str, str] = ("", "")
    aspect: str = ""
    keyword: str = ""
    pinned: bool = False
    slot: str = ""
    chapter: int = 0


@dataclass(frozen=True)
class RelationCanon:
    """A pair's current relation and its superseded versions (oldest first)."""

    current: Fact
    older: tuple[Fact, ...] = ()


@dataclass(frozen=True)
class Canon:
    """What the checks compare a draft with.

    Attributes:
        states: character key -> aspect -> the current fact of that aspect.
        relations: relation slot -> the pair's relation history.
        pins: the pinned memories.
        cast: canonical name -> aliases.
        rules: the current world rules.
        unsettled: flagged pairs about what the draft touches.
    """

    states: Mapping[str, Mapping[str, Fact]] = field(default_factory=dict)
    relations: Mapping[str, RelationCanon] = field(default_factory=dict)
    pins: tuple[Fact, ...] = ()
    cast: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    rules: tuple[Fact, ...] = ()
    unsettled: tuple[tuple[Fact, Fact], ...] = ()
    """Pairs of facts the memory kept side by side for the writer to settle (newer, older):
    the model could not say which slot the newer one holds."""

    def canonical(self, name: str) -> str:
        """The canonical name of ``name`` or an alias of it (else ``name`` itself)."""
        key = name_key(name)
        for canonical, aliases in self.cast.items():
            if name_key(canonical) == key or any(name_key(a) == key for a in aliases):
                return canonical
        return name

    def state(self, name: str, aspect: str) -> Fact | None:
        return self.states.get(name_key(self.canonical(name)), {}).get(aspect)


def fact_of(hit: Any) -> Fact:
    """A memory hit (or candidate) as a :class:`Fact`."""
    meta: Mapping[str, Any] = getattr(hit, "metadata", {}) or {}
    return Fact(
        id=str(hit.id),
        text=str(hit.text),
        tag=str(getattr(hit, "tag", meta.get("tag", ""))),
        name=str(meta.get("character_name") or ""),
        pair=(str(meta.get("character1") or ""), str(meta.get("character2") or "")),
        aspect=str(meta.get("aspect") or ""),
        keyword=str(meta.get("keyword") or ""),
        pinned=bool(meta.get("pinned")),
        slot=fact_slot(meta),
        chapter=int(meta.get("chapter") or 0),
    )


def _states(memory: WriterMemory, name: str) -> dict[str, Fact]:
    out: dict[str, Fact] = {}
    for aspect in STATE_ASPECTS:
        meta = {"tag": "Character", "character_name": name, "aspect": aspect}
        held = memory.lookups.slot_holders(meta)
        if held:
            out[aspect] = fact_of(held[0])
    return out


def _relation(memory: WriterMemory, a: str, b: str) -> RelationCanon | None:
    meta = {"tag": "CharacterRelation", "character1": a, "character2": b}
    held = memory.lookups.slot_holders(meta)
    if not held:
        return None
    chain = memory.history(held[0].id)
    older = tuple(fact_of(h) for h in chain if h.id != held[0].id and h.superseded)
    return RelationCanon(fact_of(held[0]), older)


def read_canon(
    memory: WriterMemory,
    names: Iterable[str],
    pairs: Iterable[tuple[str, str]] = (),
    texts: Iterable[str] = (),
) -> Canon:
    """The canon the draft's ``names`` and relation ``pairs`` touch (keyed reads only);
    characters that ``texts`` (story claims) name count as named."""
    cast = {k: tuple(v) for k, v in memory.characters().items()}
    canon = Canon(cast=cast)
    joined = text_key(" ".join(texts))
    named = [c for c, aliases in cast.items()
             if any(name_key(n) and name_key(n) in joined for n in (c, *aliases))]
    states: dict[str, dict[str, Fact]] = {}
    for name in dict.fromkeys(canon.canonical(n) for n in [*names, *named] if name_key(n)):
        found = _states(memory, name)
        if found:
            states[name_key(name)] = found
    relations: dict[str, RelationCanon] = {}
    for a, b in pairs:
        a, b = canon.canonical(a), canon.canonical(b)
        if not name_key(a) or not name_key(b) or name_key(a) == name_key(b):
            continue
        try:
            rel = _relation(memory, a, b)
        except AizacError:
            continue
        if rel is not None:
            relations[rel.current.slot] = rel
    pins = tuple(fact_of(h) for h in memory.get_where({"pinned": True}))
    rules = tuple(fact_of(h) for h in memory.world_rules())
    touched = {name_key(canon.canonical(n)) for n in [*names, *named] if name_key(n)}
    pair_slots = set(relations) | {
        fact_slot({"tag": "CharacterRelation", "character1": canon.canonical(a),
                   "character2": canon.canonical(b)}) for a, b in pairs}
    unsettled = tuple(
        (fact_of(a), fact_of(b)) for a, b in memory.conflicts()
        if name_key(str(a.metadata.get("character_name") or "")) in touched
        or fact_slot(a.metadata) in pair_slots
    )
    return Canon(states=states, relations=relations, pins=pins, cast=cast, rules=rules,
                 unsettled=unsettled)


__all__ = ["STATE_ASPECTS", "Canon", "Fact", "RelationCanon", "fact_of", "read_canon"]
