"""The commit node's work: an episode's beats, memories and prose become canon, idempotently.

Each beat goes through the co-writing core's accept unit of work
(:func:`aizac.writer.accepting.commit_accept` and its journal), so a kill anywhere is finished
or undone by :func:`~aizac.writer.accepting.recover`. Replaying the node checks what the store
already holds at each position: an accepted beat is never accepted again, a stored draft is
reused (never added twice), prose already saved is left alone.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from aizac.errors import ConflictError
from aizac.storage.killpoints import checkpoint
from aizac.writer import accepting, extraction
from aizac.writer.project import BeatRecord
from aizac.writer.schemas import CharacterProfile, NovelBeat

COMMIT_STEPS = ("autopilot:drafted", "autopilot:accepted", "autopilot:prose-saved")
"""Kill points of the commit node (crash trials)."""


def dump_extracted(found: extraction.Extracted) -> dict[str, Any]:
    """An extraction as plain data for the run's checkpointed state."""
    return found.dump()


def load_extracted(data: Mapping[str, Any]) -> extraction.Extracted:
    """An extraction from the run's state (:func:`dump_extracted`)."""
    return extraction.Extracted.load(data)


def commit_episode(
    agent: Any, beats: list[dict[str, Any]], profiles: list[list[dict[str, Any]]],
    prose: Mapping[str, str], candidates: Mapping[str, Mapping[str, Any]],
    held_voices: Collection[str] = (), written: list[list[str]] | None = None,
) -> list[int]:
    """Accept every planned beat in order with its candidates and save its prose; the stored
    beat ids. Safe to run again after a kill at any point. ``held_voices``: the pair voices
    the last check found lines against; no human said the change is meant, so the episode's
    lines do not supersede them. ``written``: per beat, the fields the writer wrote (kept
    with the accepted beat, as the beat editor keeps them)."""
    store, memory = agent.store, agent.memory
    ids: list[int] = []
    with store.lock():
        accepting.recover(store, memory)
        for n, data in enumerate(beats):
            beat = NovelBeat.model_validate(data)
            cast = [CharacterProfile.model_validate(p) for p in (profiles[n] if n < len(profiles)
                                                                 else [])]
            mine = (written or [])[n] if n < len(written or []) else None
            record = _accepted(agent, beat) or _accept(
                agent, beat, cast, load_extracted(candidates.get(str(beat.index), {})),
                held_voices, mine,
            )
            text = prose.get(str(beat.index), "")
            if text and not record.prose:
                record = store.save_prose(record.id, text, expected_version=record.version)
                style = getattr(agent, "style", None)
                if style is not None:  # the model's draft: what drift is measured on
                    style.drafted(record.id, "prose", text, episode=beat.episode,
                                  index=beat.index)
            checkpoint("autopilot:prose-saved")
            ids.append(record.id)
        if beats:
            first = NovelBeat.model_validate(beats[0])
            plot = store.plot()
            if first.index == 1 and plot is not None:
                store.set_episode_title(first.episode, plot.plot.episode_plan(first.episode)[:80])
    return ids


def _accepted(agent: Any, beat: NovelBeat) -> BeatRecord | None:
    """The accepted beat at ``beat``'s position, if the store already holds one."""
    for record in agent.store.beats(episode=beat.episode, status="accepted"):
        if record.index == beat.index:
            return record
    return None


def _accept(
    agent: Any, beat: NovelBeat, cast: list[CharacterProfile], found: extraction.Extracted,
    held_voices: Collection[str] = (), written: list[str] | None = None,
) -> BeatRecord:
    store, memory = agent.store, agent.memory
    if (beat.episode, beat.index) != agent.next_position():
        raise ConflictError("error.autopilot.not_next", where=f"{beat.episode}-{beat.index}",
                            story=str(agent.next_position()))
    record = store.draft_at(beat.episode, beat.index)
    if record is None:
        record = store.add_draft(beat, new_characters=cast, instruction="autopilot",
                                 written=written)
    elif record.beat != beat or (written is not None and record.written != written):
        record = store.update_draft(record.id, beat, expected_version=record.version,
                                    new_characters=cast, instruction="autopilot",
                                    written=written)
    checkpoint("autopilot:drafted")
    batch, future = extraction.stage(memory, found, record.beat, new_characters=cast,
                                     language=agent.info.language, held_voices=held_voices)
    done = accepting.commit_accept(store, memory, record, batch, future, found.summary)
    checkpoint("autopilot:accepted")
    return done
