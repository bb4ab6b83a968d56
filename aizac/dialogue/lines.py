"""Who says what in a draft, as plain data (pure): the beats' dialogue lines and the prose's.

A planned beat names each line's speaker. In prose a quoted line is given to a speaker only
when its paragraph's narration names exactly one character as the subject of a speech verb
("…" 민호가 말했다 / Mira said / 林风说); other quoted lines stay unattributed and are not
checked (a guess would only raise false alarms).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from aizac.continuity.claims import BeatLike
from aizac.continuity.text import FLASHBACK, has_any
from aizac.dialogue.speech import lexicon, quoted
from aizac.memory.facts import name_key
from aizac.text.particles import SUBJECT_PARTICLES

__all__ = ["SpokenLine", "attributed", "beat_speakers", "speech_subjects", "spoken_lines"]


@dataclass(frozen=True)
class SpokenLine:
    """One line of dialogue in a scene.

    Attributes:
        speaker: who says it, as written.
        text: the words.
        beat: the beat index (1-based within the episode).
        order: position among the beat's lines.
        scene: the characters present in the beat (as written).
        source: ``"beat"`` (the planned line) or ``"prose"`` (attributed in the prose).
        flashback: the beat is a flashback or a dream (the dead may speak there).
        to: the listener, when the dialogue plan says so (else ``""``).
    """

    speaker: str
    text: str
    beat: int
    order: int
    scene: tuple[str, ...]
    source: str
    flashback: bool = False
    to: str = ""

    @property
    def quote(self) -> str:
        return f'{self.speaker}: "{self.text}"'


def beat_speakers(beat: Any) -> list[str]:
    """The distinct speakers of a beat's planned dialogue, in order of their first line."""
    seen: dict[str, str] = {}
    for line in getattr(beat, "dialogue", ()):
        speaker = " ".join(str(getattr(line, "speaker", "")).split())
        if speaker and name_key(speaker) not in seen:
            seen[name_key(speaker)] = speaker
    return list(seen.values())


def _called(cast: Mapping[str, Sequence[str]]) -> list[tuple[str, str]]:
    """``(form, canonical)`` of every way a character is named, longest first."""
    forms: list[tuple[str, str]] = []
    for canonical, aliases in cast.items():
        for form in (canonical, *aliases):
            if form.strip():
                forms.append((form, canonical))
        if len(canonical) == 3 and re.fullmatch(r"[\uac00-\ud7a3]{3}", canonical):
            forms.append((canonical[1:], canonical))  # 윤수아 -> 수아
        parts = canonical.split()
        if len(parts) > 1:
            forms.append((parts[0], canonical))
    return sorted(set(forms), key=lambda f: len(f[0]), reverse=True)


def _subjects(narration: str, language: str, cast: Mapping[str, Sequence[str]]) -> set[str]:
    """Characters the narration makes the subject of a speech verb."""
    lex = lexicon(language)
    if not any(v in narration.casefold() for v in (v.casefold() for v in lex.speech_verbs)):
        return set()
    found: set[str] = set()
    taken = narration
    for form, canonical in _called(cast):
        if lex.language == "ko":
            pattern = rf"{re.escape(form)}(?:{'|'.join(map(re.escape, SUBJECT_PARTICLES))})"
            pattern += r"(?![\uac00-\ud7a3])"
        elif lex.language == "zh":
            verbs = "|".join(map(re.escape, lex.speech_verbs))
            pattern = rf"{re.escape(form)}(?:[^，。！？]{{0,6}})(?:{verbs})"
        else:
            verbs = "|".join(map(re.escape, lex.speech_verbs))
            pattern = (rf"(?:\b{re.escape(form)}\b\s+(?:{verbs})\b|\b(?:{verbs})\s+"
                       rf"{re.escape(form)}\b)")
        if re.search(pattern, taken, flags=re.IGNORECASE):
            found.add(canonical)
            taken = re.sub(re.escape(form), " ", taken)  # "강민호" is not also "민호"
    return found


def speech_subjects(narration: str, language: str,
                    cast: Mapping[str, Sequence[str]]) -> set[str]:
    """The characters (canonical) ``narration`` makes the subject of a speech verb."""
    return _subjects(narration, language, cast)


def attributed(prose: str, language: str,
               cast: Mapping[str, Sequence[str]]) -> list[tuple[str, str]]:
    """``(speaker, line)`` of the prose's quoted lines whose speaker is certain."""
    out: list[tuple[str, str]] = []
    for paragraph in (p for p in prose.splitlines() if p.strip()):
        spans = quoted(paragraph)
        if not spans:
            continue
        narration = paragraph
        for _, words in spans:
            narration = narration.replace(words, " ")
        subjects = _subjects(narration, language, cast)
        if len(subjects) == 1:
            speaker = next(iter(subjects))
            out.extend((speaker, words) for _, words in spans)
    return out


def _planned_listener(turns: Sequence[Any], speaker: str) -> str:
    """Who the plan has ``speaker`` talk to, when it is one character in every turn."""
    to = {name_key(str(t.to)): str(t.to) for t in turns
          if name_key(str(t.speaker)) == name_key(speaker)}
    return next(iter(to.values())) if len(to) == 1 else ""


def spoken_lines(
    beats: Sequence[BeatLike],
    prose: Mapping[int, str] | None = None,
    *,
    language: str,
    cast: Mapping[str, Sequence[str]],
    plans: Mapping[int, Any] | None = None,
) -> list[SpokenLine]:
    """Every line of the episode's beats (planned lines, then the prose's attributed lines),
    in beat order. ``plans``: beat index -> its dialogue plan (who each line is said to)."""
    out: list[SpokenLine] = []
    for beat in sorted(beats, key=lambda b: b.index):
        scene = tuple(beat.characters)
        flashback = has_any(f"{beat.time} {beat.location}", FLASHBACK)
        turns = list(getattr((plans or {}).get(beat.index), "turns", ()) or ())
        for n, line in enumerate(beat.dialogue):
            speaker = str(getattr(line, "speaker", "")).strip()
            to = ""
            if n < len(turns) and name_key(turns[n].speaker) == name_key(speaker):
                to = str(turns[n].to)
            out.append(SpokenLine(speaker, str(getattr(line, "line", "")), beat.index, n, scene,
                                  "beat", flashback, to))
        planned = {name_key(str(getattr(d, "line", ""))) for d in beat.dialogue}
        start = len(beat.dialogue)
        text = (prose or {}).get(beat.index, "")
        for n, (speaker, words) in enumerate(attributed(text, language, cast), start):
            if name_key(words) not in planned:  # the planned line, written out: checked once
                out.append(SpokenLine(speaker, words, beat.index, n, scene, "prose", flashback,
                                      _planned_listener(turns, speaker)))
    return out
