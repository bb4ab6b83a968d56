"""One extraction call per beat: the four memory tags and the summary in one structured reply.

A model whose capability profile says it handles a larger structured reply
(``combined_extraction_ok``: the API models) gets one call that resends the beat once instead
of five times; the small embedded model keeps the per-tag calls of :func:`extraction.extract`
(it follows five short schemas far more reliably than one long one). The choice is the model's
declared capability (:func:`combined_extraction_ok`), never a guess from its output.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.messages import BaseMessage
from pydantic import BaseModel, ConfigDict, Field

from aizac.errors import AizacError
from aizac.llm.profiles import GENERIC, profile_of
from aizac.memory.references import Offer
from aizac.writer.characters import keep_plausible_names, resolved, unknown_names
from aizac.writer.checked import accepts_keyword
from aizac.writer.extraction import (
    Extracted,
    ReferenceCheck,
    ask_checked,
    extract,
    extracted_of,
    offer_block,
    prose_block,
)
from aizac.writer.ports import Router
from aizac.writer.prompt_words import prompt_words
from aizac.writer.prompts import PromptLibrary
from aizac.writer.schemas import (
    AddressFact,
    BeatDesign,
    CharacterExtraction,
    CharacterProfile,
    NovelBeat,
    PaidThread,
    RelationExtraction,
    SettingExtraction,
    StoryExtraction,
    Text,
    VoiceFact,
)


class BeatMemory(BaseModel):
    """What one beat adds to memory, without a summary: the memory an episode design carries
    per beat, whose own events already say what happens (a summary there had the model write
    the beat twice; the summary is made of the events instead)."""

    model_config = ConfigDict(extra="forbid")

    story: StoryExtraction = Field(default_factory=StoryExtraction)
    characters: CharacterExtraction = Field(default_factory=CharacterExtraction)
    relations: RelationExtraction = Field(default_factory=RelationExtraction)
    voices: list[VoiceFact] = Field(default_factory=list, max_length=2)
    speech: list[AddressFact] = Field(default_factory=list, max_length=4)
    settings: SettingExtraction = Field(default_factory=SettingExtraction)


class DesignedStory(BaseModel):
    """The story part of a designed beat's memory: only the listed threads it pays off. Its
    events and the threads it plants are the design's own ``events`` and ``sets_up``, made
    into story facts by code (:func:`aizac.writer.episode_design.designed_story`): the model
    is not asked to write them twice (issue 43)."""

    model_config = ConfigDict(extra="forbid")

    pays_off: list[PaidThread] = Field(default_factory=list, max_length=3)


class DesignedMemory(BaseModel):
    """What a beat designed with its memory adds to memory beyond its design: the changes of
    characters, relations, voices, speech and settings, and the threads it pays off (by the
    ids the prompt lists)."""

    model_config = ConfigDict(extra="forbid")

    story: DesignedStory = Field(default_factory=DesignedStory)
    characters: CharacterExtraction = Field(default_factory=CharacterExtraction)
    relations: RelationExtraction = Field(default_factory=RelationExtraction)
    voices: list[VoiceFact] = Field(default_factory=list, max_length=2)
    speech: list[AddressFact] = Field(default_factory=list, max_length=4)
    settings: SettingExtraction = Field(default_factory=SettingExtraction)


class BeatExtraction(BeatMemory):
    """Everything one accepted beat adds to memory, in one reply (references to what the
    prompt listed: :mod:`aizac.memory.references`)."""

    summary: Text


def combined_extraction_ok(router: Router, role: str = "extractor") -> bool:
    """Whether ``role``'s model declares that it handles one large structured reply.

    Read from the model's capability profile (``combined_extraction_ok``: the API models yes,
    the small embedded model no). A model aizac did not build and cannot recognise (provider
    ``other``: fakes, unknown classes) declares nothing and gets the per-tag calls, which
    every model handles.
    """
    profile = _profile(router, role)
    return (profile is not None and profile.combined_extraction_ok
            and profile.provider != GENERIC.provider)


def refers(router: Router, role: str = "extractor") -> bool:
    """Whether ``role``'s model answers with references to what it is shown: every model but
    the small embedded one (its declared profile), whose facts the store places by meaning."""
    profile = _profile(router, role)
    return profile is None or not profile.small_local


def _profile(router: Router, role: str) -> Any:
    try:
        model = router.model(role)
    except (AizacError, KeyError, AttributeError):
        return None
    return profile_of(model)


async def extract_combined(
    router: Router,
    beat: NovelBeat,
    *,
    offer: Offer,
    language: str,
    prompts: PromptLibrary,
    referred: bool = True,
    prose: str = "",
) -> Extracted:
    """Ask the extractor role for the four tags and the summary in one structured call
    (``prose``: the beat's text when it is the writer's own, an imported scene)."""
    words = prompt_words(language)  # the prompt's own language, not English
    messages = prompts.render("extract_combined", language, beat=beat.render(labels=words.labels),
                              characters=", ".join(m.name for m in offer.cast) or "-",
                              offer=offer_block(offer, words), prose=prose_block(prose, words))
    check = ReferenceCheck(offer, language)
    reply, resolution = await ask_checked(router, "extractor", BeatExtraction, messages, check)
    value = reply if reply is not None else check.value
    summary = str(getattr(value, "summary", "") or "")
    return extracted_of(value, resolution, summary, referred=referred, repairs=check.repairs)


class BeatDesignWithCast(BeatDesign):
    """A beat design with the profiles of the characters it introduces (one call, not two)."""

    new_characters: list[CharacterProfile] = Field(
        default_factory=list, max_length=3,
        description="a profile for each character in this beat who is not in the notes",
    )

    def design(self) -> BeatDesign:
        """The design without the profiles."""
        return BeatDesign(**self.model_dump(exclude={"new_characters"}))


def introduced_profiles(
    design: BeatDesignWithCast, known: Mapping[str, Sequence[str]]
) -> list[CharacterProfile]:
    """The design's profiles of characters its cast names and ``known`` does not (pure).

    A profile for someone already known or not in the cast is dropped; aliases that clash with
    anyone are removed (:func:`~aizac.writer.characters.settle_profile`). A new name without a
    profile here gets the separate profile call as before.
    """
    wanted = {" ".join(n.split()).casefold(): n for n in unknown_names(design.characters, known)}
    taken = {k: list(v) for k, v in known.items()}
    out: list[CharacterProfile] = []
    for profile in design.new_characters:
        name = wanted.pop(" ".join(profile.name.split()).casefold(), None)
        if name is None:
            continue
        settled = resolved(profile, name, taken)
        if settled.same_as:  # another name of someone listed: an alias, not a character
            taken[settled.same_as].append(settled.name)
        else:
            taken[settled.name] = list(settled.aliases)
        out.append(settled)
    return out


async def extract_beat(
    router: Router,
    beat: NovelBeat,
    *,
    offer: Offer,
    language: str,
    prompts: PromptLibrary,
    concurrent_calls: bool = True,
    combined: bool | None = None,
    prose: str = "",
) -> Extracted:
    """The beat's candidate memory, referring to ``offer``: one combined call when the
    extractor declares it can (``combined=None``), else the per-tag calls; ``combined``
    True/False forces one way. ``prose``: the scene's own text, shown with the beat (an
    imported scene: details only the writer's text holds, appearance, numbers, rules)."""
    if combined is None:
        combined = combined_extraction_ok(router)
    referred = refers(router)
    if combined:
        return await extract_combined(router, beat, offer=offer, language=language,
                                      prompts=prompts, referred=referred, prose=prose)
    return await extract(router, beat, offer=offer, language=language, prompts=prompts,
                         concurrent_calls=concurrent_calls, referred=referred, prose=prose)


def design_beat(
    router: Router,
    messages: list[BaseMessage],
    *,
    known: Mapping[str, Sequence[str]],
    with_cast: bool | None = None,
    fixed: Mapping[str, Any] | None = None,
) -> tuple[BeatDesign, list[CharacterProfile]]:
    """Ask the planner for a beat design (names that are sentences dropped) and, when the
    planner declares the capability (``with_cast=None``), the profiles of the characters it
    introduces in the same call. Returns the design and those profiles.

    ``fixed``: the writer's locked fields, which replace the model's afterwards; a router that
    checks quality (:class:`~aizac.writer.checked.CheckedRouter`) is told them, so the model's
    values there refuse nothing."""
    if with_cast is None:
        with_cast = combined_extraction_ok(router, role="planner")
    told = {"fixed": dict(fixed)} if fixed and accepts_keyword(router.structured, "fixed") else {}
    if not with_cast:
        return keep_plausible_names(router.structured("planner", BeatDesign, messages, **told)), []
    reply = router.structured("planner", BeatDesignWithCast, messages, **told)
    design = keep_plausible_names(reply.design())
    cast = reply.model_copy(update={"characters": design.characters})
    return design, introduced_profiles(cast, known)

