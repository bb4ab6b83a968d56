"""A speech level switched between a pair without a relation change, across a serial (pure).

The serial continuity report's dialogue check (:mod:`aizac.continuity.serial_checks` has the
others). A quoted line whose narration just before it makes one character the subject of a
speech verb (:func:`aizac.dialogue.lines.speech_subjects`) is that character's, said to the
character its narration addresses ("민재가 하린에게 말했다", "said to Mira"), or to the other
one of a two-person scene. The first line from one to the other sets the pair's level
(honorific or plain, :func:`aizac.dialogue.speech.level_of`); a later line at the other level
is a switch, unless the pair's relation changed in between (then that line sets the level
anew). One finding per pair and episode; its source is the line that set the level.
"""

from __future__ import annotations

from dataclasses import dataclass

from aizac.continuity.serial_checks import Person, SerialInput
from aizac.continuity.serial_report import SerialFinding, Spot
from aizac.dialogue.lines import speech_subjects
from aizac.dialogue.speech import HONORIFIC, level_of, lexicon, quoted
from aizac.memory.facts import name_key
from aizac.text import Text, Verbatim


@dataclass(frozen=True)
class _Set:
    honorific: bool
    at: Spot


def _listener(paragraph: str, speaker: str, cast: tuple[Person, ...], scene: tuple[str, ...],
              language: str) -> str:
    narration = paragraph
    for _, words in quoted(paragraph):
        narration = narration.replace(words, " ")
    for person in cast:
        if name_key(person.name) == name_key(speaker):
            continue
        for form in sorted(person.names, key=len, reverse=True):
            if not form.strip():
                continue
            if any(p.replace("{name}", form) in narration
                   for p in lexicon(language).addressee):
                return person.name
    others = [n for n in scene if name_key(n) != name_key(speaker)]
    return others[0] if len(set(map(name_key, others))) == 1 else ""


def _lines(paragraph: str, language: str, cast: dict[str, list[str]]) -> list[tuple[str, str]]:
    """``(speaker, words)`` of each quoted line whose narration just before it (since the last
    quote) makes one character the subject of a speech verb."""
    out = []
    start = 0
    for offset, words in quoted(paragraph):
        before = paragraph[start:offset]
        start = paragraph.find(words, offset) + len(words) + 1
        subjects = speech_subjects(before, language, cast)
        if len(subjects) == 1:
            out.append((next(iter(subjects)), words))
    return out


def speech_switches(data: SerialInput) -> list[SerialFinding]:
    """The switches in the module docstring, in story order."""
    cast_map = {p.name: list(p.aliases) for p in data.cast}
    names = [n for p in data.cast for n in p.names]
    changes: dict[frozenset[str], list[int]] = {}
    for r in data.relations:
        pair = frozenset({name_key(data.canonical(r.a)), name_key(data.canonical(r.b))})
        changes.setdefault(pair, []).append(r.episode)
    changes = {k: sorted(v)[1:] for k, v in changes.items()}  # the first is no change
    held: dict[tuple[str, str], _Set] = {}
    flagged: set[tuple[str, str, int]] = set()
    out: list[SerialFinding] = []
    for scene in sorted(data.scenes, key=lambda s: (s.episode, s.first)):
        scene_cast = tuple(data.canonical(n) for n in scene.characters)
        for spot in scene.spots():
            for speaker, words in _lines(spot.quote, data.language, cast_map):
                listener = _listener(spot.quote, speaker, data.cast, scene_cast, data.language)
                reading = level_of(words, data.language, names)
                if not listener or reading is None:
                    continue
                key = (name_key(speaker), name_key(listener))
                honorific = reading.level in HONORIFIC
                before = held.get(key)
                pair = frozenset(key)
                changed = before is not None and any(
                    before.at.episode <= e <= spot.episode for e in changes.get(pair, ()))
                if before is None or changed:
                    held[key] = _Set(honorific, spot)
                    continue
                if before.honorific == honorific or (*key, spot.episode) in flagged:
                    continue
                flagged.add((*key, spot.episode))
                out.append(SerialFinding(
                    "speech_level", spot, before.at,
                    Text("report.note.speech_level", speaker=Verbatim(speaker),
                         listener=Verbatim(listener),
                         level=Text("report.level.honorific" if honorific
                                    else "report.level.plain"),
                         held=Text("report.level.honorific" if before.honorific
                                   else "report.level.plain"))))
    return out


__all__ = ["speech_switches"]
