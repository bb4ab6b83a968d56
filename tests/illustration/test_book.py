"""Exports carry the pictures the writer placed: an EPUB with its cover and each illustration
before its beat (EPUBCheck clean), Markdown with links to the picture files beside it."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

from acceptance.epubcheck import problems, run_epubcheck

from aizac.application.exports import ExportService
from aizac.illustration.book import illustrated
from aizac.illustration.service import Illustrator
from aizac.illustration.store import COVER, beat_slot

StudioFactory = Any
Written = Any


def _two_beats(make_studio: StudioFactory, written: Written) -> tuple[Any, int, int]:
    agent, first = written(make_studio())
    second = agent.next_beat()
    agent.accept(second.id)
    agent.save_prose(second.id, "Second scene, first line.\n\nSecond scene, last line.")
    return agent, first, second.id


def test_an_illustrated_epub_is_valid_and_shows_both(
    make_studio: StudioFactory, written: Written, tmp_path: Path,
) -> None:
    agent, _, second = _two_beats(make_studio, written)
    ill = Illustrator(agent)
    ill.images.set_style("", "Mina Kim")
    cover = ill.generate(COVER, confirmed=True)
    scene = ill.generate(beat_slot(second), confirmed=True)
    ill.place(COVER, cover.id)
    ill.place(beat_slot(second), scene.id)
    result = ExportService(lambda _: agent, tmp_path).export("saga", "epub", None, None, None)
    report = run_epubcheck(Path(result.target))
    assert problems(report) == []
    assert report["publication"]["creator"] == ["Mina Kim"]
    with zipfile.ZipFile(result.target) as book:
        names = book.namelist()
        chapter = book.read(next(n for n in names if n.endswith("episode-0001.xhtml"))).decode()
        stored = book.read(next(n for n in names if n.endswith(f"{cover.id}.png")))
    assert stored == ill.images.data(cover)  # the very file generated, not a new one
    assert any(n.endswith(f"images/{scene.id}.png") for n in names)
    # the scene stands before the second beat's prose, after the first beat's
    assert chapter.index("Kang Jun stepped in") < chapter.index(scene.id) < chapter.index(
        "Second scene, first line")


def test_markdown_links_the_pictures_written_beside_it(
    make_studio: StudioFactory, written: Written, tmp_path: Path,
) -> None:
    agent, first, _ = _two_beats(make_studio, written)
    ill = Illustrator(agent)
    scene = ill.generate(beat_slot(first), confirmed=True)
    ill.place(beat_slot(first), scene.id)
    result = ExportService(lambda _: agent, tmp_path).export("saga", "md", None, None, "book")
    text = Path(result.target).read_text(encoding="utf-8")
    link = f"](images/{scene.id}.png)"
    assert link in text and text.index(link) < text.index("The gate hummed")
    assert (Path(result.target).parent / "images" / f"{scene.id}.png").read_bytes() == (
        ill.images.data(scene))


def test_a_removed_or_unplaced_picture_is_not_in_the_book(
    make_studio: StudioFactory, written: Written,
) -> None:
    agent, first, _ = _two_beats(make_studio, written)
    ill = Illustrator(agent)
    scene = ill.generate(beat_slot(first), confirmed=True)
    ill.generate(COVER, confirmed=True)  # made, never placed
    ill.place(beat_slot(first), scene.id)
    ill.place(beat_slot(first), None)
    book = illustrated(agent.manuscript(), agent.store)
    assert book.cover is None and all(not e.figures for e in book.episodes)


def test_an_epub_without_a_placed_cover_gets_the_free_typographic_one(
    make_studio: StudioFactory, written: Written, tmp_path: Path,
) -> None:
    """Issue 39 item 13: an EPUB exported before the writer visited the Gallery had no cover
    at all; the typographic cover is free and offline, so the export makes it. It is not kept
    among the project's pictures (nothing the writer did not make appears in the Gallery)."""
    agent, _ = written(make_studio())
    result = ExportService(lambda _: agent, tmp_path).export("saga", "epub", None, None, None)
    report = run_epubcheck(Path(result.target))
    assert problems(report) == []
    with zipfile.ZipFile(result.target) as book:
        names = book.namelist()
        opf = book.read(next(n for n in names if n.endswith(".opf"))).decode()
        cover = book.read(next(n for n in names if n.endswith("images/cover-typographic.png")))
    assert 'properties="cover-image"' in opf and cover.startswith(b"\x89PNG")
    assert any(n.endswith("cover.xhtml") for n in names)
    assert Illustrator(agent).pictures() == []  # made for the book, not stored
    text = ExportService(lambda _: agent, tmp_path).export("saga", "txt", None, None, None)
    assert Path(text.target).read_text(encoding="utf-8").startswith("The Second Life")
