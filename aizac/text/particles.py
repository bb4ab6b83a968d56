"""Korean particles that agree with the word before them (pure).

A Korean particle has two forms, chosen by whether the word before it ends in a final
consonant (받침): 이/가, 은/는, 을/를, 과/와, (으)로 (where ㄹ counts as no consonant), ... The
catalogue writes the particle as a format spec (``{name:이}``), and :func:`attach` appends the
form that fits the value as it will be read aloud: Hangul by its last syllable, digits as
Sino-Korean numerals (3 -> 삼, 10 -> 십), Latin names by how Korean writes them (Dohyun -> 도현,
Jiwoo -> 지우). Where the reading cannot be known (Chinese characters, symbols), both forms are
written as Korean style guides do (``이(가)``).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from importlib import resources

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


def _load() -> dict[str, Particle]:
    """The particles of ``particles.toml`` (beside this module), by either form."""
    with (resources.files("aizac.text") / "particles.toml").open("rb") as handle:
        data = tomllib.load(handle)
    found: dict[str, Particle] = {}
    for consonant, vowel, *flags in data["pairs"]:
        pair = Particle(consonant, vowel, rieul_as_vowel="rieul_as_vowel" in flags)
        found.setdefault(pair.consonant, pair)
        found.setdefault(pair.vowel, pair)
    for alias, form in data.get("aliases", {}).items():
        found[alias] = found[form]
    return found


PARTICLES: dict[str, Particle] = _load()

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


__all__ = ["PARTICLES", "Particle", "attach", "final_consonant"]
