"""Story made elsewhere becoming canon through the one way in: the autopilot's planned episode
(and, next, an imported manuscript).

:func:`commit_planned` runs under the project's lock, which
:meth:`aizac.application.ApplicationService.commit_planned` holds. Each beat is placed as a draft,
accepted through :meth:`~aizac.writer.agent.WriterAgent.commit_extracted` (the second half of
every accept: one journaled unit of work) and given its prose. Running it again after a kill
checks what the store already holds at each position: an accepted beat is never accepted again,
a stored draft is reused (never added twice), prose already saved is left alone.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from aizac.storage.killpoints import checkpoint
from aizac.writer import accepting
from aizac.writer.agent import WriterAgent
from aizac.writer.extraction import Extracted
from aizac.writer.project import BeatRecord
from aizac.writer.schemas import CharacterProfile, NovelBeat

COMMIT_STEPS = ("autopilot:drafted", "autopilot:accepted", "autopilot:prose-saved")
"""Kill points of a planned commit (crash trials; named for the autopilot, its first user)."""


@dataclass(frozen=True)
class PlannedBeat:
    """One beat designed, extracted and (optionally) written before it is committed.

    Attributes:
        beat: the beat at its position.
        cast: the characters it introduces.
        found: its extraction (the candidates its acceptance commits).
        prose: its prose, or ``""``.
        written: the fields the writer wrote (kept with the beat as the beat editor keeps
            them); ``None``: leave the stored draft's as they are.
        instruction: what the draft says made it (``autopilot``).
    """

    beat: NovelBeat
    cast: Sequence[CharacterProfile] = ()
    found: Extracted = field(default_factory=Extracted)
    prose: str = ""
    written: list[str] | None = None
    instruction: str = "autopilot"


@dataclass(frozen=True)
class Committed:
    """A planned beat as the store holds it after the commit; ``new``: accepted by this
    call (not by an earlier, killed one)."""

    record: BeatRecord
    new: bool


def commit_planned(
    agent: WriterAgent, planned: Sequence[PlannedBeat], held_voices: Collection[str] = ()
) -> list[Committed]:
    """Accept every planned beat in story order and save its prose (call under the project's
    lock). ``held_voices``: pair voices the episode's lines must not supersede (no human said
    the change is meant)."""
    store = agent.store
    accepting.recover(store, agent.memory)
    out: list[Committed] = []
    for plan in planned:
        record, new = _accepted_at(agent, plan.beat), False
        if record is None:
            draft = agent.place_planned(plan.beat, plan.cast, instruction=plan.instruction,
                                        written=plan.written)
            checkpoint("autopilot:drafted")
            record = agent.commit_extracted(draft, plan.found, plan.cast,
                                            held_voices=held_voices)
            checkpoint("autopilot:accepted")
            new = True
        if plan.prose and not record.prose:
            record = store.save_prose(record.id, plan.prose, expected_version=record.version)
            # the model's draft: what the writer's drift is measured on
            agent.style.drafted(record.id, "prose", plan.prose, episode=record.episode,
                                index=record.index)
        checkpoint("autopilot:prose-saved")
        out.append(Committed(record, new))
    if planned and planned[0].beat.index == 1:
        plot = store.plot()
        if plot is not None:
            episode = planned[0].beat.episode
            store.set_episode_title(episode, plot.plot.episode_plan(episode)[:80])
    return out


def _accepted_at(agent: WriterAgent, beat: NovelBeat) -> BeatRecord | None:
    """The accepted beat at ``beat``'s position, if the store already holds one."""
    for record in agent.store.beats(episode=beat.episode, status="accepted"):
        if record.index == beat.index:
            return record
    return None
