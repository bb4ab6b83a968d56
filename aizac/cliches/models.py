"""Result types of the cliché database and genre-name resolution (pure)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from aizac.cliches.schema import LOCALIZED_FIELDS, BeatRow, read_names
from aizac.errors import InvalidInputError

GENRE_ALIASES: dict[str, tuple[str, ...]] = {
    slug: tuple(names) for slug, names in read_names()["genres"].items()
}
"""Korean and loose English names writers type for the genres of the packaged database
(``names.toml``)."""


TROPE_MIN_SIMILARITY = 1.5
"""An arc that carries none of the query's keywords is offered only from this score up (with
the hashing embeddings, unrelated arcs score up to about 1.1, keyword matches 1.4 and more)."""
BEAT_MIN_SCORES: dict[str, float] = {"ko": 0.18, "zh": 0.18, "en": 0.6}
"""A next-beat suggestion is offered only from this score (similarity plus word overlap) up,
by the language of the text it follows: Latin text scores higher against everything, so its
floor is higher (measured on the packaged database with the default hashing embeddings)."""
BEAT_MIN_SCORE = BEAT_MIN_SCORES["en"]


def _norm(name: str) -> str:
    return re.sub(r"[\s_\-]+", "", name.casefold())


def resolve_genre(name: str, known: Iterable[str]) -> str:
    """Map a genre as a writer types it (``로판``, ``Romance Fantasy``) to a known slug."""
    known = list(known)
    lookup = {_norm(g): g for g in known}
    for slug, aliases in GENRE_ALIASES.items():
        if slug in lookup.values():
            lookup.update({_norm(a): slug for a in aliases})
    found = lookup.get(_norm(name))
    if found is None:
        raise InvalidInputError("error.cliches.genre", genre=str(name),
                                choices=", ".join(sorted(known)))
    return found


@dataclass(frozen=True)
class BeatHit:
    """A beat returned by a search: the row's fields plus a score.

    ``score`` ranks hits of one call (higher is closer): the cosine similarity between query and
    beat plus the share of the query's content words the beat uses, so roughly 0-2. ``matched``
    lists the query keywords the beat carries exactly (``by_keywords`` only).
    """

    id: str
    genre: str
    trope: str
    order: int
    stage: str
    keywords: tuple[str, ...]
    summary: str
    location: str
    time: str
    roles: tuple[str, ...]
    event: str
    emotion: str
    conflict: str
    hook: str
    score: float
    matched: tuple[str, ...] = ()
    summary_ko: str = ""
    location_ko: str = ""
    time_ko: str = ""
    roles_ko: tuple[str, ...] = ()
    event_ko: str = ""
    emotion_ko: str = ""
    conflict_ko: str = ""
    hook_ko: str = ""

    @classmethod
    def from_row(cls, row: BeatRow, score: float, matched: tuple[str, ...] = ()) -> BeatHit:
        return cls(**row.model_dump(), score=float(score), matched=matched)

    def localized(self, language: str) -> BeatHit:
        """The hit with its text in ``language`` where the database has it (see
        :meth:`BeatRow.localized`: Korean columns for ``ko``, English otherwise)."""
        if language != "ko":
            return self
        update = {f: getattr(self, f"{f}_ko") for f in LOCALIZED_FIELDS if getattr(self, f"{f}_ko")}
        return replace(self, **update) if update else self


@dataclass(frozen=True)
class TropeArc:
    """A trope with all its beats in arc order: what plot planning puts in the prompt.

    ``score`` ranks arcs for a keyword query: one point per query keyword the trope carries
    exactly, half a point per partial match, plus the best beat's search score.
    """

    trope: str
    genre: str
    keywords: tuple[str, ...]
    beats: tuple[BeatRow, ...]
    score: float = 0.0
    matched: tuple[str, ...] = field(default=())

    def localized(self, language: str) -> TropeArc:
        """The arc with every beat in ``language`` where the database has it."""
        beats = tuple(b.localized(language) for b in self.beats)
        return replace(self, beats=beats)

    def stages(self) -> dict[str, list[BeatRow]]:
        """The beats grouped by stage, in arc order."""
        out: dict[str, list[BeatRow]] = {}
        for beat in self.beats:
            out.setdefault(beat.stage, []).append(beat)
        return out


def relevant_arcs(arcs: Iterable[TropeArc], min_similarity: float = TROPE_MIN_SIMILARITY) -> list[
    TropeArc
]:
    """The arcs worth putting in a planning prompt: those carrying one of the query's keywords,
    or scoring at least ``min_similarity`` (unrelated tropes would only mislead the planner)."""
    return [a for a in arcs if a.matched or a.score >= min_similarity]


def relevant_hits(
    hits: Iterable[BeatHit], language: str = "en", min_score: float | None = None
) -> list[BeatHit]:
    """The beat suggestions scoring at least ``min_score`` (default: the floor of
    :data:`BEAT_MIN_SCORES` for ``language``)."""
    floor = BEAT_MIN_SCORES.get(language, BEAT_MIN_SCORE) if min_score is None else min_score
    return [h for h in hits if h.score >= floor]
