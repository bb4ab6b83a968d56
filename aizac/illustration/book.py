"""The pictures a writer placed, put into the manuscript an export renders.

The cover slot's picture becomes the book's cover; each accepted beat's placed illustration
stands before the beat's first paragraph in its episode (the prose of an episode is its accepted
beats' prose in order, as :meth:`~aizac.writer.agent.WriterAgent.manuscript` joins it). The
author the writer gave in the gallery goes on the book when it has none.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from aizac.export.manuscript import EpisodeText, Figure, Manuscript
from aizac.illustration.store import COVER, ImageRecord, ImageStore, beat_slot


def _figure(images: ImageStore, record: ImageRecord, alt: str, before: int = 0) -> Figure:
    name = f"{record.id}.{record.file_name.rsplit('.', 1)[-1]}"
    return Figure(name, record.media_type, images.data(record), alt, before)


def _alt(record: ImageRecord, beat: Any) -> str:
    return " · ".join(p for p in (beat.location, beat.time) if p) if beat else record.kind


def illustrated(manuscript: Manuscript, store: Any, title: str = "") -> Manuscript:
    """``manuscript`` with the cover and the illustrations placed in project ``store``."""
    images = ImageStore(store)
    placed = images.placements()
    if not placed:
        return manuscript if manuscript.author or not images.author() else replace(
            manuscript, author=images.author())
    cover = None
    if COVER in placed:
        cover = _figure(images, images.get(placed[COVER]), title or manuscript.title)
    offsets: dict[int, int] = {}  # paragraphs so far in each episode
    figures: dict[int, list[Figure]] = {}
    for beat in store.beats(status="accepted"):
        if not beat.prose:
            continue
        start = offsets.get(beat.episode, 0)
        offsets[beat.episode] = start + len(EpisodeText(1, "", beat.prose).paragraphs)
        image_id = placed.get(beat_slot(beat.id))
        if image_id is not None:
            record = images.get(image_id)
            figures.setdefault(beat.episode, []).append(
                _figure(images, record, _alt(record, beat.beat), start))
    episodes = [replace(e, figures=tuple(figures.get(e.number, ()))) for e in manuscript.episodes]
    return replace(manuscript, episodes=episodes, cover=cover,
                   author=manuscript.author or images.author())


__all__ = ["illustrated"]
