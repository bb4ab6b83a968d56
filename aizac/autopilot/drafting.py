"""Prose for planned (not yet accepted) beats: the autopilot's draft and rewrite steps.

The same prompt, context pack and loop guards as the co-writing prose writer
(:class:`~aizac.writer.output.ProseWriter`), but nothing is stored: drafts live in the run's
checkpointed state until the commit node makes them canon.
"""

from __future__ import annotations

from typing import Any

from aizac.errors import AizacError
from aizac.writer.episode_prose import split_scenes
from aizac.writer.output import prose_stop
from aizac.writer.schemas import NovelBeat


def previous_prose(agent: Any, prose: dict[str, str], beat: NovelBeat) -> str:
    """What came just before ``beat``: the episode's drafted previous beat, else the last
    accepted beat's prose (or summary)."""
    earlier = prose.get(str(beat.index - 1))
    if earlier:
        return earlier
    last = agent.store.last_accepted(before=(beat.episode, beat.index))
    if last is None:
        return ""
    return str(last.prose or last.summary or "")


def draft_prose(agent: Any, beat: NovelBeat, previous: str, instruction: str = "") -> str:
    """Write ``beat``'s prose with the writer role (trimmed like the prose writer does)."""
    writer = agent.prose_writer
    messages, _ = writer.prose_messages(beat, previous, instruction)
    text = _collect(writer.router.stream("writer", messages), writer.prose_words)
    if not text:
        raise AizacError("error.autopilot.no_prose", where=f"{beat.episode}-{beat.index}")
    return text


def draft_episode(agent: Any, beats: list[NovelBeat], previous: str) -> dict[int, str]:
    """The prose of ``beats`` (an episode's, in order) from one writer call
    (:mod:`aizac.writer.episode_prose`): beat index -> prose, for the scenes the reply has;
    the caller drafts any other beat on its own."""
    writer = agent.prose_writer
    messages, _ = writer.episode_messages(beats, previous)
    stream = writer.stream_episode(messages)
    while True:
        try:
            next(stream)
        except StopIteration as done:
            text = str(done.value or "")
            break
    scenes = split_scenes(text, len(beats))
    return {beat.index: scenes[n] for n, beat in enumerate(beats, start=1) if n in scenes}


def _collect(stream: Any, prose_words: int) -> str:
    text = ""
    try:
        for chunk in stream:
            text += chunk
            stop = prose_stop(text, chunk, prose_words)
            if stop is not None:
                text = stop
                break
    finally:
        close = getattr(stream, "close", None)
        if close is not None:
            close()
    return text.strip()
