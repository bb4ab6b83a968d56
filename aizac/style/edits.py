"""What a writer's edit changed, word by word (pure): the words they delete and the words they add.

An edit is a (model text -> writer text) pair. The two are compared as word sequences
(:func:`aizac.style.metrics.words`: Korean without particles, Chinese by character) with
:class:`difflib.SequenceMatcher`; a deleted run, an inserted run and what a short replacement lost
and gained count. Each word counts once per pair, so "keeps deleting" means "deleted in many
edits", not "deleted many times in one".
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from aizac.style.metrics import words

SHORT_REPLACEMENT = 12
"""A replaced run of at most this many words on each side counts word by word (what it lost,
what it gained: 했다 -> 했어, a dropped 매우); longer ones are rewrites whose words say little
about the writer's habits."""

__all__ = ["EditWords", "edit_words", "tally"]


@dataclass(frozen=True)
class EditWords:
    """The words one edit deleted and added."""

    deleted: frozenset[str]
    added: frozenset[str]


def edit_words(model_text: str, writer_text: str, language: str) -> EditWords:
    """The words the writer deleted from and added to the model's text."""
    before, after = words(model_text, language), words(writer_text, language)
    deleted: set[str] = set()
    added: set[str] = set()
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "delete":
            deleted.update(before[i1:i2])
        elif op == "insert":
            added.update(after[j1:j2])
        elif op == "replace" and max(i2 - i1, j2 - j1) <= SHORT_REPLACEMENT:
            lost, gained = set(before[i1:i2]), set(after[j1:j2])
            deleted.update(lost - gained)
            added.update(gained - lost)
    both = deleted & added  # moved, not removed
    return EditWords(frozenset(deleted - both), frozenset(added - both))


def tally(edits: Iterable[EditWords], *, top: int = 8,
          least: int = 2) -> tuple[tuple[tuple[str, int], ...], tuple[tuple[str, int], ...]]:
    """The words deleted and added in at least ``least`` edits, most frequent first (ties by
    the word), ``top`` of each."""
    gone: Counter[str] = Counter()
    new: Counter[str] = Counter()
    for edit in edits:
        gone.update(edit.deleted)
        new.update(edit.added)

    def best(c: Counter[str]) -> tuple[tuple[str, int], ...]:
        ranked = sorted((p for p in c.items() if p[1] >= least), key=lambda p: (-p[1], p[0]))
        return tuple(ranked[:top])

    return best(gone), best(new)
