"""Question routing for self-query retrieval (pure): history questions, tag guesses, the
few-shot examples, and which model errors must be reported rather than fallen back from."""

from __future__ import annotations

import re

from langchain_core.structured_query import Comparator, Comparison, FilterDirective, Operation

from aizac.errors import FilterError
from aizac.llm.errors import status_of
from aizac.retrieval.translator import normalize_tag
from aizac.retrieval.words import retrieval_words

_HISTORY = re.compile(
    r"\b(history|used to|previously|formerly|over time|in the past|changed|change over|"
    r"how has|how have|evolv\w*|before that)\b|" + retrieval_words()["hints"]["history"],
    re.IGNORECASE,
)
_TAG_HINTS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "CharacterRelation",
        re.compile(
            r"\b(relationship|relation|relations|between|feel about|think of|rivals?|"
            r"friends?|enem(y|ies)|allies|lovers?)\b|"
            + retrieval_words()["hints"]["CharacterRelation"],
            re.IGNORECASE,
        ),
    ),
    (
        "Character",
        re.compile(
            r"\b(state|status|condition|feeling|mood|profile|personality|doing now|"
            r"who is)\b|" + retrieval_words()["hints"]["Character"],
            re.IGNORECASE,
        ),
    ),
    (
        "NovelSetting",
        re.compile(
            r"\b(where|place|city|town|kingdom|rule|law|world|object|artifact|era|"
            r"custom|culture|setting)\b|" + retrieval_words()["hints"]["NovelSetting"],
            re.IGNORECASE,
        ),
    ),
)

EXAMPLES: list[tuple[str, dict[str, str]]] = [
    (
        "What is the relationship between Lee Youngmin and Kang Mira?",
        {
            "query": "relationship",
            "filter": 'and(eq("tag", "CharacterRelation"), eq("character1", "Lee Youngmin"), '
            'eq("character2", "Kang Mira"))',
        },
    ),
    (
        "How is Mira doing now?",
        {"query": "current state", "filter": 'and(eq("tag", "Character"), '
         'eq("character_name", "Mira"))'},
    ),
    (
        "What did the writer pin about the jade seal?",
        {"query": "jade seal", "filter": 'eq("pinned", true)'},
    ),
    (
        "How has the relationship between Jun and Mira changed over time?",
        {
            "query": "relationship",
            "filter": 'and(eq("tag", "CharacterRelation"), eq("character1", "Jun"), '
            'eq("character2", "Mira"), eq("superseded", true))',
        },
    ),
    (
        "What happened recently at the harbour?",
        {"query": "harbour", "filter": 'and(eq("tag", "Story"), lt("time", 5))'},
    ),
]
"""Few-shot examples shown to the query-constructing model."""


def asks_for_history(question: str) -> bool:
    """Whether a question is about how facts were or changed (then old versions are served)."""
    return bool(_HISTORY.search(question))


def rejected_key(error: BaseException) -> bool:
    """Whether ``error`` (or what caused it) is the provider refusing the key (401/403)."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if status_of(current) in (401, 403) or "key was rejected" in str(current):
            return True
        current = current.__cause__ or current.__context__
    return False


def guess_tag(question: str) -> str | None:
    """The memory tag a question most likely targets, from its wording (None if unclear)."""
    for tag, pattern in _TAG_HINTS:
        if pattern.search(question):
            return tag
    return None


def tag_in_filter(directive: FilterDirective | None) -> str | None:
    """The first valid ``tag == X`` in a (possibly invalid) filter, for the fallback."""
    if isinstance(directive, Comparison):
        if directive.attribute == "tag" and directive.comparator == Comparator.EQ:
            try:
                return normalize_tag(directive.value)
            except FilterError:
                return None
        return None
    if isinstance(directive, Operation):
        for arg in directive.arguments:
            found = tag_in_filter(arg)
            if found:
                return found
    return None


__all__ = ["EXAMPLES", "asks_for_history", "guess_tag", "rejected_key", "tag_in_filter"]
