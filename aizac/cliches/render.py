"""Render trope arcs for a planning prompt within a token budget (pure)."""

from __future__ import annotations

from collections.abc import Sequence

from aizac.cliches.models import TropeArc
from aizac.tokens import count_tokens


def arc_lines(arc: TropeArc) -> list[str]:
    """One header line for the trope, then one line per beat in arc order."""
    lines = [f"## {arc.trope} ({arc.genre}) — keywords: {', '.join(arc.keywords)}"]
    for beat in arc.beats:
        lines.append(
            f"- [{beat.stage}] {beat.summary} (conflict: {beat.conflict}; hook: {beat.hook})"
        )
    return lines


def render_tropes_for_prompt(arcs: Sequence[TropeArc], max_tokens: int) -> str:
    """The arcs as Markdown-ish text of at most ``max_tokens`` (estimated) tokens.

    Whole lines are kept in order: when the budget runs out mid-arc, that arc's later beats and
    all later arcs are dropped (a trope header is never emitted without at least one beat).
    """
    out: list[str] = []
    used = 0
    for arc in arcs:
        lines = arc_lines(arc)
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
