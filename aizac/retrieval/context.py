"""``build_context``: the memories the next beat or prose call needs, within a token budget.

The reads from WriterMemory happen here (:func:`gather_items`); ranking and trimming are pure
(:func:`~aizac.retrieval.pack.assemble_pack`, :func:`overlap_score`). What is read stays bounded
however long the serial gets: the characters present (their latest live Character memories),
the current relation of each pair among them (exact keyed lookups), the few most relevant
settings, the short-term summary, the most relevant open foreshadowing and pinned memories,
and a few related story events.

Forgetting decides what is offered unasked, not what a scene can recall: the scene's cues —
its cast (each one's current states, each pair's current relation) and the places and rules
it names — bring back the current fact even when it faded, and the pack that shows it
reinforces it (once the writer keeps what was written from it).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field

from aizac.memory.facts import APPEARANCE, fact_slot, text_key
from aizac.retrieval.aliases import AliasResolver
from aizac.retrieval.matrix import relation_matrix
from aizac.retrieval.memory_api import Hit, MemoryReader
from aizac.retrieval.pack import ContextPack, PackItem, assemble_pack

_WORD = re.compile(r"\w+")


class Scene(BaseModel):
    """What the next beat is about."""

    model_config = ConfigDict(extra="forbid")

    characters: list[str] = Field(default_factory=list)
    location: str | None = None
    query: str = ""
    """Free text: the beat's summary or the question the writer asks."""
    keywords: list[str] = Field(default_factory=list)
    act_goal: str | None = None

    def search_text(self) -> str:
        """Text used for similarity search."""
        parts = [self.query, self.location or "", *self.keywords, *self.characters]
        return " ".join(p for p in parts if p).strip() or "story"


class PackLimits(BaseModel):
    """How many items each section may read (bounds the work and the pack)."""

    model_config = ConfigDict(extra="forbid")

    states_per_character: int = 2
    """Unkeyed notes per character (profile, "other" facts), newest first; every current
    state of a named aspect (condition, whereabouts, ...) is always read."""
    settings: int = 4
    rules: int = 4
    """World rules whose keyword or text matches the scene, besides the similar settings."""
    foreshadowing: int = 3
    core: int = 4
    story: int = 3


def _words(text: str) -> set[str]:
    norm = unicodedata.normalize("NFKC", text).casefold()
    return {w for w in _WORD.findall(norm) if len(w) > 1}


def overlap_score(text: str, terms: Iterable[str]) -> float:
    """Share of the scene's words found in ``text`` (0..1), a cheap relevance for ranking."""
    wanted = set().union(*(_words(t) for t in terms)) if terms else set()
    if not wanted:
        return 0.0
    return len(wanted & _words(text)) / len(wanted)


def _top(hits: Sequence[Hit], terms: Sequence[str], k: int) -> list[tuple[Hit, float]]:
    scored = [(h, overlap_score(h.text, terms)) for h in hits]
    # Ties end on the text, so the pack never depends on the order the store returned rows in.
    scored.sort(key=lambda pair: (-pair[1], -_chapter(pair[0]), pair[0].text))
    return scored[:k]


def _chapter(hit: Hit) -> int:
    return int(hit.metadata.get("chapter", 0) or 0)


def _is_current(hit: Hit) -> bool:
    meta = hit.metadata
    return not meta.get("superseded_by") and not meta.get("forgotten")


STATE_TIERS = {"condition": 0, "whereabouts": 0, "allegiance": 0, "status": 0}
"""Aspects shown first for every character present (then other aspects, then notes)."""
HEADLINE = -1
"""The tier of each present character's first line (their most telling state): above every
tier, so everyone present is shown before anyone's second state."""


def _character_items(
    memory: MemoryReader, present: Sequence[str], limits: PackLimits
) -> list[PackItem]:
    """The current state of every character present, in story order (newest first).

    A state of a named aspect is current by construction (a newer one supersedes it); notes
    without an aspect are the newest ``states_per_character``. Each character's most telling
    line (:data:`HEADLINE`) ranks above everyone's others, then items interleave characters by
    tier, so a tight budget trims the least important states of everyone before anyone's
    condition or whereabouts, and leaves no one present out.
    """
    items: list[PackItem] = []
    for rank, name in enumerate(present):
        hits = [h for h in memory.character_state(name) if _is_current(h)]
        live = {h.id for h in hits}
        # present in the scene: every current state comes back, faded or not (the cue)
        hits += [h for h in memory.current_states(name) if h.id not in live and _is_current(h)]
        hits.sort(key=_story_order, reverse=True)
        states = [h for h in hits if _aspect(h)]
        notes = [h for h in hits if not _aspect(h)][: limits.states_per_character]
        seen: set[str] = set()
        own: list[tuple[int, int, Hit]] = []
        for n, hit in enumerate([*states, *notes]):
            aspect = _aspect(hit)
            # one current fact per slot (an aspect; a look holds one per feature)
            held = fact_slot(hit.metadata) or ("" if aspect == APPEARANCE else aspect)
            if held in seen:
                continue  # a second live holder of one slot (older data): the newest wins
            if held:
                seen.add(held)
            own.append((STATE_TIERS.get(aspect, 1) if aspect else 2, n, hit))
        # each one's most telling line comes first: a tight budget drops someone's second
        # state before anyone present is left out altogether
        head = min(own, key=lambda t: (t[0], t[1]), default=None)
        for tier, n, hit in own:
            level = HEADLINE if head is not None and hit is head[2] else tier
            items.append(
                PackItem(section="characters", text=f"{name}: {hit.text}", memory_id=hit.id,
                         pinned=hit.pinned, relevance=-(level * 1000 + rank * 10 + n))
            )
    return items


def _setting_items(
    memory: MemoryReader, text: str, terms: Sequence[str], limits: PackLimits
) -> list[PackItem]:
    """Settings the scene names (a place, a rule's keyword: recalled even when faded), world
    rules that concern it, and settings similar to it (named ones rank first, then rules)."""
    # unasked, only what forgetting still offers; a current rule held long after anyone
    # named it comes back on its cue (named, relevant), not by mere likeness
    similar = [h for h in memory.recall(text, k=limits.settings, tag="NovelSetting",
                                        reinforce=False) if h.vivid]
    said = text_key(" ".join(terms))
    named_keys = [kw for kw in memory.setting_keywords()
                  if len(text_key(kw)) >= 2 and text_key(kw) in said]
    named = list(memory.cued_settings(named_keys))[: limits.rules] if named_keys else []
    rules = list(memory.world_rules())
    scored = [(h, overlap_score(f"{h.metadata.get('keyword', '')} {h.text}", terms))
              for h in rules]
    relevant = [h for h, score in sorted(scored, key=lambda p: (-p[1], p[0].text)) if score > 0]
    items: list[PackItem] = []
    seen: set[str] = set()
    cued = {h.id for h in named}
    for n, hit in enumerate([*named, *relevant[: limits.rules], *similar]):
        if hit.id in seen:
            continue
        seen.add(hit.id)
        bonus = (200 if hit.id in cued else 0) + (100 if _aspect(hit) == "rule" else 0)
        items.append(PackItem(section="settings", text=hit.text, memory_id=hit.id,
                              pinned=hit.pinned, relevance=bonus - n))
    return items


def _aspect(hit: Hit) -> str:
    aspect = str(hit.metadata.get("aspect") or "")
    return "" if aspect == "other" else aspect


def _story_order(hit: Hit) -> tuple[int, int, int]:
    """When a fact became true: chapter, beat, then the turn it was written at."""
    m = hit.metadata
    return (int(m.get("chapter", 0) or 0), int(m.get("beat", 0) or 0),
            int(m.get("created_turn", 0) or 0))


def gather_items(
    memory: MemoryReader, scene: Scene, limits: PackLimits | None = None
) -> list[PackItem]:
    """Read what the scene needs from ``memory`` as candidate pack items (no reinforcement)."""
    limits = limits or PackLimits()
    resolver = AliasResolver(memory.characters())
    present: list[str] = []
    for name in scene.characters:
        canonical = resolver.resolve(name) or " ".join(name.split())
        if canonical and canonical not in present:
            present.append(canonical)
    terms = [scene.query, scene.location or "", *scene.keywords, *present]
    text = scene.search_text()
    items: list[PackItem] = []

    items.extend(_character_items(memory, present, limits))

    matrix = relation_matrix(memory, present, resolver=resolver, cued=True)
    for n, cell in enumerate(matrix.known()):
        items.append(
            PackItem(section="relations", text=f"{cell.a} — {cell.b}: {cell.text}",
                     memory_id=cell.memory_id, pinned=cell.pinned, relevance=-n)
        )

    items.extend(_setting_items(memory, text, terms, limits))

    summary = [line.strip() for line in memory.short_term.text().splitlines() if line.strip()]
    for n, line in enumerate(summary):
        items.append(PackItem(section="summary", text=line.lstrip("-• "), relevance=n))

    for hit, score in _top(memory.open_foreshadowing(), terms, limits.foreshadowing):
        items.append(PackItem(section="foreshadowing", text=hit.text, memory_id=hit.id,
                              pinned=hit.pinned, relevance=score))

    pinned = [h for h in memory.get_where({"pinned": {"$eq": True}}) if _is_current(h)]
    for hit, score in _top(pinned, terms, limits.core):
        items.append(PackItem(section="core", text=hit.text, memory_id=hit.id, pinned=True,
                              relevance=score))

    for n, hit in enumerate(memory.recall(text, k=limits.story, tag="Story", reinforce=False)):
        items.append(PackItem(section="story", text=hit.text, memory_id=hit.id,
                              pinned=hit.pinned, relevance=-n))
    return items


def build_context(
    memory: MemoryReader,
    scene: Scene,
    budget_tokens: int,
    *,
    limits: PackLimits | None = None,
    reinforce: bool = True,
    words: Mapping[str, str] | None = None,
) -> ContextPack:
    """The context pack for ``scene`` within ``budget_tokens`` (see :mod:`aizac.retrieval.pack`),
    its headings in ``words`` (the prompt language's, :data:`aizac.retrieval.pack.ENGLISH` by
    default).

    Memories that make it into the pack are reinforced (they came back, so they matter) unless
    ``reinforce`` is False.
    """
    items = gather_items(memory, scene, limits)
    pack = assemble_pack(items, budget_tokens, act_goal=scene.act_goal, location=scene.location,
                         words=words)
    if reinforce:
        ids = [i.memory_id for i in pack.items if i.memory_id]
        if ids:
            memory.reinforce(ids)
    return pack
