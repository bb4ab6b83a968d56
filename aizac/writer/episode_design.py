"""An episode's beats in one call: the autopilot's plan and the beat editor's "plan this episode".

A planner whose capability profile declares larger structured replies (the same declaration as
the combined extraction, :func:`~aizac.writer.combined.combined_extraction_ok`: the API models)
gets one ``episode_beats`` call for the episode's beats instead of one call per beat. The beats
of an episode were designed from the same context anyway (nothing is accepted between them), so
one call loses nothing and lets the beats follow on from each other. The small embedded model
keeps one call per beat (:meth:`~aizac.writer.agent.WriterAgent.design`).

In co-writing (:meth:`~aizac.writer.agent.WriterAgent.plan_episode`) the writer still sees,
edits and accepts each beat. The design says what each beat adds to memory (as the autopilot's
does), kept with the draft: a beat accepted as designed commits it with no extraction call, a
beat the writer changed is extracted at its accept (issue 43). That memory does not restate
the design: its story facts are the beat's events and the threads it sets up
(:func:`designed_story`), the model writes only the rest. The fields a writer wrote in a
draft (its ``written`` fields) are told to the model as fixed, beat by beat, and put back
over its answer (:func:`~aizac.writer.locks.apply_locks`).

The reply has one field per beat (``beat_1`` .. ``beat_N``, all required), not a list: the
schema itself asks for exactly the episode's beats, and the quality check of the reply looks at
each beat's own fields as it does for one beat (an emotion that recurs across the beats of an
episode is not a degenerate repeat).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, ConfigDict, create_model

from aizac.errors import StructuredOutputError
from aizac.memory.references import Offer, PlacedStory, Reply
from aizac.writer import combined
from aizac.writer.characters import keep_plausible_names
from aizac.writer.checked import accepts_keyword
from aizac.writer.combined import refers
from aizac.writer.designed import Designed
from aizac.writer.extraction import ReferenceCheck, extracted_of, notes_of, offer_block
from aizac.writer.ports import Composer
from aizac.writer.schemas import BeatDesign, CharacterProfile, NovelBeat

MAX_BEATS = 12


class BeatDesignWithMemory(combined.BeatDesignWithCast):
    """A beat design with what the beat adds to memory: the autopilot's design and extraction
    of an episode in one planner call (``memory`` may be left out: that beat is then extracted
    on its own)."""

    memory: combined.DesignedMemory | None = None

    def design(self) -> BeatDesign:
        """The design without the profiles and the memory."""
        return BeatDesign(**self.model_dump(exclude={"new_characters", "memory"}))


SUMMARY_CHARS = 240
"""A summary's bound (the extraction's ``summary``, :data:`aizac.writer.schemas.Text`)."""


def summary_of(beat: NovelBeat) -> str:
    """The summary of a beat designed with its memory: its events, as the design says them
    (the memory asks for no summary of its own), cut to a summary's bound at a word."""
    text = " ".join(beat.events)
    if len(text) <= SUMMARY_CHARS:
        return text
    cut = text[:SUMMARY_CHARS]
    return (cut.rsplit(" ", 1)[0] if " " in cut else cut).rstrip()


def designed_story(beat: NovelBeat) -> list[PlacedStory]:
    """The story facts of a beat designed with its memory (pure): each of its events, and each
    thread it sets up as open foreshadowing. The design already says them, so the memory asks
    the model for neither (issue 43: an extraction restated the design)."""
    events = [PlacedStory(e.strip()) for e in beat.events if e.strip()]
    threads = [PlacedStory(t.strip(), foreshadow=True) for t in beat.sets_up if t.strip()]
    return events + threads


@lru_cache(maxsize=2 * MAX_BEATS)
def episode_schema(count: int, memory: bool = False) -> type[BaseModel]:
    """``EpisodeDesign`` with the fields ``beat_1`` .. ``beat_<count>`` (all required);
    ``memory``: each beat with its :class:`BeatDesignWithMemory` memory."""
    item = BeatDesignWithMemory if memory else combined.BeatDesignWithCast
    fields: dict[str, Any] = {f"beat_{n}": (item, ...) for n in range(1, count + 1)}
    return create_model("EpisodeDesign", __config__=ConfigDict(extra="forbid"), **fields)


def memory_request(prompts: Any, language: str, offer: Offer | None = None) -> str:
    """The ``$memory`` block of the episode prompt that asks for each beat's memory: the
    lead line, the field lines of the beat extraction's own prompt (one wording of what
    to record, for both calls), and what memory holds with the ids to refer by."""
    from aizac.writer.prompt_words import prompt_words

    words = prompt_words(language)
    template = prompts.get("extract_combined", language)
    # every field line but the summary's (the design's events are the beat's summary); the
    # story's only from its pays_off on (its events and threads are the design's own)
    lines = [_payoffs_only(line) for line in template.user.splitlines()
             if line.startswith("- ") and not line.startswith("- summary")]
    shown = ["", offer_block(offer, words)] if offer is not None else []
    return "\n" + "\n".join([words.labels["memory"], *lines, *shown])


def _payoffs_only(line: str) -> str:
    """The story line of the extraction prompt from its ``pays_off`` on; any other as it is."""
    if line.startswith("- story") and "pays_off" in line:
        return "- story: " + line[line.index("pays_off"):]
    return line


def _memory_notes(count: int) -> Callable[[BaseModel], Reply]:
    """The memory notes of an episode design: each beat's, at its path (``beat_2.memory.``)."""
    def notes(value: BaseModel) -> Reply:
        parts = [notes_of(memory, f"beat_{n}.memory.")
                 for n, item in enumerate(items_of(value, count), 1)
                 if (memory := getattr(item, "memory", None)) is not None]
        return Reply(*(tuple(x for p in parts for x in getattr(p, f))
                       for f in ("characters", "relations", "settings", "story", "payoffs",
                                 "people")))
    return notes


def _designed(agent: Any, schema: type[BaseModel], messages: Any,
              check: ReferenceCheck | None) -> tuple[BaseModel, bool]:
    """The planner's episode design, with the memory's references checked in its repair loop
    when ``check`` is given; ``(design, salvaged)``: when the repair turns ran out over
    references alone, the last design is kept and its memory read as it stands."""
    call = agent.router.structured
    if check is None or not accepts_keyword(call, "also"):
        return call("planner", schema, messages), check is not None
    try:
        return call("planner", schema, messages, also=check), False
    except StructuredOutputError:
        if check.value is None or check.quality:
            raise
        return check.value, True


def items_of(reply: BaseModel, count: int) -> list[Any]:
    """The per-beat items of an episode-wide reply, in order."""
    return [getattr(reply, f"beat_{n}") for n in range(1, count + 1)]


def designs_episodes(agent: Composer) -> bool:
    """Whether ``agent``'s planner designs an episode's beats in one call (its declared
    capability; ``agent.combined_extraction`` True/False forces it, as for the extraction)."""
    if agent.combined_extraction is not None:
        return agent.combined_extraction
    return combined.combined_extraction_ok(agent.router, role="planner")


def episode_request(
    instruction: str, episode: int, locked: Mapping[int, Mapping[str, Any]], words: Any
) -> str:
    """The ``$instruction`` block of the episode prompt: the writer's instruction, then each
    beat's fixed fields under its position (pure; "" when there is nothing to ask)."""
    from aizac.writer.locks import render_request

    parts = [render_request(instruction, {}, words).strip()]
    for index in sorted(locked):
        if locked[index]:
            fixed = render_request("", locked[index], words).strip()
            parts.append(f"[{episode}-{index}]\n{fixed}")
    text = "\n".join(p for p in parts if p)
    return "\n" + text + "\n" if text else ""


@dataclass(frozen=True)
class EpisodeDesign:
    """An episode's beats designed in one call: by index, each beat with the profiles of the
    characters it introduces, and the one context pack the prompt held."""

    beats: dict[int, tuple[NovelBeat, list[CharacterProfile]]]
    context: str

    def designs(self) -> dict[int, Designed]:
        """Each beat as a single design is (the same context for all)."""
        return {i: Designed(beat, profiles, self.context)
                for i, (beat, profiles) in self.beats.items()}


def design_episode(
    agent: Any, episode: int, indices: Sequence[int], instruction: str = "",
    locked: Mapping[int, Mapping[str, Any]] | None = None,
    memories: dict[int, Any] | None = None,
) -> EpisodeDesign:
    """Design the beats at ``indices`` of ``episode`` in one planner call.

    Returns the beats by index with the profiles of the characters each introduces (profiles
    the reply gives for known or absent names are dropped; a new name without a profile gets
    the profile call, as in :meth:`~aizac.writer.agent.WriterAgent.design`). ``locked``: by
    index, the fields that keep the writer's values (told to the model, then put back).
    ``memories``: a dict to fill with each beat's :class:`~aizac.writer.extraction.Extracted`
    from the same reply (the autopilot; the beats it leaves out get the extractor's call);
    ``None`` (co-writing: each accepted beat is extracted then) asks for none.
    """
    from aizac.writer.locks import apply_locks
    from aizac.writer.prompt_words import prompt_words

    wanted = sorted(indices)
    if not wanted or len(wanted) > MAX_BEATS:
        return EpisodeDesign({}, "")
    fixed = {i: dict(v) for i, v in (locked or {}).items() if v and i in wanted}
    request = episode_request(instruction, episode, fixed,
                              prompt_words(agent.info.language)) if fixed else None
    asked = memories is not None
    offer = agent.memory.offer(agent.present_cast()) if asked else None
    prompt = agent.design_prompt(
        episode, wanted[0], instruction, kind="episode_beats",
        first=wanted[0], last=wanted[-1], count=len(wanted),
        request=request,
        memory=memory_request(agent.prompts, agent.info.language, offer) if asked else "",
    )
    check = (ReferenceCheck(offer, agent.info.language, notes=_memory_notes(len(wanted)))
             if offer is not None else None)
    reply, salvaged = _designed(agent, episode_schema(len(wanted), asked), prompt.messages,
                                check)
    known = {k: list(v) for k, v in agent.memory.characters().items()}
    earlier: dict[str, CharacterProfile] = {}  # introduced by an earlier beat of the episode
    out: dict[int, tuple[NovelBeat, list[CharacterProfile]]] = {}
    for n, (index, item) in enumerate(zip(wanted, items_of(reply, len(wanted)), strict=True),
                                      1):
        design = keep_plausible_names(item.design())
        cast = item.model_copy(update={"characters": design.characters})
        given = combined.introduced_profiles(cast, known)
        beat = apply_locks(NovelBeat.place(design, episode, index), fixed.get(index, {}))
        # Someone an earlier beat introduced is known here: no second profile, no extra call.
        pending = [*given, *(p for n, p in earlier.items() if n in beat.characters)]
        profiles = [p for p in agent._new_characters(beat, pending, _quiet)
                    if p.name not in earlier]
        for profile in profiles:
            known.setdefault(profile.name, list(profile.aliases))
            earlier[profile.name] = profile
        out[index] = beat, profiles
        memory = getattr(item, "memory", None)
        if memories is not None and memory is not None and check is not None:
            prefix = f"beat_{n}.memory."
            part = check.resolution_of(notes_of(memory, prefix), salvage=salvaged)
            part.story.extend(designed_story(beat))
            memories[index] = extracted_of(memory, part, summary_of(beat), prefix=prefix,
                                           referred=refers(agent.router, "planner"))
    return EpisodeDesign(out, prompt.context)


def _quiet(_: str) -> None:
    return None


__all__ = [
    "MAX_BEATS",
    "BeatDesignWithMemory",
    "EpisodeDesign",
    "design_episode",
    "designed_story",
    "designs_episodes",
    "episode_schema",
    "items_of",
    "memory_request",
    "summary_of",
]
