"""Voice facts into memory: staged with a beat's candidates, or set by the writer.

:func:`stage_voices` is called by the writer's extraction staging (:func:`aizac.writer.
extraction.stage`) for every accepted beat: the pair voices the beat's lines show (and the
extractor reported) and the voice cards the extractor reported go through the memory's one
rule (``batch.note``): a restated voice reinforces the memory that holds it, a changed one
supersedes it (the old version stays as history). :func:`set_voice` / :func:`set_card` are the
writer's own edits (the CLI and the web panel), committed at once.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any, Protocol, TypedDict, Unpack

from aizac.dialogue.canon import VoiceMemory, read_voices
from aizac.dialogue.cards import PairVoice, VoiceCard, card_text, pair_text
from aizac.dialogue.infer import merge_cards, merge_pairs, observe
from aizac.dialogue.lines import beat_speakers, spoken_lines
from aizac.dialogue.speech import LEVELS, language_of
from aizac.errors import InvalidInputError
from aizac.memory.facts import ADDRESS, VOICE, name_key

__all__ = ["NoteBatch", "Place", "beat_language", "note_card", "note_pair", "set_card", "set_voice",
           "stage_voices"]


class Place(TypedDict, total=False):
    """Where in the story a fact was stated (memory fields ``chapter`` and ``beat``)."""

    chapter: int
    beat: int


class NoteBatch(Protocol):
    """A batch the voice facts are staged in (:class:`aizac.memory.staging.CandidateBatch`)."""

    def note(self, text: str, tag: str, *, outdates: Iterable[str] = (),
             **fields: object) -> str | None: ...


def beat_language(beat: Any, default: str = "en") -> str:
    """The language a beat's lines are written in (for a caller that does not know it)."""
    text = " ".join([*(str(d.line) for d in beat.dialogue), *beat.events, beat.location])
    return language_of(text, default)


def note_pair(batch: NoteBatch, pair: PairVoice, language: str,
              **where: Unpack[Place]) -> str | None:
    """Stage one pair voice (``where``: ``chapter``, ``beat``)."""
    return batch.note(
        pair_text(pair, language), "CharacterRelation", character1=pair.speaker,
        character2=pair.listener, aspect=ADDRESS, extra=pair.extra(), **where,
    )


def note_card(batch: NoteBatch, card: VoiceCard, language: str,
              **where: Unpack[Place]) -> str | None:
    """Stage one voice card."""
    return batch.note(
        card_text(card, language), "Character", character_name=card.name, aspect=VOICE,
        extra=card.extra(), **where,
    )


def stage_voices(
    memory: VoiceMemory,
    batch: NoteBatch,
    beat: Any,
    *,
    language: str | None = None,
    reported_pairs: Iterable[PairVoice] = (),
    reported_cards: Iterable[VoiceCard] = (),
    where: Place | None = None,
    hold: Collection[str] = (),
) -> list[str]:
    """Stage the voice facts of an accepted ``beat``; the ids of the new memories.

    ``reported_pairs`` / ``reported_cards``: what the extractor said (its references
    resolved to canonical names); the beat's own lines win over them for a pair they decide.
    ``hold``: pair-voice memories to keep as they are (see :func:`merge_pairs`)."""
    lang = language or beat_language(beat)
    place: Place = where or {"chapter": beat.episode, "beat": beat.index}
    canon = read_voices(memory, [*beat.characters, *beat_speakers(beat)])
    lines = spoken_lines([beat], None, language=lang, cast=canon.cast)
    pairs = merge_pairs(canon, [*reported_pairs, *observe(lines, canon, lang)], lang, hold)
    cards = merge_cards(canon, list(reported_cards))
    ids = [note_pair(batch, p, lang, **place) for p in pairs]
    ids += [note_card(batch, c, lang, **place) for c in cards]
    return [str(i) for i in ids if i is not None]


def _check_names(memory: Any, *names: str) -> list[str]:
    cast = memory.characters()
    out = []
    for name in names:
        canonical = memory.resolve_name(name) if name.strip() else ""
        if not canonical or canonical not in cast:
            raise InvalidInputError(
                "error.dialogue.unknown_character", name=name,
            )
        out.append(canonical)
    if len(out) == 2 and name_key(out[0]) == name_key(out[1]):
        raise InvalidInputError("error.dialogue.same_character", name=out[0])
    return out


def set_voice(memory: Any, speaker: str, listener: str, *, level: str = "",
              address: str = "", language: str, chapter: int = 0) -> list[str]:
    """The writer's own word on how ``speaker`` speaks to ``listener`` (a new version of the
    pair voice, committed now; empty fields keep the stored ones)."""
    if level and level not in LEVELS:
        raise InvalidInputError("error.dialogue.level", level=level, levels=", ".join(LEVELS))
    speaker, listener = _check_names(memory, speaker, listener)
    canon = read_voices(memory, [speaker, listener])
    stored = canon.pair(speaker, listener) or PairVoice(speaker, listener)
    pair = PairVoice(speaker, listener, level or stored.level, address.strip() or stored.address)
    if pair.empty or pair.same_voice(stored):
        return []
    with memory.stage() as batch:
        found = note_pair(batch, pair, language, chapter=chapter)
    return [str(found)] if found else []


def set_card(memory: Any, name: str, *, register: str = "", tics: Iterable[str] = (),
             catchphrases: Iterable[str] = (), dialect: str = "", language: str,
             chapter: int = 0) -> list[str]:
    """The writer's own voice card for ``name`` (replaces the stored one, committed now)."""
    (name,) = _check_names(memory, name)
    card = VoiceCard(name, register.strip(), tuple(t.strip() for t in tics if t.strip()),
                     tuple(c.strip() for c in catchphrases if c.strip()), dialect.strip())
    if card.empty:
        return []
    with memory.stage() as batch:
        found = note_card(batch, card, language, chapter=chapter)
    return [str(found)] if found else []
