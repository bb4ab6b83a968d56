"""What makes two memories the same fact, or two versions of one changing fact (pure).

This module is the one home of these rules; staging, commits, lookups and the context pack all
ask it rather than deciding for themselves.

A *changing fact* has a **slot**: at most one current memory holds a slot, and a new fact in an
occupied slot supersedes the holder (the old one stays as history). Slots:

* a relation: the pair of characters (either order) — ``rel|<a>|<b>``;
* a character's state: the character and an aspect from :data:`ASPECTS` other than ``other``
  and ``appearance`` (condition, whereabouts, allegiance, ...) — ``char|<name>|<aspect>``;
* a feature of a character's look (``aspect="appearance"``, the feature as its keyword: hair,
  eyes, scar, clothes) — ``look|<name>|<keyword>``; a look fact without a keyword has no slot;
* a world rule: its keyword — ``rule|<keyword>``;
* how a character speaks (their voice card, aspect :data:`VOICE`) — ``char|<name>|voice``;
* how one character speaks to another (speech level and form of address, a CharacterRelation of
  aspect :data:`ADDRESS`): directional, speaker then listener — ``addr|<speaker>|<listener>``.

Other facts (events, "other" character notes, descriptions) have no slot; they accumulate.
Any fact restated with the same or near-same text (:func:`same_text`) reinforces the memory that
already holds it instead of being stored again.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any, Literal

Aspect = Literal[
    "condition", "whereabouts", "allegiance", "status", "ability", "emotion", "goal",
    "appearance", "other",
]
ASPECTS: tuple[str, ...] = (
    "condition",
    "whereabouts",
    "allegiance",
    "status",
    "ability",
    "emotion",
    "goal",
    "appearance",
    "other",
)
"""Aspects of a character's state; each but ``other`` holds one current fact (``appearance``:
one per feature, named by the fact's keyword)."""
OTHER = "other"
APPEARANCE = "appearance"
"""The aspect of a Character fact about how the character looks (illustrations read these)."""
RULE = "rule"
"""The ``aspect`` of a NovelSetting memory that states a world rule."""
VOICE = "voice"
"""The ``aspect`` of a Character memory that is the character's voice card (how they speak)."""
ADDRESS = "address"
"""The ``aspect`` of a CharacterRelation memory that says how one of the pair speaks to the
other (speech level, form of address); who speaks is :data:`SPEAKER_KEY`."""
SPEAKER_KEY = "v_speaker"
LISTENER_KEY = "v_listener"
"""Metadata keys (``extra``) of an :data:`ADDRESS` fact: the speaker and the listener."""
NEAR_SAME = 0.97
"""Similarity ratio at or above which two long texts state the same fact."""
NEAR_MIN_CHARS = 30
"""Shorter texts are the same fact only when equal but for case, spacing and punctuation
("다리를 다쳤다" and "팔을 다쳤다" differ in one word, and are different facts)."""

_NOT_WORD = re.compile(r"[\W_]+")


def name_key(name: str) -> str:
    """The one comparison key of a character name or keyword.

    NFKC, case-folded, without spaces or joining punctuation, so ``"Kang Mira"``,
    ``"KangMira"``, ``"kang-mira"`` and the NFD spelling of a Hangul name are one key.
    """
    return _NOT_WORD.sub("", unicodedata.normalize("NFKC", name or "").casefold())


def text_key(text: str) -> str:
    """A fact's text without case, spacing or punctuation (how restatements are compared)."""
    return _NOT_WORD.sub("", unicodedata.normalize("NFKC", text or "").casefold())


def same_text(a: str, b: str, threshold: float = NEAR_SAME) -> bool:
    """Whether ``a`` and ``b`` state the same fact: equal or near-equal text."""
    ka, kb = text_key(a), text_key(b)
    if not ka or not kb:
        return False
    if ka == kb:
        return True
    if min(len(ka), len(kb)) < NEAR_MIN_CHARS:
        return False
    if min(len(ka), len(kb)) / max(len(ka), len(kb)) < threshold:
        return False
    return difflib.SequenceMatcher(None, ka, kb, autojunk=False).ratio() >= threshold


def check_aspect(aspect: str | None) -> str:
    """``aspect`` if it is one of :data:`ASPECTS` (``""``/``None`` -> ``""``), else raise."""
    if not aspect:
        return ""
    if aspect not in ASPECTS and aspect not in (RULE, VOICE, ADDRESS):
        from aizac.errors import InvalidInputError

        raise InvalidInputError("error.memory.aspect", aspect=str(aspect),
                                choices=", ".join(ASPECTS))
    return aspect


def fact_slot(meta: Mapping[str, Any]) -> str:
    """The slot of a memory from its metadata, or ``""`` when it has none (see module doc)."""
    tag = meta.get("tag")
    aspect = str(meta.get("aspect") or "")
    if tag == "CharacterRelation" and aspect == ADDRESS:
        speaker = name_key(str(meta.get(SPEAKER_KEY, "")))
        listener = name_key(str(meta.get(LISTENER_KEY, "")))
        return f"addr|{speaker}|{listener}" if speaker and listener else ""
    if tag == "CharacterRelation":
        a, b = sorted((name_key(str(meta.get("character1", ""))),
                       name_key(str(meta.get("character2", "")))))
        return f"rel|{a}|{b}" if a and b else ""
    if tag == "Character" and aspect == APPEARANCE:
        name, feature = (name_key(str(meta.get(k, ""))) for k in ("character_name", "keyword"))
        return f"look|{name}|{feature}" if name and feature else ""
    if tag == "Character" and aspect and aspect != OTHER:
        name = name_key(str(meta.get("character_name", "")))
        return f"char|{name}|{aspect}" if name else ""
    if tag == "NovelSetting" and aspect == RULE:
        key = name_key(str(meta.get("keyword", "")))
        return f"rule|{key}" if key else ""
    return ""


def fact_subject(meta: Mapping[str, Any]) -> str:
    """Who or what a memory is about, as a key: the character, the pair, or ``""``."""
    if meta.get("tag") == "CharacterRelation":
        return fact_slot(meta)
    if meta.get("tag") == "Character":
        return name_key(str(meta.get("character_name", "")))
    return ""


def match_payoff(
    keyword: str, text: str, open_threads: Sequence[tuple[str, str, str]]
) -> str | None:
    """The id of the open foreshadowing a payoff closes, or ``None``.

    ``open_threads`` holds ``(id, keyword, text)``. A thread matches on its keyword (same
    :func:`name_key`), else on the same or near-same text; ties go to the first (oldest) one.
    """
    key = name_key(keyword)
    if key:
        for mid, kw, _ in open_threads:
            if name_key(kw) == key:
                return mid
    for mid, _, planted in open_threads:
        if same_text(planted, text, threshold=0.8):
            return mid
    return None


__all__ = [
    "ADDRESS",
    "APPEARANCE",
    "ASPECTS",
    "LISTENER_KEY",
    "NEAR_SAME",
    "OTHER",
    "RULE",
    "SPEAKER_KEY",
    "VOICE",
    "Aspect",
    "check_aspect",
    "fact_slot",
    "fact_subject",
    "match_payoff",
    "name_key",
    "same_text",
    "text_key",
]
