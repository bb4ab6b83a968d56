"""An imported manuscript becoming story: the rows a new project is created with.

Each episode of the manuscript (:mod:`aizac.manuscript`) becomes an episode of the project and
each of its scenes one accepted beat with the scene as its prose: a scene is the unit the
writer's own text breaks into, at most :data:`~aizac.manuscript.splitting.MAX_SCENES` an
episode, and what the extractor reads one at a time when the memory is built from the
manuscript. Until then a beat's design says only what the text says without a model: its
scene's first line, and :data:`~aizac.writer.project_rows.UNREAD_CAST` for its cast.

The undo tree starts with one ``import`` node (:data:`aizac.application.history.IMPORT`)
holding the imported beats: the manuscript is where the project's history starts, as a new
project's creation is, so undo stops there (a writer drops an import by deleting the project,
asked to confirm, never by one undo too many), and every node after it is the editor's as in
any project. The import record (:data:`RECORD_KEY`) says which episodes the memory has not read
yet, for the step that reads them.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from aizac.application import history as hist
from aizac.application.tree import UndoTree
from aizac.manuscript.preview import Manuscript
from aizac.manuscript.splitting import Episode, measure
from aizac.writer import episode as episode_length
from aizac.writer.project import Seed, SeedBeat
from aizac.writer.project_rows import IMPORTED, UNREAD_CAST
from aizac.writer.schemas import NovelBeat

RECORD_KEY = "manuscript.import"
"""The project's key-value entry holding its :class:`ImportRecord` (JSON)."""
EVENT_LENGTH = 160
"""Characters of a scene's first line its beat's event keeps (a design's line at most)."""


@dataclass(frozen=True)
class ImportRecord:
    """What an import saved, kept with the project.

    Attributes:
        files: the files read, in order.
        episodes: the episodes saved (numbered 1..episodes).
        beats: the beats saved (one per scene).
        characters: the manuscript's length (characters with spaces, as platforms count).
        read_through: the last episode the memory has read (0: none yet). Building the memory
            from the manuscript reads episodes ``read_through + 1`` .. ``episodes`` and moves
            it on, so a reading stopped half way resumes where it stopped.
    """

    files: tuple[str, ...]
    episodes: int
    beats: int
    characters: int
    read_through: int = 0

    def dumps(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False)

    @classmethod
    def loads(cls, text: str) -> ImportRecord:
        data = json.loads(text)
        return cls(tuple(data["files"]), int(data["episodes"]), int(data["beats"]),
                   int(data["characters"]), int(data.get("read_through", 0)))


def scene_beat(episode: int, index: int, scene: str) -> NovelBeat:
    """The design of an imported scene before the memory reads it (no model: its first line)."""
    first = next(line.strip() for line in scene.splitlines() if line.strip())
    return NovelBeat(episode=episode, index=index, location="", time="",
                     characters=[UNREAD_CAST], events=[first[:EVENT_LENGTH].strip()])


def typical_length(episodes: Sequence[Episode], unit: str) -> int:
    """The median length of ``episodes`` in ``unit``, within what a project may set: what the
    episodes written next aim at, so they run as long as the writer's."""
    low, high = episode_length.LENGTH_RANGE
    return min(max(round(statistics.median(e.length(unit) for e in episodes)), low), high)


def seed(manuscript: Manuscript) -> tuple[Seed, ImportRecord]:
    """The rows of a project created from ``manuscript`` (beats numbered 1.. in story order,
    as :class:`~aizac.writer.project.Seed` numbers them) and its import record."""
    beats = [SeedBeat(scene_beat(e.number, index, scene), scene, IMPORTED)
             for e in manuscript.episodes for index, scene in enumerate(e.scenes, 1)]
    record = ImportRecord(tuple(f.name for f in manuscript.files), len(manuscript.episodes),
                          len(beats), sum(measure(e.text) for e in manuscript.episodes))
    last = beats[-1].beat
    tree = UndoTree()
    tree.add(hist.import_payload(range(1, len(beats) + 1)), hist.IMPORT,
             where=f"1-1…{last.episode}-{last.index}", first=", ".join(record.files)[:40])
    titles = {e.number: e.title for e in manuscript.episodes if e.title}
    kv = {hist.TREE_KEY: json.dumps(tree.to_dict(), ensure_ascii=False), RECORD_KEY: record.dumps()}
    detail = {"files": list(record.files), "episodes": record.episodes, "beats": record.beats}
    return Seed(beats, titles, kv, step="import", detail=detail), record


__all__ = ["RECORD_KEY", "ImportRecord", "scene_beat", "seed", "typical_length"]
