"""A writer's style profile: computed deterministically from the writer's own text (pure).

The profile is the :class:`~aizac.style.metrics.StyleMetrics` of every passage the writer wrote
or edited (never the model's drafts), with the words their edits keep deleting and adding. The
passages are read in a fixed order (their keys) and counted as sums, so the same passages always
give the same profile, whatever order they were stored in.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from aizac.style.edits import edit_words, tally
from aizac.style.metrics import Counts, StyleMetrics, count

MIN_PASSAGES = 1
"""Passages of the writer's own text a profile needs before it speaks for the writer."""

__all__ = ["MIN_PASSAGES", "Passage", "StyleProfile", "build_profile"]


@dataclass(frozen=True)
class Passage:
    """One piece of style evidence: what the model wrote and what the writer made of it.

    ``model_text`` is empty when the writer wrote the passage from nothing; ``writer_text``
    empty while the writer has not touched the model's draft."""

    key: str
    kind: str
    language: str
    model_text: str
    writer_text: str
    episode: int = 0
    index: int = 0

    @property
    def edited(self) -> bool:
        return bool(self.writer_text.strip()) and self.writer_text != self.model_text


@dataclass(frozen=True)
class StyleProfile:
    """The writer's style: metrics of their prose, and the words their edits delete and add.

    Attributes:
        metrics: the measures of the writer's own prose.
        passages: prose passages the metrics come from.
        edits: (model -> writer) pairs the word lists come from (prose and beats).
        deleted / added: ``(word, edits)`` most frequent first.
    """

    language: str
    metrics: StyleMetrics
    passages: int = 0
    edits: int = 0
    deleted: tuple[tuple[str, int], ...] = ()
    added: tuple[tuple[str, int], ...] = ()
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def ready(self) -> bool:
        """Whether there is enough of the writer's text to speak for them."""
        return self.passages >= MIN_PASSAGES

    def to_dict(self) -> dict[str, Any]:
        return {"language": self.language, "metrics": self.metrics.to_dict(),
                "passages": self.passages, "edits": self.edits,
                "deleted": [list(p) for p in self.deleted], "added": [list(p) for p in self.added]}


def prose_counts(texts: Iterable[str], language: str) -> Counts:
    total = Counts()
    for text in texts:
        total = total.add(count(text, language))
    return total


def build_profile(passages: Sequence[Passage], language: str) -> StyleProfile:
    """The profile of the writer's passages in ``language`` (others are left out)."""
    mine = sorted((p for p in passages if p.language == language and p.writer_text.strip()),
                  key=lambda p: (p.key, p.kind))
    prose = [p.writer_text for p in mine if p.kind == "prose"]
    edited = [edit_words(p.model_text, p.writer_text, language) for p in mine
              if p.edited and p.model_text.strip()]
    deleted, added = tally(edited)
    return StyleProfile(
        language=language, metrics=prose_counts(prose, language).metrics(language),
        passages=len(prose), edits=len(edited), deleted=deleted, added=added,
    )
