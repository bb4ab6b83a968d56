"""Keyed lookups over the memory rows: exact metadata reads, never a similarity scan.

The relation of a pair, a character's current state, the cast with aliases, open foreshadowing,
the holder of a fact's slot and the version history of a fact are answered through the key index
(or Chroma ``where`` filters without one), so they are exact and do not depend on phrasing.
Names compare by the one rule of :func:`aizac.memory.facts.name_key`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any

from aizac.errors import InvalidInputError, NotFoundError
from aizac.memory.facts import ADDRESS, RULE, fact_slot, fact_subject, name_key, same_text
from aizac.memory.key_index import fingerprint, simple_equalities
from aizac.memory.records import (
    ALWAYS,
    CHARACTER,
    NEVER,
    RELATION,
    SETTING,
    MemoryHit,
    Where,
    and_where,
    canonical_pair,
    clean_aliases,
    normalize_name,
    recency_key,
    split_aliases,
    split_ids,
    state_where,
    to_hit,
)
from aizac.memory.rows import INCLUDE, Rows

NOTES = 32
"""Notes without an aspect read per character (newest first) by :meth:`Lookups.character_state`
and near-same restatement checks: a scene shows a few, and older ones decay; current states
(one per aspect) are always read."""


class Lookups:
    """Exact reads of one memory collection at the current turn (``turn()``)."""

    def __init__(self, rows: Rows, turn: Callable[[], int]) -> None:
        self.rows = rows
        self.turn = turn
        self._cast: tuple[int, int, dict[str, list[str]]] | None = None
        self._held: tuple[tuple[int, int], dict[str, list[MemoryHit]]] = ((-1, -1), {})
        """Slot holders read since the last write (rows version, turn): staging a fact and
        committing it ask the same slot, and an accept reads a scene's voices twice."""

    def _held_now(self) -> dict[str, list[MemoryHit]]:
        key = (self.rows.version, self.turn())
        if self._held[0] != key:
            self._held = (key, {})
        return self._held[1]

    def hits(self, res: Mapping[str, Any]) -> list[MemoryHit]:
        docs = res.get("documents") or [None] * len(res["ids"])
        metas = res.get("metadatas") or [{}] * len(res["ids"])
        rows = zip(res["ids"], docs, metas, strict=True)
        turn = self.turn()
        return [to_hit(i, d, m or {}, turn) for i, d, m in rows]

    def get(self, memory_id: str) -> MemoryHit:
        """One memory in whatever state it is (raises :class:`NotFoundError` if unknown)."""
        with self.rows.lock:
            return self.hits(self.rows.fetch([memory_id]))[0]

    def get_where(
        self,
        where: Where | None,
        limit: int | None = None,
        *,
        include_forgotten: bool = False,
        include_superseded: bool = False,
    ) -> list[MemoryHit]:
        """Exact metadata lookup (no similarity, no reinforcement), served memories only by
        default; newest first (chapter, beat, creation turn)."""
        if where is not None and not isinstance(where, Mapping):
            raise InvalidInputError("error.memory.where", got=repr(where))
        with self.rows.lock:
            turn = self.turn()
            equal = simple_equalities(where)
            res = None
            if equal is not None and not include_forgotten and not include_superseded:
                res = self.rows.indexed(equal, INCLUDE, turn)
            elif _pinned_only(where) and not include_forgotten and not include_superseded:
                res = self._pinned(turn)
            if res is None:
                full = and_where(
                    where,
                    state_where(
                        turn, include_forgotten=include_forgotten,
                        include_superseded=include_superseded,
                    ),
                )
                res = self.rows.get_paged(full)
            hits = sorted(self.hits(res), key=recency_key, reverse=True)
        return hits[:limit] if limit is not None else hits

    def _pinned(self, turn: int) -> dict[str, Any] | None:
        """Live pinned memories: a pinned current memory's ``live_until`` is :data:`ALWAYS`,
        so the index's hints find them without a Chroma ``where`` scan (re-checked here)."""
        if self.rows.index is None:
            return None
        ids = self.rows.index.ids({}, live_from=ALWAYS)
        got = self.rows.by_ids(ids, INCLUDE)
        keep = [n for n, meta in enumerate(got["metadatas"])
                if meta.get("pinned") is True and float(meta.get("live_until", NEVER)) >= turn]
        return {key: [values[n] for n in keep] for key, values in got.items()}

    def _keyed(self, key: str, value: str, fallback: Where) -> list[MemoryHit]:
        """Live memories whose derived index key ``key`` equals ``value``, newest first.

        Without an index, ``fallback`` (a Chroma filter) is read and checked here.
        """
        with self.rows.lock:
            turn = self.turn()
            res = self.rows.indexed({key: value}, INCLUDE, turn)
            if res is not None:
                return sorted(self.hits(res), key=recency_key, reverse=True)
        derive = {"slot": fact_slot, "subject": fact_subject}.get(key)
        hits = self.get_where(fallback)
        if derive is not None:
            return [h for h in hits if derive(h.metadata) == value]
        return [h for h in hits if fingerprint(h.tag, fact_subject(h.metadata), h.text) == value]

    def slot_holders(self, meta: Mapping[str, Any]) -> list[MemoryHit]:
        """The current versions holding the slot of a fact with metadata ``meta``, newest
        first (normally one). Decayed or forgotten ones count: a new version replaces them
        too, so none can come back as current. Empty when the fact has no slot."""
        slot = fact_slot(meta)
        if not slot:
            return []
        return self.slots_held([meta])[slot]

    def slots_held(self, metas: Iterable[Mapping[str, Any]]) -> dict[str, list[MemoryHit]]:
        """:meth:`slot_holders` of many facts at once: slot -> its current versions, newest
        first, for every slot of ``metas`` (a fact without a slot is left out; a slot without
        a holder maps to ``[]``). One index read and one Chroma read however many slots are
        asked (a scene's voice cards, deaths and pairs), none for a slot read since the last
        write."""
        wanted = {fact_slot(m): m for m in metas}
        wanted.pop("", None)
        if not wanted:
            return {}
        with self.rows.lock:
            known = self._held_now()
            missing = {slot: meta for slot, meta in wanted.items() if slot not in known}
            if missing:
                known.update(self._read_holders(missing))
            return {slot: [replace(h, metadata=dict(h.metadata)) for h in known[slot]]
                    for slot in wanted}

    def _read_holders(self, wanted: Mapping[str, Mapping[str, Any]]
                      ) -> dict[str, list[MemoryHit]]:
        if self.rows.index is not None:
            # superseded versions (as many as the fact's changes) are not read
            ids = self.rows.index.in_slots(wanted, live_from=self.rows.holder_floor())
            hits = self.hits(self.rows.by_ids(ids, INCLUDE)) if ids else []
        else:
            hits = []
            for meta in wanted.values():
                fallback: Where = {"tag": str(meta["tag"])}
                if meta["tag"] == CHARACTER:
                    name = str(meta["character_name"])
                    fallback = {"$and": [fallback, {"character_name": name}]}
                hits.extend(self.get_where(fallback, include_forgotten=True))
        out: dict[str, list[MemoryHit]] = {slot: [] for slot in wanted}
        seen: set[str] = set()
        for hit in sorted(hits, key=recency_key, reverse=True):
            slot = fact_slot(hit.metadata)
            if slot in out and not hit.superseded and hit.id not in seen:
                seen.add(hit.id)
                out[slot].append(hit)
        return out

    def restated(self, meta: Mapping[str, Any], text: str) -> MemoryHit | None:
        """A live memory that already states this fact (same tag, subject and same text, or
        near-same text among the newest :data:`NOTES` about the subject), or ``None``."""
        tag, subject = str(meta["tag"]), fact_subject(meta)
        exact = self._keyed("fp", fingerprint(tag, subject, text), {"tag": tag})
        if exact:
            return exact[0]
        if not subject:
            return None
        about = self._about(subject, tag)
        if about is None:
            about = self._keyed("subject", subject, {"tag": tag})
        for hit in about:
            if hit.tag == tag and same_text(hit.text, text):
                return hit
        return None

    def _about(self, subject: str, tag: str, *, notes: int = NOTES) -> list[MemoryHit] | None:
        """Live ``tag`` memories about ``subject`` through the index (current states and the
        newest ``notes`` notes), newest first; ``None`` without an index."""
        if self.rows.index is None:
            return None
        with self.rows.lock:
            turn = self.turn()
            ids = self.rows.index.about(subject, tag, live_from=float(turn), notes=notes)
            hits = [h for h in self.hits(self.rows.by_ids(ids, INCLUDE))
                    if h.live and h.tag == tag and fact_subject(h.metadata) == subject]
        return sorted(hits, key=recency_key, reverse=True)

    def relations(self, a: str, b: str) -> list[MemoryHit]:
        """Every live CharacterRelation of the pair ``a``-``b`` (either order), newest first."""
        c1, c2 = canonical_pair(a, b)
        meta = {"tag": RELATION, "character1": c1, "character2": c2}
        slot = fact_slot(meta)
        return self._keyed("slot", slot, {"tag": RELATION})

    def relation(self, a: str, b: str) -> MemoryHit | None:
        """The latest live CharacterRelation of the pair (exact keyed lookup), or ``None``."""
        found = self.relations(a, b)
        return found[0] if found else None

    def character_state(self, name: str) -> list[MemoryHit]:
        """Live Character memories of ``name`` (or a character it is an alias of), newest
        first: the current state of every aspect and the newest :data:`NOTES` other notes.

        ``"KangMira"``, ``"kang mira"`` and ``"Kang Mira"`` name the same character.
        """
        if not normalize_name(name or ""):
            raise InvalidInputError("error.memory.empty_name")

        def read(key: str) -> list[MemoryHit]:
            found = self._about(key, CHARACTER)
            return found if found is not None else self._keyed(
                "subject", key, {"tag": CHARACTER}
            )

        hits = read(name_key(name))
        if not hits:  # an alias: one (cached) read of the live cast
            canonical = self.resolve_name(name)
            if name_key(canonical) != name_key(name):
                hits = read(name_key(canonical))
        return [h for h in hits if h.tag == CHARACTER]

    def held_states(self, name: str) -> list[MemoryHit]:
        """The live slot holders of character ``name`` (canonical, or a name of the cast),
        newest first: the current value of every durable slot, however long ago it was said,
        and a fading one while it lasts. One keyed read that does not grow with the story
        (superseded versions are not read)."""
        canonical = self.resolve_name(name)
        key = name_key(canonical)
        found = self._about(key, CHARACTER, notes=0)
        if found is None:
            found = [h for h in self.current_states(canonical) if h.live]
        return [h for h in found if fact_slot(h.metadata) and not h.superseded]

    def current_states(self, name: str, *, include_forgotten: bool = False) -> list[MemoryHit]:
        """The current version of each slot (aspect) of character ``name`` or an alias of it,
        faded or not, newest first: what the story holds true of them, whether or not a scene
        recalled it lately. One explicitly forgotten is left out unless ``include_forgotten``.
        """
        if not normalize_name(name or ""):
            raise InvalidInputError("error.memory.empty_name")

        def read(key: str) -> list[MemoryHit]:
            with self.rows.lock:
                if self.rows.index is not None:
                    ids = self.rows.index.slotted(key, CHARACTER)
                    hits = self.hits(self.rows.by_ids(ids, INCLUDE))
                else:
                    hits = [h for h in self.get_where({"tag": CHARACTER}, include_forgotten=True)
                            if fact_subject(h.metadata) == key]
            return [h for h in hits if h.tag == CHARACTER and not h.superseded
                    and fact_slot(h.metadata) and fact_subject(h.metadata) == key
                    and (include_forgotten or not h.metadata.get("forgotten"))]

        hits = read(name_key(name))
        if not hits:
            canonical = self.resolve_name(name)
            if name_key(canonical) != name_key(name):
                hits = read(name_key(canonical))
        return sorted(hits, key=recency_key, reverse=True)

    def state_at(self, name: str, turn: int) -> list[MemoryHit]:
        """Each slot's version of character ``name`` that was true at ``turn`` (see
        :meth:`aizac.memory.store.WriterMemory.state_at`), newest first."""
        canonical = self.resolve_name(name)
        with self.rows.lock:
            if self.rows.index is not None:
                ids = self.rows.index.slotted(name_key(canonical), CHARACTER)
                hits = self.hits(self.rows.by_ids(ids, INCLUDE))
            else:
                hits = [h for h in self.get_where({"tag": CHARACTER}, include_forgotten=True,
                                                  include_superseded=True)
                        if fact_subject(h.metadata) == name_key(canonical)]
        return _true_at(hits, turn)

    def relation_at(self, a: str, b: str, turn: int) -> MemoryHit | None:
        """The version of the pair's relation that was true at ``turn``, or ``None``."""
        c1, c2 = canonical_pair(a, b)
        slot = fact_slot({"tag": RELATION, "character1": c1, "character2": c2})
        with self.rows.lock:
            if self.rows.index is not None:
                ids = self.rows.index.ids({"slot": slot}, live_from=None)
                hits = self.hits(self.rows.by_ids(ids, INCLUDE))
            else:
                hits = [h for h in self.get_where({"tag": RELATION}, include_forgotten=True,
                                                  include_superseded=True)
                        if fact_slot(h.metadata) == slot]
        found = _true_at(hits, turn)
        return found[0] if found else None

    def current_relation(self, a: str, b: str) -> MemoryHit | None:
        """The current relation of the pair, faded or not (never one explicitly forgotten)."""
        c1, c2 = canonical_pair(a, b)
        held = self.slot_holders({"tag": RELATION, "character1": c1, "character2": c2})
        kept = [h for h in held if not h.metadata.get("forgotten")]
        return kept[0] if kept else None

    def current_rule(self, keyword: str) -> MemoryHit | None:
        """The current world rule of ``keyword``, faded or not (never one explicitly
        forgotten)."""
        if not name_key(keyword):
            return None
        held = self.slot_holders({"tag": SETTING, "aspect": RULE, "keyword": keyword})
        kept = [h for h in held if not h.metadata.get("forgotten")]
        return kept[0] if kept else None

    def settings_of(self, keyword: str) -> list[MemoryHit]:
        """Live NovelSetting memories whose keyword is ``keyword`` (same :func:`name_key`),
        newest first."""
        key = name_key(keyword)
        if not key:
            return []
        hits = self.get_where({"tag": SETTING})
        return [h for h in hits if name_key(str(h.metadata.get("keyword", ""))) == key]

    def cued_settings(self, keywords: Iterable[str]) -> list[MemoryHit]:
        """Current NovelSetting memories (world rules, places) whose keyword is one of
        ``keywords``, faded or not (never one explicitly forgotten or superseded), newest
        first: what a scene that names them recalls on its cue."""
        wanted = {name_key(k) for k in keywords if name_key(k)}
        if not wanted:
            return []
        found = [h for h in self._settings() if name_key(str(h.metadata.get("keyword", "")))
                 in wanted]
        return sorted(found, key=recency_key, reverse=True)

    def setting_keywords(self) -> list[str]:
        """The keywords of current NovelSetting memories, faded or not (a scene may name one)."""
        out: dict[str, str] = {}
        for h in self._settings():
            kw = str(h.metadata.get("keyword", "")).strip()
            if kw:
                out.setdefault(name_key(kw), kw)
        return list(out.values())

    def _settings(self) -> list[MemoryHit]:
        """Current settings, faded or not, never one explicitly forgotten (keyed reads)."""
        with self.rows.lock:
            if self.rows.index is not None:
                ids = self.rows.index.ids({"tag": SETTING}, live_from=None)
                hits = self.hits(self.rows.by_ids(ids, INCLUDE))
            else:
                hits = self.get_where({"tag": SETTING}, include_forgotten=True)
        return [h for h in hits if h.tag == SETTING and not h.superseded
                and not h.metadata.get("forgotten")]

    def conflicts(self) -> list[tuple[MemoryHit, MemoryHit]]:
        """Pairs of facts kept side by side because the model could not say which slot holds
        the newer one: ``(flagged, other)``, the flagged one newer; each pair while both are
        current and the writer has not settled it. A flagged fact's other side that was
        superseded since is followed to its current version (the slot moved on; the doubt did
        not)."""
        with self.rows.lock:
            res = self.rows.get_paged(and_where({"conflicts": {"$ne": ""}},
                                                state_where(self.turn(), include_forgotten=True)))
            flagged = [h for h in self.hits(res) if h.metadata.get("conflicts")
                       and not h.metadata.get("forgotten") and not h.superseded]
            out: list[tuple[MemoryHit, MemoryHit]] = []
            for hit in sorted(flagged, key=recency_key, reverse=True):
                for other_id in split_ids(hit.metadata.get("conflicts")):
                    try:
                        other = self.history(other_id)[-1]
                    except NotFoundError:
                        continue
                    if other.id != hit.id and not other.superseded and not (
                            other.metadata.get("forgotten")):
                        out.append((hit, other))
            return out

    def characters(self) -> dict[str, list[str]]:
        """Canonical name -> aliases, from the live Character memories, newest first.

        Cached until the next write or turn change, so the many reads of one beat cost one.
        With a key index the cast is read from it (names, aliases and order are stored there)
        and only one row per character is checked in Chroma, so the cost follows the cast, not
        the number of Character memories the novel has written.
        """
        key = (self.rows.version, self.turn())
        if self._cast is not None and self._cast[:2] == key:
            return {k: list(v) for k, v in self._cast[2].items()}
        out = self._indexed_cast(key[1])
        if out is None:
            out = {}
            for hit in self.get_where({"tag": CHARACTER}):
                known = out.setdefault(hit.character_name, [])
                known.extend(a for a in hit.aliases if a not in known)
        self._cast = (key[0], key[1], out)
        return {k: list(v) for k, v in out.items()}

    def _indexed_cast(self, turn: int) -> dict[str, list[str]] | None:
        """The cast from the key index, or ``None`` (no index, or a hint found stale)."""
        if self.rows.index is None:
            return None
        with self.rows.lock:
            rows = self.rows.index.cast(live_from=float(turn))
            out: dict[str, list[str]] = {}
            first: dict[str, tuple[str, float]] = {}  # name -> (id, hint) of its newest row
            for mid, name, aliases, live in rows:
                known = out.setdefault(name, [])
                known.extend(a for a in split_aliases(aliases) if a not in known)
                if name not in first or live > first[name][1]:
                    first[name] = (mid, live)
            ids = [mid for mid, _ in first.values()]
            got = self.rows.by_ids(ids, ["metadatas"])
        metas = dict(zip(got["ids"], got["metadatas"], strict=True))
        for name, (mid, _) in first.items():
            meta = metas.get(mid)
            if meta is None or meta.get("character_name") != name or (
                float(meta.get("live_until", NEVER)) < turn
            ):
                return None  # the index says more than Chroma: read the exact way
        return out

    def resolve_name(self, name: str) -> str:
        """The canonical character name for ``name`` or one of its aliases (else ``name``)."""
        key = name_key(name)
        if not key:
            raise InvalidInputError("error.memory.empty_name")
        for canonical, other in self.characters().items():
            if name_key(canonical) == key or any(name_key(a) == key for a in other):
                return canonical
        aliases = clean_aliases([name], "")
        return aliases[0] if aliases else name

    def relations_among(self, names: Iterable[str]) -> list[MemoryHit]:
        """The current relation of every pair of ``names`` (canonical) that has one: a keyed
        read (one index query, not one per pair). A pair's voice (how one speaks to the other)
        is not a relation here."""
        chosen = [normalize_name(n) for n in names if normalize_name(n)]
        if len(chosen) < 2:
            return []
        with self.rows.lock:
            if self.rows.index is not None:
                ids = self.rows.index.among(chosen, live_from=float(self.turn()))
                hits = self.hits(self.rows.by_ids(ids, INCLUDE))
            else:
                hits = self.get_where({"tag": RELATION})
        wanted = set(chosen)
        return sorted((h for h in hits if h.live and not h.superseded
                       and h.metadata.get("aspect") != ADDRESS
                       and {str(h.metadata.get("character1")),
                            str(h.metadata.get("character2"))} <= wanted),
                      key=recency_key, reverse=True)

    def open_foreshadowing(self) -> list[MemoryHit]:
        """Foreshadowing still open: live, current, marked ``foreshadow=True``."""
        return self.get_where({"foreshadow": True})

    def world_rules(self) -> list[MemoryHit]:
        """Current world rules (NovelSetting memories with ``aspect="rule"``), newest first."""
        where: Where = {"$and": [{"tag": SETTING}, {"aspect": RULE}]}
        if self.rows.index is None:
            return self.get_where(where)
        with self.rows.lock:
            turn = self.turn()
            ids = self.rows.index.slot_prefix("rule|", live_from=float(turn))
            got = self.rows.by_ids(ids, INCLUDE)
            hits = [h for h in self.hits(got) if h.live and h.metadata.get("aspect") == RULE]
        return sorted(hits, key=recency_key, reverse=True)

    def history(self, memory_id: str) -> list[MemoryHit]:
        """Every version of the fact ``memory_id`` belongs to, oldest first."""
        with self.rows.lock:
            chain = [self.get(memory_id)]
            seen = {memory_id}
            while (prev := str(chain[0].metadata.get("supersedes") or "")) and prev not in seen:
                seen.add(prev)
                try:
                    chain.insert(0, self.get(prev))
                except NotFoundError:
                    break
            while (nxt := str(chain[-1].metadata.get("superseded_by") or "")) and nxt not in seen:
                seen.add(nxt)
                chain.append(self.get(nxt))
            return chain


def true_at(meta: Mapping[str, Any], turn: int) -> bool:
    """Whether a fact was true at story turn ``turn``: it had become true (``created_turn``),
    no later version had taken over (``ended_turn``) and the writer has not struck it."""
    if meta.get("struck"):
        return False
    ended = int(meta.get("ended_turn", -1))
    if ended < 0 and meta.get("superseded_by"):
        return False  # superseded before validity was recorded: when it ended is unknown
    return int(meta.get("created_turn", 0)) <= turn and (ended < 0 or turn < ended)


def _true_at(hits: Iterable[MemoryHit], turn: int) -> list[MemoryHit]:
    """The newest version of each slot that was true at ``turn``, newest first."""
    best: dict[str, MemoryHit] = {}
    for hit in sorted(hits, key=recency_key):
        slot = fact_slot(hit.metadata)
        if slot and true_at(hit.metadata, turn):
            best[slot] = hit
    return sorted(best.values(), key=recency_key, reverse=True)


def _pinned_only(where: Mapping[str, Any] | None) -> bool:
    """Whether ``where`` is exactly ``{"pinned": True}`` (or ``{"pinned": {"$eq": True}}``)."""
    if not where or set(where) != {"pinned"}:
        return False
    value = where["pinned"]
    return value is True or (isinstance(value, Mapping) and dict(value) == {"$eq": True})
