"""Voice facts from accepted dialogue (pure): what the lines show about each pair.

A line whose listener is certain (see :func:`aizac.dialogue.checks.listener_of`) shows how its
speaker speaks to them: the level its endings decide, and the form it calls them by. Over a
beat, the majority level and the last form of each direction are the *observation*; merged over
what canon holds (and what the extractor reported), it becomes a new version of the pair's
voice only when it changes something — a level that turns from honorific to plain or back, a
new form of address. Formal and polite are one honorific level here: a junior who mixes
-습니다 and -요 has not changed how they speak to a senior.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from aizac.dialogue.canon import VoiceCanon
from aizac.dialogue.cards import PairVoice, VoiceCard
from aizac.dialogue.checks import listener_of
from aizac.dialogue.lines import SpokenLine
from aizac.dialogue.speech import HONORIFIC, level_of, parse_address, vocatives
from aizac.memory.facts import name_key

__all__ = ["merge_cards", "merge_pairs", "observe"]


def observe(lines: Sequence[SpokenLine], canon: VoiceCanon, language: str) -> list[PairVoice]:
    """One observation per (speaker, listener) the lines decide something about, in order."""
    levels: dict[tuple[str, str], list[str]] = {}
    addresses: dict[tuple[str, str], str] = {}
    names = [n for c, a in canon.cast.items() for n in (c, *a)]
    cast = {k: tuple(v) for k, v in canon.cast.items()}
    order: list[tuple[str, str]] = []
    for line in lines:
        if line.flashback or not line.speaker.strip():
            continue
        calls = vocatives(line.text, language, cast)
        listener = listener_of(line, canon, language, calls)
        if not listener:
            continue
        speaker = canon.canonical(line.speaker)
        key = (speaker, listener)
        reading = level_of(line.text, language, names)
        if reading is not None:
            levels.setdefault(key, []).append(reading.level)
        for call in calls:
            if call.kind == "title" or canon.key(call.name) == name_key(listener):
                addresses[key] = call.surface
        if (key in levels or key in addresses) and key not in order:
            order.append(key)
    out: list[PairVoice] = []
    for key in order:
        found = levels.get(key, [])
        honorific = sum(1 for lv in found if lv in HONORIFIC)
        level = ""
        if honorific * 2 > len(found):
            level = "formal" if found.count("formal") >= found.count("polite") else "polite"
        elif honorific * 2 < len(found):
            level = "plain"
        out.append(PairVoice(key[0], key[1], level, addresses.get(key, "")))
    return out


def _same_level(a: str, b: str) -> bool:
    return (a in HONORIFIC) == (b in HONORIFIC)


def merge_pairs(canon: VoiceCanon, observed: Iterable[PairVoice], language: str,
                hold: Collection[str] = ()) -> list[PairVoice]:
    """The pair voices that change canon: each observation over the stored voice (a level of
    the same honorific kind, a form of the same key keep the stored wording). A stored voice
    whose memory id is in ``hold`` (a check flagged a line against it and no writer said the
    change is meant) is left as it is."""
    out: dict[tuple[str, str], PairVoice] = {}
    for seen in observed:
        speaker, listener = canon.canonical(seen.speaker), canon.canonical(seen.listener)
        if not name_key(speaker) or name_key(speaker) == name_key(listener):
            continue
        key = (name_key(speaker), name_key(listener))
        held = canon.pair(speaker, listener)
        if held is not None and held.memory_id in hold:
            continue
        stored = out.get(key) or held
        base = stored or PairVoice(speaker, listener)
        level = base.level
        if seen.level and (not level or not _same_level(level, seen.level)):
            level = seen.level
        address = base.address
        if seen.address:
            aliases = canon.cast.get(listener, ())
            new = parse_address(seen.address, language, listener, aliases)
            old = parse_address(address, language, listener, aliases) if address else None
            if new is not None and (old is None or old.key != new.key):
                address = seen.address
        merged = PairVoice(speaker, listener, level, address, base.memory_id, base.chapter)
        if stored is None or not merged.same_voice(stored):
            out[key] = merged
    return [p for p in out.values() if not p.empty]


def merge_cards(canon: VoiceCanon, reported: Iterable[VoiceCard]) -> list[VoiceCard]:
    """The voice cards that change canon: what the extractor reported over the stored card."""
    out: dict[str, VoiceCard] = {}
    for card in reported:
        name = canon.canonical(card.name)
        if not name_key(name) or card.empty:
            continue
        stored = out.get(name_key(name)) or canon.card(name) or VoiceCard(name)
        merged = stored.merged(card)
        if (merged.register, merged.tics, merged.catchphrases, merged.dialect) != (
                stored.register, stored.tics, stored.catchphrases, stored.dialect):
            out[name_key(name)] = VoiceCard(name, merged.register, merged.tics,
                                            merged.catchphrases, merged.dialect)
    return list(out.values())
