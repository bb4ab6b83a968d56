"""The cliché and beat database: web-novel tropes and their standard beats (``beats.csv``).

``ClicheDB`` loads the CSV into its own Chroma collection and answers four questions: similar
beats (``search``), beats carrying keywords (``by_keywords``), tropes that fit a plan's keywords
with their whole arcs (``expand_keywords``) and what could happen next (``suggest_next``).
"""

from aizac.cliches.db import ClicheDB, split_keywords
from aizac.cliches.models import GENRE_ALIASES, BeatHit, TropeArc, resolve_genre
from aizac.cliches.render import render_tropes_for_prompt
from aizac.cliches.schema import (
    COLUMNS,
    LIST_SEP,
    STAGE_ALIASES,
    STAGES,
    BeatRow,
    load_beats,
    parse_beats,
    resolve_stage,
)

__all__ = [
    "COLUMNS",
    "GENRE_ALIASES",
    "LIST_SEP",
    "STAGES",
    "STAGE_ALIASES",
    "BeatHit",
    "BeatRow",
    "ClicheDB",
    "TropeArc",
    "load_beats",
    "parse_beats",
    "render_tropes_for_prompt",
    "resolve_genre",
    "resolve_stage",
    "split_keywords",
]
