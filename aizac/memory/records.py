"""Memory records: tags, metadata building and validation, hits, where-filter helpers (pure).

Everything here is plain data in and plain data out, so the rules for what a valid memory is
live in one place and are tested without Chroma.

Stored metadata (Chroma values cannot be ``None``, so "absent" is ``""`` / ``0`` / ``False``):

============== ======= ==========================================================================
key            type    meaning
============== ======= ==========================================================================
tag            str     one of :data:`TAGS`
character_name str     the character a memory is about (required for ``Character``)
character1/2   str     the pair of a ``CharacterRelation``, in canonical order (A-B == B-A)
aliases        str     other names of a ``Character`` (``"|"``-joined)
keyword        str     a free keyword (place, object, arc)
chapter, beat  int     where in the story the fact was established
created_turn   int     story turn it was written at
last_turn      int     turn of creation or the last reinforcement
memory_strength float  ``S`` in ``exp(-time / S) * 10``
pinned         bool    core memory: never forgotten
forgotten      bool    explicitly forgotten with ``forget()`` (restorable)
foreshadow     bool    open foreshadowing (Story / NovelSetting)
paid_off       str     ``"<chapter>-<beat>"`` where planted foreshadowing was paid off, or ``""``
aspect         str     the part of a character a state fact is about (see
                       :data:`aizac.memory.facts.ASPECTS`), ``"rule"`` for a world rule,
                       ``"profile"`` for who a character is, or ``""``
lineage        str     a world rule's lineage: the id of its first version (its slot), or ``""``
batch          str     id of the commit that wrote the memory (undo/redo by commit)
conflicts      str     ids (``"|"``-joined) of current facts this one may state differently: the
                       model could not say (the embedded model's slot fallback,
                       :mod:`aizac.memory.slot_sense`, was unsure), so both were kept and the
                       pair waits for the writer, or ``""``
supersedes     str     id of the previous version of this fact, or ``""``
superseded_by  str     id of the newer version, or ``""`` for current canon
ended_turn     int     the turn a newer version took over (the fact stopped being true), ``-1``
                       while it is current; ``created_turn`` is the turn it became true
struck         bool    struck out by the writer (a retcon: it was never true, at any turn)
flag           str     why the writer should look at it: ``"language"`` (kept though written
                       in another language), ``"unplaced"`` (the extractor's reference to a
                       character could not be resolved), ``"merged"`` (one fact said two
                       changes), or ``""``
forget_at      float   ``last_turn + S * ln(10 / threshold)``: last turn the memory is live
live_until     float   what the live filter reads: ``forget_at``; :data:`ALWAYS` when pinned,
                       when it is the current value of a durable slot
                       (:func:`aizac.memory.facts.durable_slot`) or open foreshadowing;
                       :data:`NEVER` when superseded, forgotten or struck
============== ======= ==========================================================================

``live_until`` folds "pinned OR held OR forget_at >= turn" AND "not superseded" AND "not
forgotten" into one indexed range clause, so the live filter stays selective as the store grows.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from aizac.errors import InvalidInputError
from aizac.memory.facts import (
    ADDRESS,
    LINEAGE_KEY,
    LISTENER_KEY,
    PROFILE,
    RULE,
    SPEAKER_KEY,
    check_aspect,
    durable_slot,
)
from aizac.memory.facts import name_key as _name_key
from aizac.memory.forgetting import check_strength, forget_at, memory_factor

STORY = "Story"
CHARACTER = "Character"
RELATION = "CharacterRelation"
SETTING = "NovelSetting"
TAGS: tuple[str, ...] = (STORY, CHARACTER, RELATION, SETTING)

ALWAYS = 1.0e15
"""``live_until`` of a pinned memory (later than any turn)."""
NEVER = -1.0
"""``live_until`` of a superseded or forgotten memory (earlier than any turn)."""
ALIAS_SEP = "|"
RULE_WHERE: dict[str, Any] = {"$and": [{"tag": SETTING}, {"aspect": RULE}]}
"""The filter of world rules."""

RESERVED_KEYS: frozenset[str] = frozenset({
    "tag", "character_name", "character1", "character2", "aliases", "keyword", "chapter",
    "beat", "created_turn", "last_turn", "memory_strength", "pinned", "forgotten",
    "foreshadow", "paid_off", "aspect", "batch", "supersedes", "superseded_by", "forget_at",
    "live_until", "conflicts", LINEAGE_KEY, "ended_turn", "struck", "flag",
})
"""The stored keys of the table above (caller ``extra`` metadata may not use them)."""

Metadata = dict[str, str | int | float | bool]
Where = dict[str, Any]


def normalize_name(name: str) -> str:
    """A character name with Unicode NFC and collapsed whitespace (how names are stored)."""
    return " ".join(unicodedata.normalize("NFC", name).split())


def name_key(name: str) -> str:
    """The comparison key of a name (see :func:`aizac.memory.facts.name_key`)."""
    return _name_key(name)


def canonical_pair(a: str, b: str) -> tuple[str, str]:
    """The two names of a relation in canonical order, so ``(a, b)`` and ``(b, a)`` agree.

    Raises:
        InvalidInputError: a name is empty or both name the same character.
    """
    x, y = normalize_name(a or ""), normalize_name(b or "")
    if not x or not y:
        raise InvalidInputError("error.memory.relation_pair")
    if name_key(x) == name_key(y):
        raise InvalidInputError("error.memory.relation_self", name=x)
    return (x, y) if (name_key(x), x) <= (name_key(y), y) else (y, x)


def check_tag(tag: str) -> str:
    """Return ``tag`` if it is one of :data:`TAGS`, else raise :class:`InvalidInputError`."""
    if tag not in TAGS:
        raise InvalidInputError("error.memory.tag", tag=str(tag), choices=", ".join(TAGS))
    return tag


def check_text(text: str) -> str:
    """The memory text, stripped; raises if it is not a non-empty string."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidInputError("error.memory.empty_text")
    return text.strip()


def _check_count(name: str, value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidInputError("error.memory.count", name=name, got=repr(value))
    return value


def clean_aliases(aliases: Iterable[str] | None, canonical: str) -> list[str]:
    """Aliases normalised, de-duplicated, without the canonical name; ``|`` is rejected."""
    if aliases is None:
        return []
    if isinstance(aliases, str):
        raise InvalidInputError("error.memory.aliases_string")
    out: list[str] = []
    seen = {name_key(canonical)}
    for alias in aliases:
        if not isinstance(alias, str):
            raise InvalidInputError("error.memory.alias_type", got=repr(alias))
        if ALIAS_SEP in alias:
            raise InvalidInputError("error.memory.alias_separator", separator=ALIAS_SEP,
                                    alias=alias)
        norm = normalize_name(alias)
        if norm and name_key(norm) not in seen:
            seen.add(name_key(norm))
            out.append(norm)
    return out


def split_aliases(value: object) -> list[str]:
    """The alias list stored in a metadata string."""
    return [a for a in str(value or "").split(ALIAS_SEP) if a]


def check_extra(extra: Mapping[str, object] | None) -> Metadata:
    """Caller metadata: scalar values only, no reserved or operator-like keys."""
    if not extra:
        return {}
    out: Metadata = {}
    for key, value in extra.items():
        if not isinstance(key, str) or not key or key[0] in "$#" or key in RESERVED_KEYS:
            raise InvalidInputError("error.memory.extra_key", key=repr(key),
                                    reserved=", ".join(sorted(RESERVED_KEYS)))
        if isinstance(value, float) and not math.isfinite(value):
            raise InvalidInputError("error.memory.extra_finite", key=key)
        if not isinstance(value, str | int | float | bool):
            raise InvalidInputError("error.memory.extra_type", key=key,
                                    type=type(value).__name__)
        out[key] = value
    return out


FLAGS: tuple[str, ...] = ("language", "unplaced", "merged")
"""Why a memory waits for the writer's look (the ``flag`` metadata)."""
CURRENT = -1
"""``ended_turn`` of a fact that is still true."""


def held(meta: Mapping[str, Any]) -> bool:
    """Whether forgetting never takes this memory while it is current: pinned, the current
    value of a durable slot, or foreshadowing still open (a promise the story must keep)."""
    if meta.get("pinned"):
        return True
    if meta.get("foreshadow") and not meta.get("paid_off"):
        return True
    return durable_slot(meta)


def live_until(meta: Mapping[str, Any]) -> float:
    """The ``live_until`` value implied by the other fields of ``meta``."""
    if meta.get("superseded_by") or meta.get("forgotten") or meta.get("struck"):
        return NEVER
    if held(meta):
        return ALWAYS
    return float(meta["forget_at"])


def decay_fields(
    meta: Mapping[str, Any], *, last_turn: int, strength: float, threshold: float
) -> Metadata:
    """The fields to write when a memory's strength or last turn changes."""
    changed: Metadata = {
        "last_turn": int(last_turn),
        "memory_strength": float(strength),
        "forget_at": forget_at(last_turn, strength, threshold),
    }
    changed["live_until"] = live_until({**meta, **changed})
    return changed


@dataclass
class MemoryFields:
    """What a caller states about one memory: the one home of these fields, their defaults and
    their meaning, shared by :meth:`WriterMemory.remember`, :meth:`CandidateBatch.remember` /
    ``note`` and the new versions made by ``supersede``. :func:`build_metadata` validates them.

    ``aspect`` makes a Character fact a state of that aspect (see
    :data:`aizac.memory.facts.ASPECTS`), ``"rule"`` a NovelSetting a world rule keyed by its
    keyword; ``conflicts`` names current facts it may state differently (a pair kept for the
    writer to settle); ``extra`` is the caller's own scalar metadata.
    """

    strength: float
    character_name: str | None = None
    character1: str | None = None
    character2: str | None = None
    keyword: str = ""
    chapter: int = 0
    beat: int = 0
    pinned: bool = False
    aliases: Iterable[str] | None = None
    foreshadow: bool = False
    aspect: str | None = None
    conflicts: Sequence[str] | None = None
    extra: Mapping[str, object] | None = None
    lineage: str = ""
    flag: str = ""

    @classmethod
    def of(cls, strength: float, **fields: Any) -> MemoryFields:
        """The fields from keyword arguments; an unknown name is a clear error."""
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(fields) - known)
        if unknown:
            raise InvalidInputError("error.memory.fields", fields=", ".join(unknown),
                                    known=", ".join(sorted(known - {"strength"})))
        if fields.get("aliases") is not None and not isinstance(fields["aliases"], str):
            fields["aliases"] = list(fields["aliases"])
        if fields.get("extra"):
            fields["extra"] = dict(fields["extra"])
        if fields.get("conflicts") is not None:
            fields["conflicts"] = list(fields["conflicts"])
        return cls(strength=strength, **fields)


def _people(tag: str, fields: MemoryFields) -> tuple[str, str, str]:
    """The character name and the relation pair of a memory, checked against its tag."""
    name = normalize_name(fields.character_name or "")
    if tag == CHARACTER and not name:
        raise InvalidInputError("error.memory.character_name")
    if tag == RELATION:
        if name:
            raise InvalidInputError("error.memory.relation_name")
        c1, c2 = canonical_pair(fields.character1 or "", fields.character2 or "")
        return name, c1, c2
    if fields.character1 or fields.character2:
        raise InvalidInputError("error.memory.pair_tag", tag=tag)
    return name, "", ""


def _tag_fields(tag: str, fields: MemoryFields) -> str:
    """Check the fields that only some tags take; returns the checked aspect."""
    if fields.aliases and tag != CHARACTER:
        raise InvalidInputError("error.memory.aliases_tag", tag=tag)
    if fields.foreshadow and tag not in (STORY, SETTING):
        raise InvalidInputError("error.memory.foreshadow_tag", tag=tag)
    if not isinstance(fields.keyword, str):
        raise InvalidInputError("error.memory.keyword", got=repr(fields.keyword))
    aspect = check_aspect(fields.aspect)
    if aspect and _aspect_tag(aspect) != tag:
        raise InvalidInputError("error.memory.aspect_tag", aspect=aspect, tag=tag)
    if fields.lineage and aspect != RULE:
        raise InvalidInputError("error.memory.lineage_rule")
    if fields.flag and fields.flag not in FLAGS:
        raise InvalidInputError("error.memory.flag", flag=fields.flag, choices=", ".join(FLAGS))
    if aspect == ADDRESS:
        extra = fields.extra or {}
        pair = {name_key(fields.character1 or ""), name_key(fields.character2 or "")}
        who = [name_key(str(extra.get(k, ""))) for k in (SPEAKER_KEY, LISTENER_KEY)]
        if not all(who) or set(who) != pair:
            raise InvalidInputError("error.memory.address_pair")
    return aspect


def _conflicts(ids: Sequence[str] | None) -> str:
    if not ids:
        return ""
    if isinstance(ids, str) or not all(isinstance(i, str) and i and ALIAS_SEP not in i
                                       for i in ids):
        raise InvalidInputError("error.memory.conflict_ids")
    return ALIAS_SEP.join(dict.fromkeys(ids))


def split_ids(value: object) -> list[str]:
    """The ids stored in a ``"|"``-joined metadata string (``conflicts``)."""
    return [i for i in str(value or "").split(ALIAS_SEP) if i]


def _aspect_tag(aspect: str) -> str:
    """The one tag an aspect applies to."""
    return {RULE: SETTING, ADDRESS: RELATION, PROFILE: CHARACTER}.get(aspect, CHARACTER)


def build_metadata(
    tag: str, fields: MemoryFields, *, turn: int, threshold: float, supersedes: str = ""
) -> Metadata:
    """Validate one memory's fields and return its complete metadata.

    Raises:
        InvalidInputError: unknown tag, missing or misplaced character fields, bad numbers.
    """
    check_tag(tag)
    strength = check_strength(fields.strength)
    name, c1, c2 = _people(tag, fields)
    aspect = _tag_fields(tag, fields)
    meta: Metadata = {
        **check_extra(fields.extra),
        "tag": tag,
        "character_name": name,
        "character1": c1,
        "character2": c2,
        "aliases": ALIAS_SEP.join(clean_aliases(fields.aliases, name)),
        "keyword": fields.keyword.strip(),
        "chapter": _check_count("chapter", fields.chapter),
        "beat": _check_count("beat", fields.beat),
        "created_turn": int(turn),
        "pinned": bool(fields.pinned),
        "forgotten": False,
        "foreshadow": bool(fields.foreshadow),
        "paid_off": "",
        "aspect": aspect,
        "conflicts": _conflicts(fields.conflicts),
        "batch": "",
        "supersedes": supersedes,
        "superseded_by": "",
        LINEAGE_KEY: str(fields.lineage or ""),
        "ended_turn": CURRENT,
        "struck": False,
        "flag": str(fields.flag or ""),
    }
    meta.update(decay_fields(meta, last_turn=turn, strength=strength, threshold=threshold))
    return meta


def and_where(*clauses: Mapping[str, Any] | None) -> Where | None:
    """AND the non-empty clauses: ``None`` for none, the clause itself for one, ``$and`` else."""
    kept: list[Where] = []
    for clause in clauses:
        if not clause:
            continue
        if len(clause) == 1 and "$and" in clause:
            kept.extend(dict(c) for c in clause["$and"])
        elif len(clause) > 1:  # {"a": 1, "b": 2} is an implicit AND Chroma rejects
            kept.extend({k: v} for k, v in clause.items())
        else:
            kept.append(dict(clause))
    if not kept:
        return None
    return kept[0] if len(kept) == 1 else {"$and": kept}


def state_where(
    turn: int, *, include_forgotten: bool = False, include_superseded: bool = False
) -> Where | None:
    """The filter for which memories to serve at ``turn``.

    Default: live and current (one ``live_until >= turn`` clause). With ``include_forgotten``
    decayed and forgotten memories are served too; with ``include_superseded`` old versions are.
    """
    if not include_forgotten and not include_superseded:
        return {"live_until": {"$gte": float(turn)}}
    if include_forgotten and include_superseded:
        return None
    if include_forgotten:
        return {"superseded_by": ""}
    # Live ones, and old versions that would still be live had nothing replaced them.
    live = {"live_until": {"$gte": float(turn)}}
    decayed_ok = {"$or": [{"pinned": True}, {"forget_at": {"$gte": float(turn)}}]}
    old = and_where({"superseded_by": {"$ne": ""}}, decayed_ok)
    return and_where({"$or": [live, old]}, {"forgotten": False})


@dataclass(frozen=True)
class MemoryHit:
    """One memory as read at a given turn (``memory_factor`` is computed, never stored)."""

    id: str
    text: str
    tag: str
    metadata: dict[str, Any]
    memory_factor: float
    strength: float
    pinned: bool
    time: int
    live: bool
    distance: float | None = None
    extra: dict[str, Any] = field(default_factory=dict, repr=False)
    vivid: bool = True
    """Whether forgetting would still offer it unasked (pinned, or within its lifetime): a
    current fact held against forgetting stays :attr:`live` (answerable) when it is no longer
    vivid."""

    @property
    def superseded(self) -> bool:
        """Whether a newer version of this fact exists."""
        return bool(self.metadata.get("superseded_by"))

    @property
    def forgotten(self) -> bool:
        """Whether it is not served at the turn it was read (decayed or forgotten)."""
        return not self.live and not self.superseded

    @property
    def character_name(self) -> str:
        return str(self.metadata.get("character_name", ""))

    @property
    def aliases(self) -> list[str]:
        return split_aliases(self.metadata.get("aliases"))

    @property
    def chapter(self) -> int:
        return int(self.metadata.get("chapter", 0))


def to_hit(
    mid: str, text: str | None, meta: Mapping[str, Any], turn: int, distance: float | None = None
) -> MemoryHit:
    """Build a :class:`MemoryHit` from stored metadata as seen at ``turn``."""
    strength = float(meta.get("memory_strength", 1.0))
    time = max(0, int(turn) - int(meta.get("last_turn", turn)))
    return MemoryHit(
        id=mid,
        text=text or "",
        tag=str(meta.get("tag", "")),
        metadata=dict(meta),
        memory_factor=memory_factor(time, strength),
        strength=strength,
        pinned=bool(meta.get("pinned", False)),
        time=time,
        live=float(meta.get("live_until", NEVER)) >= turn,
        distance=distance,
        vivid=bool(meta.get("pinned")) or float(meta.get("forget_at", NEVER)) >= turn,
    )


def recency_key(hit: MemoryHit) -> tuple[int, int, int, str]:
    """Sort key: later chapter, beat and creation turn count as more recent."""
    m = hit.metadata
    return (int(m.get("chapter", 0)), int(m.get("beat", 0)), int(m.get("created_turn", 0)), hit.id)


def top_k_cosine(
    query: Sequence[float], vectors: Sequence[Sequence[float]] | Any, k: int
) -> list[tuple[int, float]]:
    """Indices and cosine distances (``1 - cos``) of the ``k`` vectors nearest to ``query``.

    Ties keep the input order. Zero vectors are as far as possible (distance 1).
    """
    if k <= 0 or vectors is None or len(vectors) == 0:
        return []
    mat = np.asarray(vectors, dtype=np.float64)
    q = np.asarray(query, dtype=np.float64)
    norms = np.linalg.norm(mat, axis=1) * (np.linalg.norm(q) or 1.0)
    sims = np.divide(mat @ q, norms, out=np.zeros(len(mat)), where=norms > 0)
    dist = 1.0 - sims
    order = np.argsort(dist, kind="stable")[:k]
    return [(int(i), float(dist[i])) for i in order]
