"""The voices of a scene as plain data, and the thin adapter that reads them from the memory.

:func:`read_voices` asks the memory's keyed lookups only (slot holders, no similarity scan)
about the characters a scene names: each one's voice card, how each speaks to each other one
(both directions, with the superseded versions as history), whether they are dead, and the cast
with aliases. :mod:`aizac.dialogue.checks` works on the :class:`VoiceCanon` it returns.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from aizac.continuity.canon import Canon
from aizac.dialogue.cards import PairVoice, VoiceCard, card_of, pair_of
from aizac.errors import AizacError
from aizac.memory.facts import ADDRESS, LISTENER_KEY, SPEAKER_KEY, VOICE, fact_slot, name_key

if TYPE_CHECKING:
    from aizac.memory.records import MemoryHit

__all__ = ["Death", "VoiceCanon", "VoiceMemory", "pair_meta", "read_voices", "voice_meta"]


class SlotReads(Protocol):
    """The keyed reads :func:`read_voices` asks (:class:`aizac.memory.lookups.Lookups`)."""

    def slot_holders(self, meta: Mapping[str, Any]) -> list[MemoryHit]: ...
    def slots_held(self, metas: Iterable[Mapping[str, Any]]) -> dict[str, list[MemoryHit]]: ...


class VoiceMemory(Protocol):
    """What :func:`read_voices` reads of a memory (:class:`aizac.memory.WriterMemory`)."""

    @property
    def lookups(self) -> SlotReads: ...
    def characters(self) -> Mapping[str, Sequence[str]]: ...
    def history(self, memory_id: str) -> list[MemoryHit]: ...


@dataclass(frozen=True)
class Death:
    """A character canon holds dead: the memory that says so."""

    memory_id: str
    text: str


@dataclass(frozen=True)
class VoiceCanon:
    """What the dialogue checks compare lines with.

    Attributes:
        cards: character key -> voice card.
        pairs: (speaker key, listener key) -> how the speaker speaks to the listener.
        cast: canonical name -> aliases.
        dead: character key -> the memory that says they died.
    """

    cards: Mapping[str, VoiceCard] = field(default_factory=dict)
    pairs: Mapping[tuple[str, str], PairVoice] = field(default_factory=dict)
    cast: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    dead: Mapping[str, Death] = field(default_factory=dict)

    def canonical(self, name: str) -> str:
        """The canonical name of ``name`` or one of its aliases (else ``name``): the rule of
        the continuity canon, which holds the same cast."""
        return Canon(cast=self.cast).canonical(name)

    def key(self, name: str) -> str:
        return name_key(self.canonical(name))

    def card(self, name: str) -> VoiceCard | None:
        return self.cards.get(self.key(name))

    def pair(self, speaker: str, listener: str) -> PairVoice | None:
        return self.pairs.get((self.key(speaker), self.key(listener)))

    def death(self, name: str) -> Death | None:
        return self.dead.get(self.key(name))


def voice_meta(name: str) -> dict[str, Any]:
    """The slot metadata of ``name``'s voice card."""
    return {"tag": "Character", "character_name": name, "aspect": VOICE}


def pair_meta(speaker: str, listener: str) -> dict[str, Any]:
    """The slot metadata of how ``speaker`` speaks to ``listener``."""
    return {"tag": "CharacterRelation", "character1": speaker, "character2": listener,
            "aspect": ADDRESS, SPEAKER_KEY: speaker, LISTENER_KEY: listener}


def _slot(meta: Mapping[str, Any]) -> str:
    try:
        return fact_slot(meta)
    except AizacError:
        return ""


def read_voices(memory: VoiceMemory, names: Iterable[str]) -> VoiceCanon:
    """The voice canon of the characters ``names`` (aliases resolved; keyed reads only):
    their deaths and pair voices, and the voice cards of the whole cast (a catchphrase is
    someone's wherever its owner is)."""
    from aizac.continuity.text import is_dead

    cast = {k: tuple(v) for k, v in memory.characters().items()}
    canon = VoiceCanon(cast=cast)
    people = list(dict.fromkeys(canon.canonical(n) for n in names if name_key(n)))
    # Every slot the canon needs is read at once: one index read and one Chroma read per
    # scene, not one of each per card, state and pair (the cast grows with the novel).
    voiced = {name: voice_meta(name) for name in dict.fromkeys([*people, *cast])}
    states = {(name, aspect): {"tag": "Character", "character_name": name, "aspect": aspect}
              for name in people for aspect in ("condition", "status")}
    spoken = {pair: meta for pair in itertools.permutations(people, 2)
              if _slot(meta := pair_meta(*pair))}
    held = memory.lookups.slots_held([*voiced.values(), *states.values(), *spoken.values()])

    def current(meta: Mapping[str, Any]) -> MemoryHit | None:
        found = held.get(_slot(meta))
        return found[0] if found else None

    cards: dict[str, VoiceCard] = {}
    for name, meta in voiced.items():
        hit = current(meta)
        if hit is not None:
            cards[name_key(name)] = card_of(hit)
    dead: dict[str, Death] = {}
    for name in people:
        for aspect in ("condition", "status"):
            state = current(states[(name, aspect)])
            if state is not None and is_dead(state.text):
                dead[name_key(name)] = Death(state.id, state.text)
                break
    pairs: dict[tuple[str, str], PairVoice] = {}
    for (speaker, listener), meta in spoken.items():
        hit = current(meta)
        if hit is None:
            continue
        chain = memory.history(hit.id)
        older = [h for h in chain if h.id != hit.id and h.superseded]
        pairs[(name_key(speaker), name_key(listener))] = pair_of(hit, older)
    return VoiceCanon(cards=cards, pairs=pairs, cast=cast, dead=dead)
