"""The deterministic dialogue checks (pure functions over spoken lines and the voice canon).

For every line of a scene:

* ``speaker_absent`` — the speaker is not among the beat's characters;
* ``dead_speaker`` — canon holds the speaker dead (flashbacks and dreams aside);
* ``speech_level`` — the line's speech level (Korean endings -요/-습니다 vs -어/-야/-냐; English
  and Chinese markers) is honorific where the pair's stored level is plain, or the other way;
* ``address_form`` — the line calls the listener by another form than the stored one
  (형 for 회장님, a bare name for 선배);
* ``wrong_speaker`` — the line calls the listener the way *another* character in the scene
  does, not the way its speaker does: it was given to the wrong speaker;
* ``catchphrase`` — the line uses another character's catchphrase (a warning).

Who a line is said to: the dialogue plan's ``to``, a name the line calls, the one other
character of a two-person scene, or the character the speaker calls by the title the line
uses; a line whose listener is none of these is only checked for speaker and catchphrase.
Each finding cites the memory it rests on (the pair voice, the voice card, the death).
"""

from __future__ import annotations

from collections.abc import Sequence

from aizac.continuity.report import ContinuityReport, Finding, Severity
from aizac.dialogue.canon import VoiceCanon
from aizac.dialogue.cards import LEVEL_KEYS, PairVoice
from aizac.dialogue.lines import SpokenLine
from aizac.dialogue.speech import HONORIFIC, Address, level_of, parse_address, vocatives
from aizac.memory.facts import name_key, text_key
from aizac.text import Text, Verbatim, render

KINDS: tuple[str, ...] = (
    "speaker_absent", "dead_speaker", "speech_level", "address_form", "wrong_speaker",
    "catchphrase",
)
VOICE_FINDINGS: frozenset[str] = frozenset({"speech_level", "address_form", "wrong_speaker"})
"""Findings against a pair's stored voice (their ``memory_id`` is the pair voice)."""
MIN_CATCHPHRASE_CHARS = 3
"""A catchphrase shorter than this (normalised) is too common to attribute a line by."""

__all__ = ["KINDS", "VOICE_FINDINGS", "check_lines", "dialogue_report", "listener_of"]


def _msg(kind: str, language: str, **params: object) -> str:
    values = {k: (Verbatim(v) if isinstance(v, str) else v) for k, v in params.items()}
    return render(Text(FINDING_KEYS[kind], values), language)


FINDING_KEYS: dict[str, str] = {
    "speaker_absent": "dialogue.finding.speaker_absent",
    "dead_speaker": "dialogue.finding.dead_speaker",
    "speech_level": "dialogue.finding.speech_level",
    "address_form": "dialogue.finding.address_form",
    "wrong_speaker": "dialogue.finding.wrong_speaker",
    "catchphrase": "dialogue.finding.catchphrase",
}
"""A finding kind's catalogue key."""


def _level(level: str) -> Text:
    return Text(LEVEL_KEYS[level])


def _present(line: SpokenLine, canon: VoiceCanon) -> list[str]:
    """The scene's characters (canonical names) other than the speaker."""
    me = canon.key(line.speaker)
    out = [canon.canonical(n) for n in line.scene]
    return [n for n in dict.fromkeys(out) if name_key(n) != me]


def _stored_address(pair: PairVoice | None, canon: VoiceCanon, language: str) -> Address | None:
    if pair is None or not pair.address:
        return None
    listener = canon.canonical(pair.listener)
    return parse_address(pair.address, language, listener, canon.cast.get(listener, ()))


def listener_of(line: SpokenLine, canon: VoiceCanon, language: str,
                calls: Sequence[Address] | None = None) -> str:
    """Who ``line`` is said to (canonical name), or ``""`` (see the module docstring)."""
    others = _present(line, canon)
    keys = {name_key(o): o for o in others}
    if line.to and canon.key(line.to) in keys:
        return keys[canon.key(line.to)]
    calls = list(calls if calls is not None else vocatives(line.text, language, _cast(canon)))
    for call in calls:
        if call.kind == "name" and call.name and canon.key(call.name) in keys:
            return keys[canon.key(call.name)]
    if len(others) == 1:
        return others[0]
    for call in calls:
        for other in others:
            stored = _stored_address(canon.pair(line.speaker, other), canon, language)
            if stored is not None and stored.key == call.key:
                return other
    return ""


def _cast(canon: VoiceCanon) -> dict[str, tuple[str, ...]]:
    return {k: tuple(v) for k, v in canon.cast.items()}


def _who_calls(call: Address, listener: str, line: SpokenLine, canon: VoiceCanon,
               language: str) -> PairVoice | None:
    """Another character of the scene who calls ``listener`` what the line calls them."""
    for other in _present(line, canon):
        if name_key(other) == name_key(listener):
            continue
        pair = canon.pair(other, listener)
        stored = _stored_address(pair, canon, language)
        if stored is not None and stored.key == call.key:
            return pair
    return None


def _wrong_speaker_listener(line: SpokenLine, calls: Sequence[Address], canon: VoiceCanon,
                            language: str) -> tuple[str, Address, PairVoice] | None:
    """A listener the line's title can only mean through another speaker's habit."""
    for call in calls:
        if call.kind != "title":
            continue
        for listener in _present(line, canon):
            owner = _who_calls(call, listener, line, canon, language)
            mine = _stored_address(canon.pair(line.speaker, listener), canon, language)
            if owner is not None and mine is not None and mine.key != call.key:
                return listener, call, owner
    return None


def _voice_findings(line: SpokenLine, canon: VoiceCanon, language: str) -> list[Finding]:
    calls = vocatives(line.text, language, _cast(canon))
    listener = listener_of(line, canon, language, calls)
    speaker = canon.canonical(line.speaker)
    if not listener:
        wrong = _wrong_speaker_listener(line, calls, canon, language)
        if wrong is None:
            return []
        found_listener, call, owner = wrong
        mine = canon.pair(speaker, found_listener)
        return [_wrong(line, speaker, found_listener, call, owner, mine, language)]
    pair = canon.pair(speaker, listener)
    if pair is None:
        return []
    out: list[Finding] = []
    stored = _stored_address(pair, canon, language)
    to_listener = [c for c in calls if c.kind == "title" or canon.key(c.name) == name_key(listener)]
    if stored is not None and any(c.key == stored.key for c in to_listener):
        to_listener = []  # the stored form is there: other calls are extra, not a swap
    for call in to_listener:
        if stored is None:
            break
        other = _who_calls(call, listener, line, canon, language)
        if other is not None:
            return [_wrong(line, speaker, listener, call, other, pair, language)]
        text = _msg("address_form", language, speaker=speaker, listener=listener,
                    used=call.surface, stored=pair.address, beat=line.beat)
        out.append(Finding("address_form", "error", text, pair.memory_id, line.quote, line.beat))
        break
    names = [n for c, a in canon.cast.items() for n in (c, *a)]
    reading = level_of(line.text, language, names)
    if reading is not None and pair.level and (reading.level in HONORIFIC) != (
            pair.level in HONORIFIC):
        text = _msg("speech_level", language, speaker=speaker, listener=listener,
                    level=_level(reading.level), stored=_level(pair.level),
                    evidence=reading.evidence, beat=line.beat)
        out.append(Finding("speech_level", "error", text, pair.memory_id, line.quote, line.beat))
    return out


def _wrong(line: SpokenLine, speaker: str, listener: str, call: Address, owner: PairVoice,
           mine: PairVoice | None, language: str) -> Finding:
    text = _msg("wrong_speaker", language, speaker=speaker, listener=listener,
                other=owner.speaker, used=call.surface,
                stored=mine.address if mine is not None else "-", beat=line.beat)
    return Finding("wrong_speaker", "error", text, owner.memory_id, line.quote, line.beat)


def _catchphrase(line: SpokenLine, canon: VoiceCanon, language: str) -> Finding | None:
    said = text_key(line.text)
    me = canon.key(line.speaker)
    mine = canon.cards.get(me)
    own = {text_key(c) for c in (mine.catchphrases if mine else ())}
    for key, card in canon.cards.items():
        if key == me:
            continue
        for phrase in card.catchphrases:
            k = text_key(phrase)
            if len(k) >= MIN_CATCHPHRASE_CHARS and k in said and k not in own:
                text = _msg("catchphrase", language, speaker=canon.canonical(line.speaker),
                            owner=card.name, phrase=phrase, beat=line.beat)
                return Finding("catchphrase", "warning", text, card.memory_id, line.quote,
                               line.beat)
    return None


def check_lines(lines: Sequence[SpokenLine], canon: VoiceCanon, *,
                language: str) -> list[Finding]:
    """Every dialogue finding of ``lines`` (see the module docstring), in line order; each
    kind once per speaker and beat."""
    out: list[Finding] = []
    seen: set[tuple[str, str, int]] = set()

    def add(found: Finding | None, who: str) -> None:
        if found is None or (found.kind, who, found.beat or 0) in seen:
            return
        seen.add((found.kind, who, found.beat or 0))
        out.append(found)

    for line in lines:
        if not line.speaker.strip() or not line.text.strip():
            continue
        who = canon.key(line.speaker)
        scene = {canon.key(n) for n in line.scene}
        if scene and who not in scene:
            severity: Severity = "error" if line.source == "beat" else "warning"
            text = _msg("speaker_absent", language, speaker=line.speaker, beat=line.beat,
                        scene=", ".join(line.scene))
            add(Finding("speaker_absent", severity, text, None, line.quote, line.beat), who)
        death = canon.death(line.speaker)
        if death is not None and not line.flashback:
            text = _msg("dead_speaker", language, speaker=line.speaker, fact=death.text,
                        beat=line.beat)
            add(Finding("dead_speaker", "error", text, death.memory_id, line.quote, line.beat),
                who)
            continue
        for found in _voice_findings(line, canon, language):
            add(found, who)
        add(_catchphrase(line, canon, language), who)
    return out


def dialogue_report(lines: Sequence[SpokenLine], canon: VoiceCanon, *,
                    language: str) -> ContinuityReport:
    """The findings as a continuity report (what the accept path and the autopilot read)."""
    return ContinuityReport(findings=tuple(check_lines(lines, canon, language=language)))
