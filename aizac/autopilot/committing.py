"""The commit node's work: an episode's beats, memories and prose become canon, idempotently.

The run's checkpointed state (plain data) becomes :class:`~aizac.application.planned.PlannedBeat`
values committed through the one way in, :meth:`ApplicationService.commit_planned
<aizac.application.ApplicationService.commit_planned>`: under the project's lock, each beat
through the accept unit of work and its journal, each acceptance a node of the history.
Replaying the node after a kill checks what the store already holds at each position.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Any

from aizac.application.planned import COMMIT_STEPS, PlannedBeat
from aizac.writer import extraction
from aizac.writer.schemas import CharacterProfile, NovelBeat

if TYPE_CHECKING:
    from aizac.application.service import ApplicationService

__all__ = ["COMMIT_STEPS", "commit_episode", "dump_extracted", "load_extracted"]


def dump_extracted(found: extraction.Extracted) -> dict[str, Any]:
    """An extraction as plain data for the run's checkpointed state."""
    return found.dump()


def load_extracted(data: Mapping[str, Any]) -> extraction.Extracted:
    """An extraction from the run's state (:func:`dump_extracted`)."""
    return extraction.Extracted.load(data)


def commit_episode(
    door: ApplicationService, project: str, beats: list[dict[str, Any]],
    profiles: list[list[dict[str, Any]]], prose: Mapping[str, str],
    candidates: Mapping[str, Mapping[str, Any]], held_voices: Collection[str] = (),
    written: list[list[str]] | None = None,
) -> list[int]:
    """Accept every planned beat in order with its candidates and save its prose; the stored
    beat ids. Safe to run again after a kill at any point. ``held_voices``: the pair voices
    the last check found lines against; no human said the change is meant, so the episode's
    lines do not supersede them. ``written``: per beat, the fields the writer wrote (kept
    with the accepted beat, as the beat editor keeps them)."""
    planned = []
    for n, data in enumerate(beats):
        beat = NovelBeat.model_validate(data)
        cast = [CharacterProfile.model_validate(p) for p in (profiles[n] if n < len(profiles)
                                                             else [])]
        planned.append(PlannedBeat(
            beat=beat, cast=cast, found=load_extracted(candidates.get(str(beat.index), {})),
            prose=prose.get(str(beat.index), ""),
            written=(written or [])[n] if n < len(written or []) else None,
        ))
    return [record.id for record in door.commit_planned(project, planned, held_voices)]
