"""What a draft claims, as plain data (pure): who appears where, and the facts it states.

Claims come from two places: the episode's planned beats (characters in the scene, dialogue
speakers, the place, the time — a flashback claims nothing about the present) and the draft's
candidate memories (what the extraction of the prose says changed). Anything with ``tag``,
``text`` and ``metadata`` attributes is a candidate here (staged candidates, memory hits).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from aizac.continuity.text import FLASHBACK, has_any
from aizac.memory.facts import OTHER, RULE, fact_slot


class DialogueLike(Protocol):
    speaker: str
    line: str


class BeatLike(Protocol):
    """The fields of a planned beat the checks read (``NovelBeat`` has them all)."""

    index: int
    location: str
    time: str
    characters: list[str]
    events: list[str]
    dialogue: list[Any]
    sets_up: list[str]
    pays_off: list[str]


@dataclass(frozen=True)
class Appearance:
    """A character present in a scene: speaking (a dialogue line) or acting (in the cast)."""

    name: str
    beat: int
    speaking: bool
    location: str
    flashback: bool
    quote: str


@dataclass(frozen=True)
class FactClaim:
    """A fact the draft states (a candidate memory, or a beat's event line)."""

    tag: str
    text: str
    beat: int | None
    name: str = ""
    pair: tuple[str, str] = ("", "")
    aspect: str = ""
    keyword: str = ""
    slot: str = ""
    id: str = ""


def appearances(beats: Sequence[BeatLike]) -> list[Appearance]:
    """Every character's presence in the episode's beats, in beat order (speakers first)."""
    out: list[Appearance] = []
    for beat in sorted(beats, key=lambda b: b.index):
        flashback = has_any(f"{beat.time} {beat.location}", FLASHBACK)
        spoken: set[str] = set()
        for line in beat.dialogue:
            speaker = str(getattr(line, "speaker", "")).strip()
            if speaker and speaker not in spoken:
                spoken.add(speaker)
                quote = f'{speaker}: "{getattr(line, "line", "")}"'
                out.append(Appearance(speaker, beat.index, True, beat.location, flashback, quote))
        for name in beat.characters:
            if name.strip() and name.strip() not in spoken:
                out.append(Appearance(name.strip(), beat.index, False, beat.location, flashback,
                                      name.strip()))
    return out


def event_claims(beats: Sequence[BeatLike]) -> list[FactClaim]:
    """The beats' event lines as Story claims (what the plan says happens)."""
    return [
        FactClaim("Story", event, beat.index)
        for beat in beats
        for event in beat.events
        if event.strip() and not has_any(beat.time, FLASHBACK)
    ]


def candidate_list(candidates: Any) -> list[Any]:
    """The candidates of a batch (``.candidates``) or an iterable of them; ``None`` -> []."""
    if candidates is None:
        return []
    found = getattr(candidates, "candidates", candidates)
    return list(found)


def fact_claims(candidates: Iterable[Any]) -> list[FactClaim]:
    """The draft's candidate memories as claims, in their order."""
    out: list[FactClaim] = []
    for cand in candidates:
        meta = dict(getattr(cand, "metadata", {}) or {})
        beat = int(meta.get("beat") or 0) or None
        out.append(FactClaim(
            tag=str(getattr(cand, "tag", meta.get("tag", ""))),
            text=str(getattr(cand, "text", "")),
            beat=beat,
            name=str(meta.get("character_name") or ""),
            pair=(str(meta.get("character1") or ""), str(meta.get("character2") or "")),
            aspect=str(meta.get("aspect") or ""),
            keyword=str(meta.get("keyword") or ""),
            slot=fact_slot({**meta, "tag": getattr(cand, "tag", meta.get("tag"))}),
            id=str(getattr(cand, "id", "")),
        ))
    return out


def _listed(found: Mapping[str, Any], tag: str) -> list[Mapping[str, Any]]:
    """One tag's facts of a dumped extraction (a list; ``{"facts": [...]}`` in a run
    checkpointed before references)."""
    value = found.get(tag) or []
    return list(value.get("facts", []) if isinstance(value, Mapping) else value)


def _extraction_one(beat: int | None, found: Mapping[str, Any]) -> list[FactClaim]:
    out: list[FactClaim] = []
    for f in _listed(found, "story"):
        out.append(FactClaim("Story", str(f.get("text", "")), beat,
                             keyword=str(f.get("keyword") or "")))
    for f in _listed(found, "characters"):
        aspect = str(f.get("aspect") or "")
        aspect = "" if aspect == OTHER else aspect
        name = str(f.get("name") or f.get("character_name") or "")
        keyword = str(f.get("feature") or f.get("keyword") or "")
        meta = {"tag": "Character", "character_name": name, "aspect": aspect,
                "keyword": keyword}
        out.append(FactClaim("Character", str(f.get("text", "")), beat, name=name,
                             aspect=aspect, keyword=keyword, slot=fact_slot(meta)))
    for f in _listed(found, "relations"):
        pair = (str(f.get("a") or f.get("character1") or ""),
                str(f.get("b") or f.get("character2") or ""))
        meta = {"tag": "CharacterRelation", "character1": pair[0], "character2": pair[1]}
        out.append(FactClaim("CharacterRelation", str(f.get("text", "")), beat, pair=pair,
                             keyword=str(f.get("keyword") or ""), slot=fact_slot(meta)))
    for f in _listed(found, "settings"):
        keyword, rule = str(f.get("keyword") or ""), bool(f.get("rule"))
        # a revision continues its rule's lineage; a new rule has no slot yet
        meta = {"tag": "NovelSetting", "keyword": keyword, "aspect": RULE if rule else "",
                "lineage": str(f.get("lineage") or "")}
        slot = fact_slot(meta) if meta["lineage"] or "lineage" not in f else ""
        out.append(FactClaim("NovelSetting", str(f.get("text", "")), beat, keyword=keyword,
                             aspect=RULE if rule else "", slot=slot))
    return [c for c in out if c.text.strip()]


def extraction_claims(found: Mapping[Any, Mapping[str, Any]]) -> list[FactClaim]:
    """Claims from extraction results by beat index (``{"1": {"story": [...], "characters":
    [...], "relations": [...], "settings": [...]}}``: what each beat's reply means for the
    store, as :meth:`aizac.writer.extraction.Extracted.dump` writes it), in beat order; how a
    workflow holds a draft's candidates before it stages them."""
    out: list[FactClaim] = []
    for key in sorted(found, key=lambda k: int(k)):
        out += _extraction_one(int(key) or None, found[key])
    return out


def claims_of(candidates: Any) -> list[FactClaim]:
    """Claims from any form of a draft's candidates: a batch, a sequence of candidates, or
    extraction results by beat index (see :func:`extraction_claims`), or claims already."""
    if isinstance(candidates, Mapping):
        return extraction_claims(candidates)
    items = candidate_list(candidates)
    if all(isinstance(c, FactClaim) for c in items):
        return list(items)
    return fact_claims(items)


def draft_names(appear: Iterable[Appearance], claims: Iterable[FactClaim]) -> list[str]:
    """Every character name the draft uses, first use first, each once."""
    names: list[str] = []
    for a in appear:
        names.append(a.name)
    for c in claims:
        names.extend(n for n in (c.name, *c.pair) if n)
    return list(dict.fromkeys(n for n in names if n.strip()))


__all__ = [
    "Appearance",
    "BeatLike",
    "FactClaim",
    "appearances",
    "candidate_list",
    "claims_of",
    "draft_names",
    "event_claims",
    "extraction_claims",
    "fact_claims",
]
