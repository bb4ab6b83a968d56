"""The cliché and beat database: web-novel tropes and their standard beats (``beats.csv``).

``ClicheDB`` loads the CSV into its own Chroma collection and answers four questions: similar
beats (``search``), beats carrying keywords (``by_keywords``), tropes that fit a plan's keywords
with their whole arcs (``expand_keywords``) and what could happen next (``suggest_next``).
"""

from aizac.cliches.db import ClicheDB, split_keywords
from aizac.cliches.models import (
    BEAT_MIN_SCORE,
    GENRE_ALIASES,
    TROPE_MIN_SIMILARITY,
    BeatHit,
    TropeArc,
    relevant_arcs,
    relevant_hits,
    resolve_genre,
)
from aizac.cliches.render import genre_name, render_tropes_for_prompt
from aizac.cliches.schema import (
    COLUMNS,
    KO_COLUMNS,
    LIST_SEP,
    STAGE_ALIASES,
    STAGES,
    BeatRow,
    load_beats,
    parse_beats,
    resolve_stage,
)
from aizac.cliches.view import ProjectCliches

__all__ = [
    "BEAT_MIN_SCORE",
    "COLUMNS",
    "GENRE_ALIASES",
    "KO_COLUMNS",
    "LIST_SEP",
    "STAGES",
    "STAGE_ALIASES",
    "TROPE_MIN_SIMILARITY",
    "BeatHit",
    "BeatRow",
    "ClicheDB",
    "ProjectCliches",
    "TropeArc",
    "genre_name",
    "load_beats",
    "parse_beats",
    "relevant_arcs",
    "relevant_hits",
    "render_tropes_for_prompt",
    "resolve_genre",
    "resolve_stage",
    "split_keywords",
]
