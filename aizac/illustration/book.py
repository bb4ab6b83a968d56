"""The pictures a writer placed, put into the manuscript an export renders.

The cover slot's picture becomes the book's cover; each accepted beat's placed illustration
stands before the beat's first paragraph in its episode (the prose of an episode is its accepted
beats' prose in order, as :meth:`~aizac.writer.agent.WriterAgent.manuscript` joins it). The
author the writer gave in the gallery goes on the book when it has none. An EPUB whose writer
placed no cover gets the typographic one (:func:`book_of`): free, offline, made for the export
and not kept among the project's pictures.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

from aizac.export.manuscript import EpisodeText, Figure, Manuscript
from aizac.illustration.store import COVER, ImageRecord, ImageStore, beat_slot

log = logging.getLogger(__name__)
FREE_COVER = "cover-typographic.png"
"""The file name of the typographic cover an EPUB gets when the writer placed none."""


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


def free_cover(manuscript: Manuscript, agent: Any) -> Figure | None:
    """The typographic cover of ``manuscript`` (title, genre, author on the genre's palette;
    :mod:`aizac.llm.images.typographic`), whatever the image role is: it costs nothing and
    needs no network. ``None`` when it cannot be set (no font for the story's script here:
    the book then goes out without a cover, as before, and the log says why)."""
    from aizac.errors import AizacError
    from aizac.llm.images.base import Card, ImageRequest
    from aizac.llm.images.typographic import TypographicImages
    from aizac.settings_values import parse_size

    settings = agent.settings
    width, height = parse_size(settings.image_cover_size)
    card = Card(manuscript.title, "", manuscript.author, agent.info.genre)
    request = ImageRequest("cover", manuscript.title, width, height, card=card,
                           language=manuscript.language)
    try:
        image = TypographicImages(settings.cover_font).generate(request)
    except AizacError as e:
        log.warning("no typographic cover for %s: %s", agent.info.name, e.english())
        return None
    return Figure(FREE_COVER, image.media_type, image.data, manuscript.title)


def book_of(agent: Any, fmt: str, manuscript: Manuscript | None = None) -> Manuscript:
    """What an export of ``agent``'s project in ``fmt`` renders: its manuscript (default: all
    of it) with the pictures placed, and, for an EPUB without a placed cover, the free
    typographic cover (an e-book without one shows a blank tile in every library)."""
    book = illustrated(manuscript or agent.manuscript(), agent.store)
    if fmt != "epub" or book.cover is not None or not book.episodes:
        return book
    return replace(book, cover=free_cover(book, agent))


__all__ = ["FREE_COVER", "book_of", "free_cover", "illustrated"]
