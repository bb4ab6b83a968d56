"""A beat designed before it is stored, and the prompt it was designed from (plain values, so
what a design used travels with it instead of through an object's field between two calls)."""

from __future__ import annotations

from typing import Any, NamedTuple

from aizac.writer.schemas import CharacterProfile, NovelBeat


class DesignPrompt(NamedTuple):
    """The planner's prompt for a design, and the context pack it holds."""

    messages: list[Any]
    context: str


class Designed(NamedTuple):
    """A beat designed (not yet stored): the beat, the profiles of the characters it
    introduces, and the context pack it was written from (whose memories are reinforced only
    if this design is stored and accepted: :func:`accepting.keep_context`)."""

    beat: NovelBeat
    profiles: list[CharacterProfile]
    context: str
