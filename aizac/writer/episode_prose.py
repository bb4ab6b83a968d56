"""An episode's prose in one call: its scenes written in order, each under a ``### N`` line,
then split back into each beat's prose.

One prose call per beat sends the same system prompt, story notes and style four times an
episode; one call for the episode sends them once (issue 26: prose was 97-101k of the
autopilot's and co-writing's estimated prompt tokens over 20 episodes, and four of the
autopilot's seven calls an episode). The notes are drawn for the whole episode's cast, places
and events; each scene keeps its own brief and dialogue notes.

A scene the reply leaves out (no ``### N`` line, or nothing under it) is written on its own
afterwards by the per-beat prose call, so a reply that ignores the markers costs calls, never
prose. The embedded small model always writes beat by beat: it loses track of numbered parts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aizac.writer.ports import Composer

MARK = re.compile(r"^[ \t]*#{1,4}[ \t]*[^\d\n]{0,12}?(\d{1,3})(?!\d)[^\n]*$", re.MULTILINE)
"""A scene's heading line: ``### 2``, also ``## Scene 2`` or ``### Scene 2: The gate`` (a model
may add a word or a title)."""


def writes_episodes(agent: Composer) -> bool:
    """Whether ``agent``'s writer writes an episode's scenes in one call (its declared
    capability: the API models yes, the small embedded model no; ``agent.combined_extraction``
    True/False forces it, as for the extraction and the episode design)."""
    from aizac.writer.combined import combined_extraction_ok

    if agent.combined_extraction is not None:
        return agent.combined_extraction
    return combined_extraction_ok(agent.router, role="writer")


def scenes_block(scenes: Sequence[tuple[str, str]]) -> str:
    """The numbered scenes of the prompt: each ``(brief, dialogue notes)`` under ``### N``."""
    parts = []
    for number, (brief, notes) in enumerate(scenes, start=1):
        body = "\n".join(p for p in (brief.strip(), notes.strip()) if p)
        parts.append(f"### {number}\n{body}")
    return "\n\n".join(parts)


def split_scenes(text: str, count: int) -> dict[int, str]:
    """Each scene's prose (1-based number -> text) of a reply to the episode prompt (pure).

    A heading's first number says which scene follows it; a number out of range, or one that
    came already, belongs to the scene before it (a chapter title with a number in it stays
    prose). Text before the first heading is the first scene's only when the first heading is
    ``2`` (the model skipped the first heading); otherwise it is dropped, as the model's
    preamble. Scenes with no text are left out."""
    found: list[tuple[int, int, int]] = []  # (scene, heading start, text start)
    seen: set[int] = set()
    for mark in MARK.finditer(text):
        number = int(mark.group(1))
        if 1 <= number <= count and number not in seen and (not seen or number > max(seen)):
            seen.add(number)
            found.append((number, mark.start(), mark.end()))
    out: dict[int, str] = {}
    if found and found[0][0] == 2:
        out[1] = text[: found[0][1]].strip()
    for at, (number, _, start) in enumerate(found):
        end = found[at + 1][1] if at + 1 < len(found) else len(text)
        out[number] = text[start:end].strip()
    return {n: t for n, t in out.items() if t}
