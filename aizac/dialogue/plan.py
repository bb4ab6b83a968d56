"""The dialogue controller: a scene with three or more speakers is planned before its prose.

:func:`needs_plan` says when (three or more distinct speakers in the beat's planned lines).
:func:`plan_dialogue` asks the ``planner`` role for a :class:`DialoguePlan` — turn order, who
answers whom, what each wants from the exchange — with the speakers' voice notes in the prompt;
:func:`settle_plan` keeps the turns whose speaker and listener are the scene's speakers (model
output is checked, not trusted). The prose writer then gets the plan and the voice notes of the
speakers only (:mod:`aizac.dialogue.prompt`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import Field

from aizac.dialogue.lines import beat_speakers
from aizac.llm.closed_schema import ClosedSchema, Name, Short
from aizac.memory.facts import name_key

MIN_SPEAKERS = 3
"""Speakers from which a beat's dialogue is planned as its own step."""
MAX_TURNS = 8
"""Turns a plan may have (the schema's bound, so a small model's answer ends)."""


class PlanTurn(ClosedSchema):
    """One turn of a planned exchange."""

    speaker: Name
    to: Name = Field(description="who the line is said to (a speaker of the scene)")
    wants: Short = Field(description="what the speaker wants from the exchange")
    gist: Short = Field(description="what the line says, in a few words")


class DialoguePlan(ClosedSchema):
    """The exchange of a scene with three or more speakers, turn by turn."""

    turns: list[PlanTurn] = Field(min_length=1, max_length=MAX_TURNS)

__all__ = [
    "MIN_SPEAKERS",
    "DialoguePlan",
    "PlanTurn",
    "needs_plan",
    "plan_dialogue",
    "settle_plan",
]


def needs_plan(beat: Any) -> bool:
    """Whether ``beat``'s dialogue is planned first (:data:`MIN_SPEAKERS` or more speakers)."""
    return len(beat_speakers(beat)) >= MIN_SPEAKERS


def settle_plan(plan: DialoguePlan, speakers: Sequence[str]) -> DialoguePlan | None:
    """The plan's turns between the scene's speakers (names as the beat writes them), or
    ``None`` when none is left."""
    known = {name_key(s): s for s in speakers}
    turns = [
        PlanTurn(speaker=known[name_key(t.speaker)], to=known[name_key(t.to)], wants=t.wants,
                 gist=t.gist)
        for t in plan.turns
        if name_key(t.speaker) in known and name_key(t.to) in known
        and name_key(t.speaker) != name_key(t.to)
    ]
    return DialoguePlan(turns=turns) if turns else None


def plan_dialogue(router: Any, prompts: Any, beat: Any, *, language: str, scene: str,
                  voices: str) -> DialoguePlan | None:
    """The dialogue plan of ``beat`` from the planner role (one structured call), settled on
    the beat's speakers."""
    speakers = beat_speakers(beat)
    messages = prompts.render(
        "dialogue_plan", language, scene=scene, speakers=", ".join(speakers),
        voices=voices or "-", turns=min(MAX_TURNS, max(len(speakers) + 1, len(beat.dialogue))),
    )
    plan = router.structured("planner", DialoguePlan, messages)
    return settle_plan(plan, speakers)
