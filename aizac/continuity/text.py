"""Text heuristics of the deterministic checks (pure): markers, places, similarity.

Claims and canon are short sentences written by the extractor or the planner (Korean, English
or Chinese). The checks compare them with small marker lists and character-bigram overlap,
which works without word segmentation in every language; names compare by
:func:`aizac.memory.facts.name_key`.
"""

from __future__ import annotations

import functools
import re
import tomllib
import unicodedata
from collections.abc import Iterable
from importlib import resources
from typing import Any

from aizac.memory.facts import name_key, text_key
from aizac.text.particles import NOUN_PARTICLES, SUBJECT_PARTICLES


@functools.cache
def words() -> dict[str, Any]:
    """The check's word lists (``words.toml`` beside this module: language data, not code)."""
    with (resources.files("aizac.continuity") / "words.toml").open("rb") as handle:
        return tomllib.load(handle)


_WORDS = words()
DEATH: tuple[str, ...] = tuple(_WORDS["death"])
ALIVE: tuple[str, ...] = tuple(_WORDS["alive"])
ABSENT: tuple[str, ...] = tuple(_WORDS["absent"])
FLASHBACK: tuple[str, ...] = tuple(_WORDS["flashback"])
MOURNING: tuple[str, ...] = tuple(_WORDS["mourning"])
CONDITIONAL: tuple[str, ...] = tuple(_WORDS["conditional"])
NEGATION: tuple[str, ...] = tuple(_WORDS["negation"])
FALSITY: tuple[str, ...] = tuple(_WORDS["falsity"])
"""Words that call a whole statement false ("...was a lie")."""
LEARN: tuple[str, ...] = tuple(_WORDS["learn"])
AGAIN: tuple[str, ...] = tuple(_WORDS["again"])
"""Words that tell a relation as coming back ("made up again")."""
RELATION_LABELS: dict[str, tuple[str, ...]] = {
    label: tuple(words) for label, words in _WORDS["relations"].items()
}
_NEGATED_DEATH: tuple[str, ...] = tuple(_WORDS["negated_death"])
_PARTICLES = re.compile("(" + "|".join(map(re.escape, NOUN_PARTICLES)) + ")$")
_HANGUL = re.compile(r"[\uac00-\ud7a3]")
_SPLIT = re.compile(r"[\s,./·()\[\]{}'\"“”‘’:;!?~\-]+")
_STOP = {"the", "and", "of", "in", "at", "on", "a", "an", "to", "near", "inside", "outside"}


def _norm(text: str) -> str:
    return unicodedata.normalize("NFKC", text or "").casefold()


def has_any(text: str, markers: Iterable[str]) -> bool:
    """Whether ``text`` contains one of ``markers`` (case-folded, NFKC)."""
    t = f" {_norm(text)} "
    return any(m in t for m in markers)


def is_dead(text: str) -> bool:
    """Whether a state text says the character is dead (and not that they survived)."""
    return has_any(text, DEATH) and not has_any(text, ALIVE) and not _negated_death(text)


def _negated_death(text: str) -> bool:
    t = _norm(text)
    return any(p in t for p in _NEGATED_DEATH)


def is_alive(text: str) -> bool:
    """Whether a state text says the character is alive or back to life."""
    return has_any(text, ALIVE)


def negated(text: str) -> bool:
    """Whether the sentence carries a negation marker."""
    return has_any(text, NEGATION)


def strip_markers(text: str, markers: Iterable[str] = NEGATION) -> str:
    out = _norm(text)
    for m in markers:
        out = out.replace(m.strip(), " ")
    return out


def stems(text: str) -> set[str]:
    """Content-word stems: the first two syllables of a Hangul or Han word, the first five
    letters of a longer Latin word (how "회귀자" and "회귀했다", "lived" and "lives" meet)."""
    out: set[str] = set()
    for raw in _SPLIT.split(_norm(text)):
        key = name_key(raw)
        if key.isascii():
            if len(key) >= 5:
                out.add(key[:5])
        elif len(key) >= 2:
            out.add(key[:2])
    return out


def bigrams(text: str) -> set[str]:
    """Character bigrams of ``text_key(text)`` (a one-character text is its own gram)."""
    key = text_key(text)
    if len(key) < 2:
        return {key} if key else set()
    return {key[i : i + 2] for i in range(len(key) - 1)}


def containment(part: str, whole: str) -> float:
    """The share of ``part``'s bigrams found in ``whole`` (0..1)."""
    grams = bigrams(part)
    return len(grams & bigrams(whole)) / len(grams) if grams else 0.0


def dice(a: str, b: str) -> float:
    """Bigram Dice similarity of two texts (0..1)."""
    ga, gb = bigrams(a), bigrams(b)
    return 2 * len(ga & gb) / (len(ga) + len(gb)) if ga and gb else 0.0


def without_names(text: str, names: Iterable[str]) -> str:
    """``text`` with the given names removed (they are shared by every version of a fact)."""
    out = _norm(text)
    for name in sorted({_norm(n) for n in names if n}, key=len, reverse=True):
        out = out.replace(name, " ")
    return out


def relation_labels(text: str) -> set[str]:
    """The kinds of relation a relation text names (friend, enemy, lover ...)."""
    t = _norm(text)
    return {label for label, words in RELATION_LABELS.items() if any(w in t for w in words)}


def place_tokens(text: str) -> set[str]:
    """The words of a place name, without particles, as comparison keys."""
    out: set[str] = set()
    for raw in _SPLIT.split(_norm(text)):
        word = raw
        if _HANGUL.search(word) and len(word) > 1:
            word = _PARTICLES.sub("", word) or word
        key = name_key(word)
        if not key or key in _STOP:
            continue
        if key.isascii() and len(key) < 3:
            continue
        out.add(key)
    return out


def same_place(location: str, whereabouts: str, keyword: str = "") -> bool:
    """Whether a scene at ``location`` agrees with a whereabouts text (and its keyword)."""
    where_key = text_key(f"{whereabouts} {keyword}")
    loc_key = text_key(location)
    if keyword and name_key(keyword) and name_key(keyword) in loc_key:
        return True
    return any(tok in where_key for tok in place_tokens(location))


def acts_as_subject(text: str, name: str) -> bool:
    """Whether a sentence opens with ``name`` as its subject ("박철수가 문을 열었다",
    "Victor walked in"), not as an owner ("박철수의 유언장", "Victor's will")."""
    t, n = _norm(text).strip(), _norm(name).strip()
    if not n or not t.startswith(n):
        return False
    rest = t[len(n):]
    if _HANGUL.match(n[-1:]):
        # The particle ends the word ("박철수가 문을", "박철수는, 결국"), not "박철수가문".
        return any(rest.startswith(p) and not _HANGUL.match(rest[len(p):len(p) + 1])
                   for p in SUBJECT_PARTICLES)
    return rest.startswith(" ") and not rest.startswith(("'s", "’s"))


def mentions(text: str, name: str) -> bool:
    """Whether ``text`` names ``name`` (keys compared, so spacing and case do not matter)."""
    key = name_key(name)
    return bool(key) and key in text_key(text)


__all__ = [
    "CONDITIONAL",
    "FALSITY",
    "acts_as_subject",
    "bigrams",
    "containment",
    "dice",
    "has_any",
    "is_alive",
    "is_dead",
    "mentions",
    "negated",
    "place_tokens",
    "relation_labels",
    "same_place",
    "stems",
    "strip_markers",
    "without_names",
]
