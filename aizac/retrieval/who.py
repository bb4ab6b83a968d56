""""Who is X?" questions, answered from the character's own memories (pure detection).

A question that only asks who a character is ("진도준은 누구야?", "진도준님이 누구지?",
"Who is Kang Mira?", "陈默是谁？") needs no model to pick a filter: the answer is that
character's Character memories, the writer's pinned profile first. :func:`who_question`
finds the name as written (particles and honorifics included; the alias resolver strips them).
"""

from __future__ import annotations

import re

_KO = re.compile(
    r"^\s*(?P<name>[^\s?？!.,]+(?:\s+[^\s?？!.,]+)?)\s*"
    r"(?:누구|어떤\s*(?:사람|인물|캐릭터|애)|뭐하는\s*사람)"
)
_EN = re.compile(r"^\s*who\s+(?:is|was|'s)\s+(?P<name>[^?!.]+?)\s*[?!.]*\s*$", re.IGNORECASE)
_ZH = re.compile(r"^\s*(?P<name>[^\s?？!,，]+?)\s*(?:是谁|是什么人|是怎样的人)")


def who_question(question: str) -> str | None:
    """The name a "who is X?" question asks about, as written, or ``None``."""
    for pattern in (_KO, _EN, _ZH):
        found = pattern.match(question or "")
        if found:
            name = found.group("name").strip()
            return name or None
    return None


__all__ = ["who_question"]
