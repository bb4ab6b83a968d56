"""Voice facts: how each character speaks, and how one speaks to another (pure).

Two kinds of memory hold them, superseded like relations (a change is a new version, the old
one stays as history):

* a **voice card** — a Character memory of aspect ``voice`` (one current per character): the
  register, tics, catchphrases and dialect;
* a **pair voice** — a CharacterRelation memory of aspect ``address``, directional (speaker to
  listener, one current per direction): the speech level (``formal`` / ``polite`` / ``plain``)
  and the form of address (선배, 회장님, "Mira", sir).

The structured values travel in the memory's ``extra`` metadata (keys below); the text is what
the writer and the models read, rendered from voice.toml in the project's language.
"""

from __future__ import annotations

import functools
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aizac.memory.facts import ADDRESS, LISTENER_KEY, SPEAKER_KEY, VOICE
from aizac.text import t
from aizac.text.joining import bare, joined
from aizac.text.particles import attach

REGISTER_KEY = "v_register"
TICS_KEY = "v_tics"
CATCHPHRASES_KEY = "v_catchphrases"
DIALECT_KEY = "v_dialect"
LEVEL_KEY = "v_level"
ADDRESS_KEY = "v_address"
SEP = "|"
_DATA = Path(__file__).with_name("voice.toml")

__all__ = [
    "ADDRESS",
    "VOICE",
    "PairVoice",
    "VoiceCard",
    "card_of",
    "card_text",
    "level_name",
    "pair_of",
    "pair_text",
    "phrases",
]


@functools.cache
def phrases(language: str) -> Mapping[str, Any]:
    """The wording of voice facts and dialogue notes in ``language`` (English if unknown)."""
    data = tomllib.loads(_DATA.read_text(encoding="utf-8"))
    return data.get(language) or data["en"]


def _split(value: object) -> tuple[str, ...]:
    return tuple(p for p in str(value or "").split(SEP) if p.strip())


def _join(values: Sequence[str]) -> str:
    return SEP.join(" ".join(v.replace(SEP, " ").split()) for v in values if v.strip())


@dataclass(frozen=True)
class VoiceCard:
    """How one character speaks."""

    name: str
    register: str = ""
    tics: tuple[str, ...] = ()
    catchphrases: tuple[str, ...] = ()
    dialect: str = ""
    memory_id: str = ""
    chapter: int = 0

    @property
    def empty(self) -> bool:
        return not (self.register or self.tics or self.catchphrases or self.dialect)

    def extra(self) -> dict[str, str]:
        """The memory's ``extra`` metadata."""
        return {REGISTER_KEY: self.register, TICS_KEY: _join(self.tics),
                CATCHPHRASES_KEY: _join(self.catchphrases), DIALECT_KEY: self.dialect}

    def merged(self, newer: VoiceCard) -> VoiceCard:
        """This card updated by ``newer``: its non-empty fields win, phrases accumulate
        (newest last, at most four)."""
        def union(a: Sequence[str], b: Sequence[str]) -> tuple[str, ...]:
            return tuple(dict.fromkeys([*a, *b]))[-4:]

        return VoiceCard(
            self.name, newer.register or self.register, union(self.tics, newer.tics),
            union(self.catchphrases, newer.catchphrases), newer.dialect or self.dialect,
            self.memory_id, self.chapter,
        )


@dataclass(frozen=True)
class PairVoice:
    """How ``speaker`` speaks to ``listener``: the level and the form of address.

    ``older`` holds the superseded versions, oldest first (the history of the pair)."""

    speaker: str
    listener: str
    level: str = ""
    address: str = ""
    memory_id: str = ""
    chapter: int = 0
    older: tuple[PairVoice, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.level or self.address)

    def extra(self) -> dict[str, str]:
        return {SPEAKER_KEY: self.speaker, LISTENER_KEY: self.listener,
                LEVEL_KEY: self.level, ADDRESS_KEY: self.address}

    def merged(self, newer: PairVoice) -> PairVoice:
        """This pair updated by what ``newer`` observed (an empty field keeps this one's)."""
        return PairVoice(self.speaker, self.listener, newer.level or self.level,
                         newer.address or self.address, self.memory_id, self.chapter)

    def same_voice(self, other: PairVoice) -> bool:
        return (self.level, self.address) == (other.level, other.address)


LEVEL_KEYS: dict[str, str] = {"formal": "dialogue.level.formal",
                              "polite": "dialogue.level.polite",
                              "plain": "dialogue.level.plain"}
"""A speech level's catalogue key."""


def level_name(level: str, language: str) -> str:
    """A speech level as the writer reads it (polite speech, casual speech ...)."""
    if level not in LEVEL_KEYS:
        return level
    return t(LEVEL_KEYS[level], language)


def card_text(card: VoiceCard, language: str) -> str:
    """The memory text of a voice card."""
    p = phrases(language)
    parts = []
    if bare(card.register):
        parts.append(p["register"].format(value=bare(card.register)))
    if bare(card.dialect):
        parts.append(p["dialect"].format(value=bare(card.dialect)))
    if joined(card.tics, ", "):
        parts.append(p["tics"].format(value=joined(card.tics, ", ")))
    said = [bare(x) for x in card.catchphrases if bare(x)]
    if said:
        parts.append(p["catchphrases"].format(value=", ".join(f"'{c}'" for c in said)))
    return str(p["card"].format(name=bare(card.name), parts=p["separator"].join(parts)))


def pair_text(pair: PairVoice, language: str) -> str:
    """The memory text of a pair voice ("민호는 수아에게 존댓말(해요체), 호칭 '선배'")."""
    p = phrases(language)
    parts = []
    if pair.level:
        parts.append(p["pair_level"].format(value=level_name(pair.level, language)))
    if bare(pair.address):
        parts.append(p["pair_address"].format(value=bare(pair.address)))
    speaker, listener = bare(pair.speaker), bare(pair.listener)
    topic = str(p.get("pair_particle", ""))
    particle = attach(speaker, topic)[len(speaker):] if topic else ""
    return str(p["pair"].format(speaker=speaker, particle=particle,
                                listener=listener, parts=p["separator"].join(parts)))


def card_of(hit: Any) -> VoiceCard:
    """A voice-card memory (a hit or a candidate: ``id``, ``metadata``) as a card."""
    meta: Mapping[str, Any] = getattr(hit, "metadata", {}) or {}
    return VoiceCard(
        name=str(meta.get("character_name") or ""),
        register=str(meta.get(REGISTER_KEY) or ""),
        tics=_split(meta.get(TICS_KEY)),
        catchphrases=_split(meta.get(CATCHPHRASES_KEY)),
        dialect=str(meta.get(DIALECT_KEY) or ""),
        memory_id=str(getattr(hit, "id", "")),
        chapter=int(meta.get("chapter") or 0),
    )


def pair_of(hit: Any, older: Sequence[Any] = ()) -> PairVoice:
    """A pair-voice memory as a :class:`PairVoice` (``older``: its superseded versions)."""
    meta: Mapping[str, Any] = getattr(hit, "metadata", {}) or {}
    return PairVoice(
        speaker=str(meta.get(SPEAKER_KEY) or ""),
        listener=str(meta.get(LISTENER_KEY) or ""),
        level=str(meta.get(LEVEL_KEY) or ""),
        address=str(meta.get(ADDRESS_KEY) or ""),
        memory_id=str(getattr(hit, "id", "")),
        chapter=int(meta.get("chapter") or 0),
        older=tuple(pair_of(h) for h in older),
    )
