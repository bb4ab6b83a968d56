"""Korean particles that agree with the word before them (pure).

A Korean particle has two forms, chosen by whether the word before it ends in a final
consonant (받침): 이/가, 은/는, 을/를, 과/와, (으)로 (where ㄹ counts as no consonant), ... The
catalogue writes the particle as a format spec (``{name:이}``), and :func:`attach` appends the
form that fits the value as it will be read aloud: Hangul by its last syllable, digits as
Sino-Korean numerals (3 -> 삼, 10 -> 십), Latin names by how Korean writes them (Dohyun -> 도현,
Jiwoo -> 지우). Where the reading cannot be known (Chinese characters, symbols), both forms are
written as Korean style guides do (``이(가)``).

The same file is the one home of the particles the code reads text with (``[after]``):
:data:`NOUN_PARTICLES` (stripped from a place word or a counted word), :data:`NAME_PARTICLES`
and :data:`NAME_TITLES` (what a name copied out of a sentence may carry, see
:func:`name_stems`), :data:`SUBJECT_PARTICLES` (what makes the name before them a subject),
:data:`VOCATIVE_PARTICLES` (what calls a person by name).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from importlib import resources
from typing import Any

_HANGUL_FIRST, _HANGUL_LAST = 0xAC00, 0xD7A3
_RIEUL = 8  # the index of ㄹ among the final consonants


@dataclass(frozen=True)
class Particle:
    """One particle's two forms: after a final consonant, and after a vowel."""

    consonant: str
    vowel: str
    rieul_as_vowel: bool = False  # (으)로: after ㄹ the vowel form is used ("길로", not "길으로")

    @property
    def both(self) -> str:
        """The form written when the reading is unknown: ``이(가)``, ``(으)로``."""
        if self.consonant.endswith(self.vowel):  # 으로/로, 이나/나, 이라/라, 이랑/랑
            return f"({self.consonant[: -len(self.vowel)]}){self.vowel}"
        return f"{self.consonant}({self.vowel})"


def _read() -> dict[str, Any]:
    """``particles.toml`` beside this module."""
    with (resources.files("aizac.text") / "particles.toml").open("rb") as handle:
        return tomllib.load(handle)


_DATA = _read()


def _load(data: dict[str, Any]) -> dict[str, Particle]:
    """The particle pairs of ``data``, by either form."""
    found: dict[str, Particle] = {}
    for consonant, vowel, *flags in data["pairs"]:
        pair = Particle(consonant, vowel, rieul_as_vowel="rieul_as_vowel" in flags)
        found.setdefault(pair.consonant, pair)
        found.setdefault(pair.vowel, pair)
    for alias, form in data.get("aliases", {}).items():
        found[alias] = found[form]
    return found


def _longest_first(*names: str) -> tuple[str, ...]:
    """The ``[after]`` lists ``names`` as one tuple, each word once, longest first (so "에서부터"
    is tried before "에서", and "에서" before "에")."""
    words = dict.fromkeys(w for name in names for w in _DATA["after"][name])
    return tuple(sorted(words, key=len, reverse=True))


PARTICLES: dict[str, Particle] = _load(_DATA)
NOUN_PARTICLES: tuple[str, ...] = _longest_first("noun")
"""The particles a noun may carry ("예배당에서", "서울까지"), longest first."""
VOCATIVE_PARTICLES: tuple[str, ...] = _longest_first("vocative")
"""The particles that call a person by name ("미라야", "도준아")."""
NAME_PARTICLES: tuple[str, ...] = _longest_first("noun", "vocative")
"""The particles a name may carry ("이영민과", "미라야"), longest first."""
SUBJECT_PARTICLES: tuple[str, ...] = _longest_first("subject")
"""The particles that make the name before them a subject ("박철수가", "할머니께서는")."""
NAME_TITLES: tuple[str, ...] = _longest_first("name_titles")
"""What may stand between a name and its particle ("미라님이", "도준이가"), longest first."""

# The last sound of a Sino-Korean numeral: 영 일 이 삼 사 오 육 칠 팔 구 (0 = none, 8 = ㄹ,
# other positive = some other final consonant).
_DIGIT_FINAL = {"0": 21, "1": _RIEUL, "2": 0, "3": 16, "4": 0, "5": 0, "6": 1, "7": _RIEUL,
                "8": _RIEUL, "9": 0}
# Round numbers end in the unit's sound: 십 (ㅂ), 백 (ㄱ), 천 (ㄴ), 만 (ㄴ), 억 (ㄱ).
_ZEROS_FINAL = {1: 17, 2: 1, 3: 4}
# Latin endings as Korean writes loanwords and romanised names: Dohyun 도현, Kang 강, Jiwoo 지우.
_LATIN_FINAL = (("ng", 21), ("ck", 1), ("l", _RIEUL), ("m", 16), ("n", 4), ("k", 1), ("p", 17),
                ("t", 19), ("b", 17))
_TRAILING = " \t\n'\"’”」』)]}>»›.,!?…·"


def final_consonant(word: str) -> int | None:
    """The final consonant of ``word`` as read aloud: 0 for none, its jongseong index (8 = ㄹ)
    otherwise, ``None`` when the reading is unknown. Closing quotes and punctuation are skipped
    (a particle after ``'검'`` agrees with 검)."""
    text = word.rstrip(_TRAILING)
    if not text:
        return None
    last = text[-1]
    code = ord(last)
    if _HANGUL_FIRST <= code <= _HANGUL_LAST:
        return (code - _HANGUL_FIRST) % 28
    if last.isdigit() and last.isascii():
        digits = text[len(text.rstrip("0123456789")):]
        zeros = len(digits) - len(digits.rstrip("0"))
        if zeros == 0 or zeros == len(digits):
            return _DIGIT_FINAL[last]
        if zeros in _ZEROS_FINAL:
            return _ZEROS_FINAL[zeros]
        return 4 if zeros < 8 else 1  # 만 ... 천만; 억 and beyond
    if last.isascii() and last.isalpha():
        lower = text.lower()
        if lower.endswith("e") and len(lower) > 2 and lower[-2] in "mn" and lower[-3] in "aiou":
            lower = lower[:-1]  # a silent e: Jane 제인, Anne 앤
        for ending, final in _LATIN_FINAL:
            if lower.endswith(ending):
                return final
        return 0
    return None


def attach(word: str, particle: str) -> str:
    """``word`` followed by the form of ``particle`` that agrees with it.

    Args:
        word: the rendered value (a name, a quoted fact, a number).
        particle: either form of a known particle (``"이"`` or ``"가"`` give the same result).

    Raises:
        KeyError: ``particle`` is not a known particle.
    """
    pair = PARTICLES[particle]
    final = final_consonant(word)
    if final is None:
        return word + pair.both
    vowel = final == 0 or (final == _RIEUL and pair.rieul_as_vowel)
    return word + (pair.vowel if vowel else pair.consonant)


def name_stems(word: str) -> list[str]:
    """``word`` without what a Korean name may carry after it, most likely first: a particle
    (:data:`NAME_PARTICLES`), a title (:data:`NAME_TITLES`) or a title and a particle
    ("진도준님이" -> "진도준", "이영민과" -> "이영민", "도준이가" -> "도준", "미라 씨" -> "미라").
    ``word`` itself is not among them; a stem is never empty. Which stem is the name is the
    caller's to decide (the one that names someone): "수아" gives "수" too."""
    stems: dict[str, None] = {}
    for particle in (*NAME_PARTICLES, ""):
        if not word.endswith(particle):
            continue
        stem = word[: len(word) - len(particle)]
        for title in (*NAME_TITLES, ""):
            if stem.endswith(title):
                name = stem[: len(stem) - len(title)].rstrip()
                if name and name != word:
                    stems.setdefault(name)
    return list(stems)


__all__ = ["NAME_PARTICLES", "NAME_TITLES", "NOUN_PARTICLES", "PARTICLES", "SUBJECT_PARTICLES",
           "VOCATIVE_PARTICLES", "Particle", "attach", "final_consonant", "name_stems"]
