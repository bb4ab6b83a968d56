"""One project's view of the cliché database: its language, and only what is relevant.

:class:`ProjectCliches` wraps a :class:`~aizac.cliches.db.ClicheDB` (or anything with the same
queries) for a project written in ``language``: trope arcs and next-beat suggestions come back
in that language (the Korean columns for ``ko``; English otherwise, the database has no Chinese
columns) and only above the relevance floors of :mod:`aizac.cliches.models`, so a project whose
keywords match nothing gets no unrelated tropes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from aizac.cliches.models import BeatHit, TropeArc, relevant_arcs, relevant_hits

WRITTEN_IN: frozenset[str] = frozenset({"en", "ko"})
"""The languages the database's text is written in (English, and the Korean columns). A
project in another language gets no next-beat hints: English lines in a Chinese beat prompt
cost about 400 characters a call (issue 26) and tell the planner of another story's scenes."""


class ProjectCliches:
    """The cliché database as one project sees it.

    Args:
        db: the shared database (its other methods pass through unchanged).
        language: the project's language (``ko``, ``zh``, ``en``).
    """

    def __init__(self, db: Any, language: str) -> None:
        self.db = db
        self.language = language

    def __getattr__(self, name: str) -> Any:
        return getattr(self.db, name)

    def expand_keywords(
        self, keywords: list[str], k_tropes: int = 3, *, genre: str | None = None
    ) -> list[TropeArc]:
        """The relevant arcs among the database's best ``k_tropes``, in the project's language."""
        arcs: Sequence[TropeArc] = (
            self.db.expand_keywords(keywords, k_tropes)
            if genre is None
            else self.db.expand_keywords(keywords, k_tropes, genre=genre)
        )
        return [a.localized(self.language) for a in relevant_arcs(arcs)]

    def suggest_next(
        self, current_beat: str, stage: str, *, trope: str | None = None, k: int = 5
    ) -> list[BeatHit]:
        """The relevant next-beat suggestions, in the project's language (none where the
        database has no text in it: :data:`WRITTEN_IN`)."""
        if self.language not in WRITTEN_IN:
            return []
        hits = self.db.suggest_next(current_beat, stage, trope=trope, k=k)
        return [h.localized(self.language) for h in relevant_hits(hits, self.language)]
