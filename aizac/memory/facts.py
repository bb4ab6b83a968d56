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
* a world rule: its lineage, the id of the rule's first version (a revision names the rule it
  revises by reference, :mod:`aizac.memory.references`; never by its keyword, which unrelated
  rules may share) — ``rule|<lineage>``; rules written before lineages existed keep
  ``rule|<keyword>``;
* how a character speaks (their voice card, aspect :data:`VOICE`) — ``char|<name>|voice``;
* how one character speaks to another (speech level and form of address, a CharacterRelation of
  aspect :data:`ADDRESS`): directional, speaker then listener — ``addr|<speaker>|<listener>``.

Other facts (events, "other" character notes, descriptions) have no slot; they accumulate.
Any fact restated with the same or near-same text (:func:`same_text`) reinforces the memory that
already holds it instead of being stored again.

Every slot holds one current value. Most slots are *durable* (:func:`durable_slot`): their
current value is what the story holds true until it changes (alive or dead, where someone is,
whose side they are on, a pair's relation, a rule's current version), so forgetting never
takes it; it only ranks what is offered unasked. A *fading* slot (:data:`FADING_ASPECTS`: a
passing emotion) is single-valued but episodic, and decays like an event.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Iterable, Mapping
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
LINEAGE_KEY = "lineage"
"""Metadata key of a world rule's lineage: the id of its first version (its slot)."""
PROFILE = "profile"
"""The ``aspect`` of a Character memory that introduces the character (who they are; the
aliases the story has confirmed live on it)."""
FADING_ASPECTS: frozenset[str] = frozenset({"emotion"})
"""Character aspects whose current value passes with the scene: single-valued, but they fade
like events instead of being held until they change."""
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
_ALNUM = re.compile(r"[0-9a-z]+")
_CAPITALS = re.compile(r"(?<![A-Za-z0-9])[A-Z]{2,}(?![A-Za-z0-9])")


def name_key(name: str) -> str:
    """The one comparison key of a character name or keyword.

    NFKC, case-folded, without spaces or joining punctuation, so ``"Kang Mira"``,
    ``"KangMira"``, ``"kang-mira"`` and the NFD spelling of a Hangul name are one key.
    """
    return _NOT_WORD.sub("", unicodedata.normalize("NFKC", name or "").casefold())


def text_key(text: str) -> str:
    """A fact's text without case, spacing or punctuation (how restatements are compared)."""
    return _NOT_WORD.sub("", unicodedata.normalize("NFKC", text or "").casefold())


def marks(text: str, names: Iterable[str] = ()) -> frozenset[str]:
    """What tells two look-alike facts apart: the numbers and codes a text carries, and which
    of ``names`` it names.

    A number is a run of digits (``"第111次"`` -> ``111``), a code a run of Latin letters and
    digits with a digit in it (``"记录0BF0"`` -> ``0bf0``) or a run of two or more capitals
    (``"ABCD"``). "第111次确认" and "第11次确认", "记录0BF0" and "记录0BFC" share almost every
    character and differ in their marks: they are different facts.
    """
    norm = unicodedata.normalize("NFKC", text or "")
    folded = norm.casefold()
    out = {t for t in _ALNUM.findall(folded) if any(c.isdigit() for c in t)}
    out |= {t.casefold() for t in _CAPITALS.findall(norm)}
    key = text_key(norm)
    out |= {f"@{k}" for k in (name_key(n) for n in names) if k and k in key}
    return frozenset(out)


def same_text(a: str, b: str, threshold: float = NEAR_SAME) -> bool:
    """Whether ``a`` and ``b`` state the same fact: equal or near-equal text (near-equal only
    with the same :func:`marks`: "in scene 12" and "in scene 13" are two facts)."""
    ka, kb = text_key(a), text_key(b)
    if not ka or not kb:
        return False
    if ka == kb:
        return True
    if min(len(ka), len(kb)) < NEAR_MIN_CHARS or marks(a) != marks(b):
        return False
    if min(len(ka), len(kb)) / max(len(ka), len(kb)) < threshold:
        return False
    return difflib.SequenceMatcher(None, ka, kb, autojunk=False).ratio() >= threshold


def check_aspect(aspect: str | None) -> str:
    """``aspect`` if it is one of :data:`ASPECTS` (``""``/``None`` -> ``""``), else raise."""
    if not aspect:
        return ""
    if aspect not in ASPECTS and aspect not in (RULE, VOICE, ADDRESS, PROFILE):
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
        lineage = str(meta.get(LINEAGE_KEY, "") or "")
        if lineage:
            return f"rule|{lineage}"
        key = name_key(str(meta.get("keyword", "")))
        return f"rule|{key}" if key else ""
    return ""


def durable_slot(meta: Mapping[str, Any]) -> bool:
    """Whether a memory holds a durable slot (see the module doc): while it is the current
    version, it stays answerable however long nobody mentions it."""
    if not fact_slot(meta):
        return False
    return not (meta.get("tag") == "Character" and meta.get("aspect") in FADING_ASPECTS)


def fact_subject(meta: Mapping[str, Any]) -> str:
    """Who or what a memory is about, as a key: the character, the pair, or ``""``."""
    if meta.get("tag") == "CharacterRelation":
        return fact_slot(meta)
    if meta.get("tag") == "Character":
        return name_key(str(meta.get("character_name", "")))
    return ""


__all__ = [
    "ADDRESS",
    "APPEARANCE",
    "ASPECTS",
    "FADING_ASPECTS",
    "LINEAGE_KEY",
    "LISTENER_KEY",
    "NEAR_SAME",
    "OTHER",
    "PROFILE",
    "RULE",
    "SPEAKER_KEY",
    "VOICE",
    "Aspect",
    "check_aspect",
    "durable_slot",
    "fact_slot",
    "fact_subject",
    "marks",
    "name_key",
    "same_text",
    "text_key",
]
