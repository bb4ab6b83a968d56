"""The autopilot's extraction in one call: the candidate memories of an episode's beats together.

An extractor whose capability profile declares larger structured replies (the declaration behind
the combined extraction, :func:`~aizac.writer.combined.combined_extraction_ok`) gets one
``extract_episode`` call for the episode's beats, one :class:`~aizac.writer.combined.
BeatExtraction` per beat (fields ``beat_1`` .. ``beat_N``, all required, as for
:func:`~aizac.writer.episode_design.episode_schema`), instead of one call per beat. The
small embedded model keeps the per-beat (per-tag) calls.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, ConfigDict, create_model

from aizac.writer import combined
from aizac.writer.episode_design import items_of
from aizac.writer.extraction import Extracted
from aizac.writer.prompt_words import prompt_words
from aizac.writer.schemas import NovelBeat

MAX_BEATS = 12


@lru_cache(maxsize=MAX_BEATS)
def extraction_schema(count: int) -> type[BaseModel]:
    """``EpisodeExtraction`` with the fields ``beat_1`` .. ``beat_<count>`` (all required)."""
    fields: dict[str, Any] = {f"beat_{n}": (combined.BeatExtraction, ...)
                              for n in range(1, count + 1)}
    return create_model("EpisodeExtraction", __config__=ConfigDict(extra="forbid"), **fields)


def extracts_episodes(agent: Any) -> bool:
    """Whether ``agent``'s extractor takes an episode's beats in one call (its declared
    capability; ``agent.combined_extraction`` True/False forces it)."""
    forced = getattr(agent, "combined_extraction", None)
    if forced is not None:
        return bool(forced)
    return combined.combined_extraction_ok(agent.router)


async def extract_episode(
    router: Any, beats: Sequence[NovelBeat], *, known: Sequence[str], language: str,
    prompts: Any,
) -> dict[int, Extracted]:
    """The candidates of ``beats`` (one episode) from one extractor call, by beat index."""
    if not beats or len(beats) > MAX_BEATS:
        return {}
    names = ", ".join(dict.fromkeys([*known, *(n for b in beats for n in b.characters)])) or "-"
    messages = prompts.render(
        "extract_episode", language,
        beats="\n\n".join(b.render(labels=prompt_words(language).labels) for b in beats),
        characters=names, count=len(beats),
    )
    reply = await router.astructured("extractor", extraction_schema(len(beats)), messages)
    items = items_of(reply, len(beats))
    return {beat.index: item.extracted() for beat, item in zip(beats, items, strict=True)}


__all__ = ["MAX_BEATS", "extract_episode", "extraction_schema", "extracts_episodes"]
