"""The prompt of a beat's illustration or of the cover, drawn from the project's memory.

The one place that joins the reads (:mod:`aizac.illustration.sources`), the story-time filter
(:mod:`aizac.illustration.looks`) and the prompt assembly (:mod:`aizac.illustration.prompts`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from aizac.illustration.looks import Look, Position, look_at, world_at
from aizac.illustration.prompts import ImagePrompt, cover_prompt, scene_prompt
from aizac.illustration.sources import FactMemory, appearance_facts, canonical, world_facts

COVER_AT: Position = (1, 1_000)
"""A cover shows the cast as the first episode leaves them (1,000 is past any beat index):
nothing a reader learns later is on it."""
COVER_CAST = 3
"""How many of the plan's characters (the main ones come first) a cover prompt describes."""


def looks_at(memory: FactMemory, names: Sequence[str], where: Position) -> list[Look]:
    """The looks of ``names`` at ``where``, one per character (aliases resolved)."""
    out: list[Look] = []
    seen: set[str] = set()
    for raw in names:
        name = canonical(memory, raw)
        if not name.strip() or name in seen:
            continue
        seen.add(name)
        out.append(look_at(name, appearance_facts(memory, name), where))
    return out


def scene_text(beat: Any) -> str:
    """What a scene names (its place, time, events, lines): what a world fact must touch."""
    parts = [beat.location, beat.time, *beat.events, *(d.line for d in beat.dialogue),
             *beat.conflicts]
    return " ".join(p for p in parts if p)


def prompt_for_beat(memory: FactMemory, beat: Any, *, language: str,
                    style: str = "") -> ImagePrompt:
    """The prompt of ``beat``'s illustration, as the story stood at that beat."""
    where: Position = (beat.episode, beat.index)
    looks = looks_at(memory, beat.characters, where)
    world = world_at(world_facts(memory), where, scene_text(beat))
    return scene_prompt(beat, looks, world, language=language, style=style)


def prompt_for_cover(memory: FactMemory, plot: Any, *, language: str, keywords: Sequence[str],
                     author: str = "", style: str = "") -> ImagePrompt:
    """The cover's prompt from the plan's title and genre, the writer's keywords and the main
    cast's looks at the opening (:data:`COVER_AT`)."""
    names = [c.name for c in plot.characters][:COVER_CAST]
    return cover_prompt(plot.title, genre=plot.genre, keywords=list(keywords),
                        looks=looks_at(memory, names, COVER_AT), language=language,
                        author=author, style=style)


__all__ = ["COVER_AT", "looks_at", "prompt_for_beat", "prompt_for_cover", "scene_text"]
