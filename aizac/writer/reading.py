"""Reading one scene of an imported manuscript into memory: the writer's text becomes a beat.

An imported scene is an accepted beat whose design is a placeholder
(:data:`~aizac.writer.project_rows.UNREAD_CAST`) and whose prose is the writer's own. Reading it
makes what an accept makes of a designed beat, from the text instead of a design:

1. the extractor role reads the prose with what the memory already knows (its
   :class:`~aizac.memory.references.Offer` with ids, and the story so far) and answers with a
   beat design (place, time, cast by the names the memory knows them by, events, lines...)
   and profiles of the characters new to the memory (:class:`~aizac.writer.combined.
   BeatDesignWithCast`), validated and retried by the router's structured path;
2. the extraction, exactly as an accept's (:func:`~aizac.writer.combined.extract_beat` with
   :meth:`~aizac.writer.agent.WriterAgent.offer_for`), shown the prose too;
3. the commit as one unit (:func:`~aizac.writer.accepting.commit_read`).

The read call is the extractor's, not the planner's: it reads and reports what a text says, as
the extraction does, invents nothing, and a serial of hundreds of scenes should run on the
model that is configured (and priced) for reading. A reply that names no one keeps the scene
unread-looking cast out: names that are not names are dropped, and a cast left empty falls back
to the memory's characters the prose names.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from aizac.llm.runtime import run_sync
from aizac.storage.killpoints import checkpoint
from aizac.text import Text
from aizac.writer import accepting, combined
from aizac.writer.characters import keep_plausible_names
from aizac.writer.extraction import (
    Extracted,
    canonical_names,
    name_key,
    offer_block,
    stage,
)
from aizac.writer.project import BeatRecord
from aizac.writer.project_rows import UNREAD_CAST
from aizac.writer.prompt_words import prompt_words
from aizac.writer.rules import story_genre
from aizac.writer.schemas import CharacterProfile, NovelBeat

if TYPE_CHECKING:
    from aizac.writer.agent import WriterAgent

Progress = Callable[[Text], None]
PROSE_LIMIT = 12_000
"""Characters of a scene a read prompt carries at most (a scene is an episode's part; one that
long is cut, its opening kept)."""
NAMED_LIMIT = 8
"""Known characters a read prompt offers at most: those the prose names, most named first."""
STORY_ITEMS = 3
"""Summaries of the scenes just read that the read prompt carries as the story so far."""


@dataclass(frozen=True)
class ReadScene:
    """What reading one imported scene found, before it is committed."""

    record: BeatRecord
    beat: NovelBeat
    profiles: list[CharacterProfile]
    found: Extracted


def named_in(prose: str, known: Mapping[str, Sequence[str]], limit: int = NAMED_LIMIT
             ) -> list[str]:
    """The known characters ``prose`` names (by name or alias), most often named first (pure).

    A plain substring count: a Korean name is followed by its particle (``한서아는``), so word
    boundaries would miss it."""
    counts = {name: max(prose.count(n) for n in (name, *aliases) if n.strip())
              for name, aliases in known.items() if name.strip()}
    named = sorted((n for n, c in counts.items() if c), key=lambda n: -counts[n])
    return named[:limit]


def canonical_cast(names: Sequence[str], known: Mapping[str, Sequence[str]]) -> list[str]:
    """``names`` as the memory knows them (an alias becomes its character's name), without
    the unread placeholder and repeats (pure)."""
    canon = canonical_names(known)
    out: list[str] = []
    for raw in names:
        if not raw.strip() or raw.strip() == UNREAD_CAST:
            continue
        name = canon.get(name_key(raw), " ".join(raw.split()))
        if name_key(name) not in {name_key(n) for n in out}:
            out.append(name)
    return out


def read_scene(agent: WriterAgent, record: BeatRecord, say: Progress) -> ReadScene:
    """Read the imported scene ``record`` (its prose) into a beat design, the profiles of its
    newcomers and its extraction; nothing is written."""
    prose = (record.prose or "").strip()
    where = f"{record.episode}-{record.index}"
    memory, info = agent.memory, agent.info
    words = prompt_words(info.language)
    known = {k: list(v) for k, v in memory.characters().items()}
    offer = memory.offer(named_in(prose, known), prose[:2000])
    story = memory.short_term.items()[-STORY_ITEMS:]
    say(Text("progress.read.scene", where=where))
    messages = agent.prompts.render(
        "read_scene", info.language, genre=story_genre(agent.store, words.genre),
        episode=record.episode, index=record.index, offer=offer_block(offer, words),
        story="\n".join(story) or "-", prose=prose[:PROSE_LIMIT])
    reply = agent.router.structured("extractor", combined.BeatDesignWithCast, messages)
    design = keep_plausible_names(reply.design())
    cast = canonical_cast(design.characters, known) or named_in(prose, known)[:1]
    if not cast:  # no name the reply gives is one, and the prose names no one known
        cast = [c for c in design.characters if c.strip() and c != UNREAD_CAST][:1] or ["-"]
    design = design.model_copy(update={"characters": cast})
    beat = NovelBeat.place(design, record.episode, record.index)
    given = combined.introduced_profiles(reply.model_copy(update={"characters": cast}), known)
    profiles = agent.cast_profiles(beat, given, say)
    say(Text("progress.extract", where=where))
    found = run_sync(combined.extract_beat(
        agent.router, beat, offer=agent.offer_for(beat, profiles), language=info.language,
        prompts=agent.prompts, concurrent_calls=agent.concurrent_extraction,
        combined=agent.combined_extraction, prose=prose[:PROSE_LIMIT]))
    checkpoint("read:extracted")
    return ReadScene(record, beat, profiles, found)


def commit_scene(agent: WriterAgent, read: ReadScene, kv: Mapping[str, str]) -> BeatRecord:
    """Commit what :func:`read_scene` found as one unit (:func:`accepting.commit_read`): the
    scene is read, with ``kv`` (the import record's progress) written with it."""
    record, beat = read.record, read.beat
    batch, future = stage(agent.memory, read.found, beat, new_characters=read.profiles,
                          language=agent.info.language)
    summary = read.found.summary.strip() or next(
        (e for e in beat.events if e.strip()), beat.location) or f"{beat.episode}-{beat.index}"
    return accepting.commit_read(agent.store, agent.memory, record, beat, batch, future,
                                 summary, profiles=read.profiles, kv=kv)


__all__ = ["ReadScene", "canonical_cast", "commit_scene", "named_in", "read_scene"]
