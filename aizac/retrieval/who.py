""""Who is X?" questions, answered from the character's own memories (pure detection).

A question that only asks who a character is ("진도준은 누구야?", "진도준님이 누구지?",
"Who is Kang Mira?", "陈默是谁？") needs no model to pick a filter: the answer is that
character's Character memories, the writer's pinned profile first. :func:`who_question`
finds the name as written (particles and honorifics included; the alias resolver strips them).
A bare name (:func:`is_bare_name`) no character of the story has is not answered at all: the
retriever abstains rather than serve unrelated memories (the retrieval bench's abstain).
"""

from __future__ import annotations

import re

from aizac.retrieval.words import retrieval_words

_PATTERNS = tuple(re.compile(pattern, re.IGNORECASE)
                  for pattern in retrieval_words()["who"].values())
""""Who is X?" in each language (``words.toml``), each with a group named ``name``."""


def who_question(question: str) -> str | None:
    """The name a "who is X?" question asks about, as written, or ``None``."""
    for pattern in _PATTERNS:
        found = pattern.match(question or "")
        if found:
            name = found.group("name").strip()
            return name or None
    return None


def is_bare_name(name: str) -> bool:
    """Whether a "who is X?" name is only a name: one word in Korean or Chinese (particles
    and honorifics aside), capitalised words in a Latin script. "진도준의 적은" or "the
    duke" ask about someone described, which the model may still find; a bare name nobody in
    the story has cannot be answered from memory (the retriever abstains)."""
    words = name.split()
    if not words:
        return False
    if all(w[:1].isascii() for w in words):
        return all(w[:1].isupper() for w in words)
    return len(words) == 1


__all__ = ["is_bare_name", "who_question"]
