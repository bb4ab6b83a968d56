"""The autopilot's extraction in one call: the candidate memories of an episode's beats together.

An extractor whose capability profile declares larger structured replies (the declaration behind
the combined extraction, :func:`~aizac.writer.combined.combined_extraction_ok`) gets one
``extract_episode`` call for the episode's beats, one :class:`~aizac.writer.combined.
BeatExtraction` per beat (fields ``beat_1`` .. ``beat_N``, all required, as for
:func:`~aizac.writer.episode_design.episode_schema`), instead of one call per beat. The
small embedded model keeps the per-beat (per-tag) calls.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any, cast

from pydantic import BaseModel, ConfigDict, create_model

from aizac.memory.references import Offer, Reply
from aizac.writer import combined
from aizac.writer.episode_design import items_of
from aizac.writer.extraction import (
    Extracted,
    ReferenceCheck,
    ask_checked,
    extracted_of,
    notes_of,
    offer_block,
)
from aizac.writer.extraction import (
    newcomers as extraction_newcomers,
)
from aizac.writer.prompt_words import prompt_words
from aizac.writer.schemas import CharacterProfile, NovelBeat

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


def episode_offer(agent: Any, beats: Sequence[NovelBeat],
                  newcomers: Sequence[CharacterProfile] = ()) -> Offer:
    """What the extraction of an episode's beats is shown of memory: one offer for them all
    (the cast of every beat, the characters they introduce)."""
    words = prompt_words(agent.info.language)
    names = list(dict.fromkeys(n for b in beats for n in b.characters))
    text = "\n".join(b.render(labels=words.labels) for b in beats)
    return cast(Offer, agent.memory.offer(names, text, newcomers=extraction_newcomers(newcomers)))


async def extract_episode(
    router: Any, beats: Sequence[NovelBeat], *, offer: Offer, language: str, prompts: Any,
) -> dict[int, Extracted]:
    """The candidates of ``beats`` (one episode) from one extractor call, by beat index; the
    reply refers to ``offer`` (one offer for every beat: a change in an earlier beat of the
    episode is superseded in a later one by its slot, at commit)."""
    if not beats or len(beats) > MAX_BEATS:
        return {}
    words = prompt_words(language)
    messages = prompts.render(
        "extract_episode", language,
        beats="\n\n".join(b.render(labels=words.labels) for b in beats),
        characters=", ".join(m.name for m in offer.cast) or "-", count=len(beats),
        offer=offer_block(offer, words),
    )
    check = ReferenceCheck(offer, language, notes=_episode_notes(len(beats)))
    reply, _ = await ask_checked(router, "extractor", extraction_schema(len(beats)), messages,
                                 check)
    salvaged = reply is None
    value = reply if reply is not None else check.value
    if value is None:
        return {}
    out: dict[int, Extracted] = {}
    for n, (beat, item) in enumerate(zip(beats, items_of(value, len(beats)), strict=True), 1):
        prefix = f"beat_{n}."
        part = check.resolution_of(notes_of(item, prefix), salvage=salvaged)
        out[beat.index] = extracted_of(item, part, str(item.summary), prefix=prefix,
                                       repairs=check.repairs if n == 1 else 0)
    return out


def _episode_notes(count: int) -> Callable[[BaseModel], Reply]:
    """The notes of an episode reply: every beat's, each at its path (``beat_2.``)."""
    def notes(value: BaseModel) -> Reply:
        parts = [notes_of(item, f"beat_{n}.")
                 for n, item in enumerate(items_of(value, count), 1)]
        return Reply(*(tuple(x for p in parts for x in getattr(p, f))
                       for f in ("characters", "relations", "settings", "story", "payoffs",
                                 "people")))
    return notes


__all__ = ["MAX_BEATS", "episode_offer", "extract_episode", "extraction_schema",
           "extracts_episodes"]
