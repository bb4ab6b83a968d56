"""Render trope arcs for a planning prompt within a token budget, in the project's language (pure).

Korean projects get the Korean columns of the database and Korean labels; Chinese projects get
Chinese labels around the English text (the database has no Chinese columns); others get English.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from aizac.cliches.models import GENRE_ALIASES, TropeArc
from aizac.tokens import count_tokens

_HANGUL = re.compile(r"[\uac00-\ud7af]")
_LATIN = re.compile(r"[A-Za-z]")

ENGLISH: dict[str, str] = {"keywords": " — keywords: ", "conflict": "conflict: ",
                           "hook": "; hook: ", "open": " (", "close": ")", "sep": ", "}
"""The words around a trope's lines when the caller gives none (the writer gives its prompt
language's, :attr:`aizac.writer.prompt_words.PromptWords.cliches`)."""


def genre_name(genre: str, language: str) -> str:
    """A genre slug in Korean for ``ko`` (its first Korean alias), else the slug."""
    if language == "ko":
        for alias in GENRE_ALIASES.get(genre, ()):
            if _HANGUL.search(alias):
                return alias
    return genre


def arc_lines(arc: TropeArc, language: str = "en", labels: Mapping[str, str] | None = None,
              stages: Mapping[str, str] | None = None) -> list[str]:
    """One header line for the trope, then one line per beat in arc order, with ``labels``
    and ``stages`` in the prompt's language (English words and stage slugs by default).

    Korean arcs are named by their Korean keywords (the slug is for code, not for the model).
    """
    lab = {**ENGLISH, **(labels or {})}
    stage_names = stages or {}
    arc = arc.localized(language)
    if language == "ko":
        words = [k for k in arc.keywords if _HANGUL.search(k) and not _LATIN.search(k)]
        header = f"## {'·'.join(words[:3])} ({genre_name(arc.genre, language)})"
        header += lab["keywords"] + ", ".join(words)
    elif language == "zh":  # no Chinese names for tropes or genres: the keywords name it
        header = f"## {lab['sep'].join(arc.keywords[:3])}"
        header += lab["keywords"] + lab["sep"].join(arc.keywords)
    else:
        header = f"## {arc.trope}{lab['open']}{arc.genre}{lab['close']}"
        header += lab["keywords"] + lab["sep"].join(arc.keywords)
    lines = [header]
    for beat in arc.beats:
        lines.append(
            f"- [{stage_names.get(beat.stage, beat.stage)}] {beat.summary}{lab['open']}"
            f"{lab['conflict']}{beat.conflict}{lab['hook']}{beat.hook}{lab['close']}"
        )
    return lines


def render_tropes_for_prompt(
    arcs: Sequence[TropeArc], max_tokens: int, language: str = "en", *,
    labels: Mapping[str, str] | None = None, stages: Mapping[str, str] | None = None,
) -> str:
    """The arcs as Markdown-ish text of at most ``max_tokens`` (estimated) tokens.

    Whole lines are kept in order: when the budget runs out mid-arc, that arc's later beats and
    all later arcs are dropped (a trope header is never emitted without at least one beat).
    """
    out: list[str] = []
    used = 0
    for arc in arcs:
        lines = arc_lines(arc, language, labels, stages)
        header, beats = lines[0], lines[1:]
        cost = count_tokens(header) + (count_tokens(beats[0]) if beats else 0)
        if used + cost > max_tokens:
            break
        if out:
            out.append("")
        out.append(header)
        used += count_tokens(header)
        for line in beats:
            c = count_tokens(line)
            if used + c > max_tokens:
                return "\n".join(out)
            out.append(line)
            used += c
    return "\n".join(out)
