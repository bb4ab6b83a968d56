""""Who is X?" questions, answered from the character's own memories (pure detection).

A question that only asks who a character is ("진도준은 누구야?", "진도준님이 누구지?",
"Who is Kang Mira?", "陈默是谁？") needs no model to pick a filter: the answer is that
character's Character memories, the writer's pinned profile first. :func:`who_question`
finds the name as written (particles and honorifics included; the alias resolver strips them).
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


__all__ = ["who_question"]
