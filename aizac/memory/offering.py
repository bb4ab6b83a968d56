"""What an extraction is offered, read from the store (the reading side of
:mod:`aizac.memory.references`).

The offer is bounded, so an extraction prompt does not grow with the story: the scene's cast
(the beat's names as the store knows them, and the members a name form the store does not know
may be) with their current facts and the relations among them, then, by name only, whoever was
on stage most recently (someone a pronoun or a title may mean); and the rules and open threads
in force — the ones nearest the beat when there are more than fit. Everything is a keyed read
except that ranking.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from aizac.memory.facts import APPEARANCE, PROFILE, VOICE, fact_slot, name_key
from aizac.memory.lookups import Lookups
from aizac.memory.records import RULE_WHERE, MemoryHit
from aizac.memory.references import Offer, build_offer


class OfferSource(Protocol):
    """What the offer is read from (:class:`~aizac.memory.store.WriterMemory` is one)."""

    @property
    def lookups(self) -> Lookups: ...
    def characters(self) -> dict[str, list[str]]: ...
    def world_rules(self) -> list[MemoryHit]: ...
    def open_foreshadowing(self) -> list[MemoryHit]: ...
    def recall(self, query: str, k: int = 5, where: Any = None,
               reinforce: bool = True) -> list[MemoryHit]: ...

CAST = 10
"""Cast members an extraction is shown at most."""
RULES = 12
"""World rules an extraction is shown at most (the nearest to the beat when there are more)."""
THREADS = 12
"""Open threads an extraction is shown at most: the oldest half and the nearest half."""
MIN_PART = 2
"""Shortest name key that may stand for part of a longer name when candidates are offered."""
NO_RELATION = "-"
"""The text of a scene pair's entry when memory holds no relation of the pair yet."""


def choose_cast(
    names: Iterable[str], known: dict[str, list[str]], limit: int = CAST
) -> tuple[list[str], int]:
    """The canonical names to offer for a scene whose beat names ``names`` (pure), and how
    many of them are the scene's own (the rest fill the list).

    ``known`` is the cast (canonical name -> aliases), most recently active first. A name the
    store holds (as a name or an alias) brings its character; a name it does not hold brings
    every character one of whose names contains it or is contained in it (a given name, a
    family name: candidates the model chooses among, never a decision); then the most recent
    others, up to ``limit`` (someone a pronoun or a title in the beat may mean)."""
    key_of: dict[str, str] = {}
    for canonical in known:
        key_of.setdefault(name_key(canonical), canonical)
    for canonical, aliases in known.items():
        for alias in aliases:
            key_of.setdefault(name_key(alias), canonical)
    chosen: list[str] = []

    def add(canonical: str) -> None:
        if canonical not in chosen:
            chosen.append(canonical)

    unknown: list[str] = []
    for name in names:
        found = key_of.get(name_key(name))
        if found is not None:
            add(found)
        elif name_key(name):
            unknown.append(name_key(name))
    for key in unknown:
        if len(key) < MIN_PART:
            continue
        for form, canonical in key_of.items():
            if len(form) >= MIN_PART and (key in form or form in key):
                add(canonical)
    scene = min(len(chosen), limit)
    for canonical in known:
        if len(chosen) >= limit:
            break
        add(canonical)
    return chosen[:limit], scene


def _label(hit: MemoryHit) -> str:
    aspect = str(hit.metadata.get("aspect") or "")
    if aspect == APPEARANCE:
        return f"{APPEARANCE}:{hit.metadata.get('keyword', '')}"
    return aspect


def gather_offer(
    memory: OfferSource,
    names: Sequence[str],
    text: str = "",
    *,
    newcomers: Sequence[tuple[str, Sequence[str], str]] = (),
    cast: int = CAST,
    rules: int = RULES,
    threads: int = THREADS,
) -> Offer:
    """The :class:`~aizac.memory.references.Offer` of an extraction of a beat whose characters
    are ``names`` (as the beat calls them) and whose text is ``text`` (ranks what does not
    fit). ``newcomers``: the beat's names memory does not hold yet, ``(name, aliases,
    same_as)``: a new character is offered too, so the reply can refer to it by id; a name the
    design said is a known character's (``same_as``) is read as that character's alias."""
    known = memory.characters()
    for name, _, owner in newcomers:
        if owner in known and name not in known[owner]:
            known[owner] = [*known[owner], name]
    chosen, scene = choose_cast(names, known, cast)
    fresh = [(n, list(a)) for n, a, owner in newcomers if n not in known and not owner]
    facts: list[tuple[str, tuple[str, ...], str, str, str]] = []
    # the scene's own characters are shown with what the store holds of them; the others
    # who fill the cast list are named only (the prompt does not grow with the story)
    for name in chosen[:scene]:
        for hit in memory.lookups.held_states(name):
            if hit.metadata.get("aspect") in (VOICE, PROFILE):
                continue
            facts.append((hit.id, (name,), fact_slot(hit.metadata), _label(hit), hit.text))
    related: set[frozenset[str]] = set()
    for hit in memory.lookups.relations_among(chosen[:scene]):
        pair = (str(hit.metadata["character1"]), str(hit.metadata["character2"]))
        related.add(frozenset(pair))
        facts.append((hit.id, pair, fact_slot(hit.metadata), "relation", hit.text))
    # a pair of the scene with no relation yet is listed too ("-"): a reply that tells their
    # first relation as one character's fact can still point at the pair it means
    for n, a in enumerate(chosen[:scene]):
        for b in chosen[n + 1:scene]:
            if frozenset((a, b)) not in related:
                facts.append(("", (a, b), "", "relation", NO_RELATION))
    in_force = memory.world_rules()
    if len(in_force) > rules and text.strip():
        near = memory.recall(text, k=rules, where=RULE_WHERE, reinforce=False)
        in_force = [h for h in in_force if h.id in {n.id for n in near}]
    open_threads = sorted(memory.open_foreshadowing(),
                          key=lambda h: (h.chapter, int(h.metadata.get("beat", 0))))
    if len(open_threads) > threads:
        oldest = open_threads[: threads // 2]
        near = memory.recall(text, k=threads, where={"foreshadow": True},
                             reinforce=False) if text.strip() else []
        picked = {h.id for h in oldest} | {h.id for h in near}
        open_threads = [h for h in open_threads if h.id in picked][:threads]
    return build_offer(
        [*((name, known.get(name, [])) for name in chosen), *fresh],
        facts,
        # a revision continues the rule's slot (a rule from before lineages: its keyword's)
        [(h.id, str(h.metadata.get("keyword", "")), h.text,
          fact_slot(h.metadata).removeprefix("rule|")) for h in in_force[:rules]],
        [(h.id, str(h.metadata.get("keyword", "")), h.text,
          f"{h.chapter}-{int(h.metadata.get('beat', 0))}") for h in open_threads],
        known={**known, **dict(fresh)}, scene=list(names),
    )


__all__ = ["CAST", "RULES", "THREADS", "OfferSource", "choose_cast", "gather_offer"]
