"""Word-overlap scoring that sharpens the hashing embeddings' similarity (pure).

Hashed n-gram vectors blur on long documents, so searches add the share of the query's content
words that a beat also uses. Words are reduced to crude stems (five Latin letters, two Hangul
syllables, which drops most particles such as ``유령이`` -> ``유령``) and common English function
words are ignored.
"""

from __future__ import annotations

import re
import unicodedata

_WORD = re.compile(r"\w+")
_HANGUL = re.compile(r"[\uac00-\ud7af]")
_STOP_WORDS = (
    "a an the and or but of to in on at for with by from is are was were be been being his her "
    "their its it they he she them this that these those into as after before than then who "
    "whom what when where which while not no so all any each one own out up down over again "
    "only just also very can will would should could about"
)
_STOP = frozenset(_STOP_WORDS.split())


def stems(text: str) -> frozenset[str]:
    """Content-word stems of ``text`` (case-folded, NFKC-normalised)."""
    out = set()
    for word in _WORD.findall(unicodedata.normalize("NFKC", text).casefold()):
        if word in _STOP or word.isdigit():
            continue
        if _HANGUL.search(word):
            out.add(word[:2])
        elif len(word) > 2:
            out.add(word[:5])
    return frozenset(out)


def overlap(query: frozenset[str], document: frozenset[str]) -> float:
    """Share of the query's stems found in the document (0 when the query has none)."""
    return len(query & document) / len(query) if query else 0.0
