"""A writer in chromium (Korean page) illustrates a written project: a cover and a scene through
the loopback OpenAI images server, then, with the image role switched to the loopback Stable
Diffusion WebUI in the Models tab, a cover and a scene through it; places them, undoes a
placement and redoes it, exports an EPUB that passes EPUBCheck and shows both.
Screenshots go to docs/screens/illustrations/."""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from acceptance.epubcheck import problems, run_epubcheck
from acceptance.image_servers import IMAGES, TXT2IMG, OpenAIImagesServer, SDWebUIServer

from aizac.illustration.service import Illustrator
from aizac.illustration.store import COVER, beat_slot
from tests.illustration.conftest import make_studio, written_project
from tests.web.browser_kit import (
    CHROMIUM,
    browser_page,
    click,
    field,
    pick,
    serve_app,
    status_says,
    tab,
)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium (/usr/bin/chromium) absent"),
]
__all__ = ["make_studio"]  # fixture
SCREENS = Path(__file__).resolve().parents[2] / "docs" / "screens" / "illustrations"


def _shot(page: Any, name: str, element: str | None = None) -> None:
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.wait_for_timeout(400)
    target = page.locator(f"#{element}") if element else page
    target.screenshot(path=str(SCREENS / f"{name}.png"), scale="css")


@pytest.fixture
def servers() -> Iterator[tuple[OpenAIImagesServer, SDWebUIServer]]:
    openai, sd = OpenAIImagesServer(), SDWebUIServer()
    openai.start()
    sd.start()
    yield openai, sd
    openai.stop()
    sd.stop()


def _generate(page: Any, panel: str) -> None:
    click(page, f"aizac-img-{panel}-generate")
    page.locator(f"#aizac-img-{panel}-confirm").wait_for(state="visible")
    click(page, f"aizac-img-{panel}-confirm")
    status_says(page, "그림을 만들어 갤러리에 두었습니다")
    page.locator(f"#aizac-img-{panel}-confirm").wait_for(state="hidden")


def _place(page: Any, panel: str) -> None:
    click(page, f"aizac-img-{panel}-place")
    status_says(page, "배치했습니다")


def test_a_writer_illustrates_and_exports_an_epub(
    tmp_path: Path, servers: tuple[OpenAIImagesServer, SDWebUIServer], make_studio: Any,
) -> None:
    from aizac.web.app import create_app

    openai, sd = servers
    studio = make_studio(image_model=f"openai-compatible:{openai.base_url}:gpt-image-1")
    agent, beat_id = written_project(studio)
    app, export_dir = create_app(studio, language="ko")
    url = serve_app(app, export_dir)
    try:
        with browser_page(url, locale="ko-KR") as page:
            # the cover through the OpenAI images endpoint
            tab(page, "갤러리")
            page.wait_for_function(
                "() => document.querySelector('#aizac-img-cover-prompt textarea').value"
                ".includes('The Second Life')")
            click(page, "aizac-img-cover-generate")
            page.locator("#aizac-img-cover-quote").get_by_text("gpt-image-1",
                                                               exact=False).wait_for()
            _shot(page, "1-cover-confirm", "aizac-img-cover-confirm-row")
            click(page, "aizac-img-cover-confirm")
            status_says(page, "그림을 만들어 갤러리에 두었습니다")
            _place(page, "cover")
            assert len(openai.requests_to(IMAGES)) == 1
            # the scene of the accepted beat, its prompt edited first
            tab(page, "비트 편집")
            prompt = field(page, "aizac-img-beat-prompt")
            prompt.wait_for()
            page.wait_for_function(
                "() => document.querySelector('#aizac-img-beat-prompt textarea').value"
                ".includes('Kang Jun')")
            prompt.fill(prompt.input_value() + "\nink wash, dawn light")
            _generate(page, "beat")
            assert openai.requests_to(IMAGES)[-1].body["prompt"].endswith("ink wash, dawn light")
            _place(page, "beat")
            _shot(page, "2-beat-illustration", "aizac-illustration")
            # undo takes the placement back, redo puts the same picture again (no new call)
            click(page, "aizac-undo")
            placed = page.locator("#aizac-img-beat-placed")
            placed.get_by_text("아직 배치한 그림이 없습니다").wait_for()
            click(page, "aizac-redo")
            placed.get_by_text("배치됨").wait_for()
            assert len(openai.requests_to(IMAGES)) == 2
            # switch the image role to the loopback Stable Diffusion WebUI, test it
            tab(page, "모델")
            pick(page, "aizac-model-role", "그림")
            field(page, "aizac-model-spec").fill(f"sdwebui:{sd.url}")
            click(page, "aizac-set-model")
            status_says(page, "sdwebui")
            click(page, "aizac-test-model")
            status_says(page, "그림은 만들지 않았습니다")
            _shot(page, "3-models-image-role")
            assert not [r for r in sd.requests if r.path == TXT2IMG]  # the test made none
            tab(page, "갤러리")
            _generate(page, "cover")
            _place(page, "cover")
            tab(page, "비트 편집")
            _generate(page, "beat")
            _place(page, "beat")
            assert len([r for r in sd.requests if r.path == TXT2IMG]) == 2
            tab(page, "갤러리")
            click(page, "aizac-refresh")
            page.locator("#aizac-img-usage").get_by_text("4장 사용", exact=False).wait_for()
            _shot(page, "4-gallery")
            # export the EPUB
            tab(page, "내보내기")
            page.locator("#aizac-format label").filter(has_text="epub").click()
            with page.expect_download() as download:
                click(page, "aizac-download")
                status_says(page, "epub")
                page.locator("#aizac-exported a").first.click()
            epub = tmp_path / "book.epub"
            download.value.save_as(str(epub))
            _shot(page, "5-export")
            assert page.outside_requests == []
    finally:
        app.close()
    report = run_epubcheck(epub)
    assert problems(report) == []
    ill = Illustrator(agent)
    cover, scene = ill.placed(COVER), ill.placed(beat_slot(beat_id))
    assert cover is not None and scene is not None and "sdwebui" in cover.model
    with zipfile.ZipFile(epub) as book:
        names = book.namelist()
        assert book.read(next(n for n in names if n.endswith(f"{cover.id}.png"))) == (
            ill.images.data(cover))
        chapter = book.read(next(n for n in names if n.endswith("episode-0001.xhtml"))).decode()
    assert f"images/{scene.id}.png" in chapter
    _epub_pages(epub, tmp_path)


def _epub_pages(epub: Path, tmp_path: Path) -> None:
    """Screenshots of the exported book's cover page and first chapter, opened in chromium."""
    from playwright.sync_api import sync_playwright

    folder = tmp_path / "unzipped"
    with zipfile.ZipFile(epub) as book:
        book.extractall(folder)
    pages = {"6-epub-cover": next(folder.rglob("cover.xhtml")),
             "7-epub-chapter": next(folder.rglob("episode-0001.xhtml"))}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                    args=["--no-sandbox", "--allow-file-access-from-files"])
        page = browser.new_page(viewport={"width": 700, "height": 900})
        for name, path in pages.items():
            page.goto(path.as_uri())
            page.add_style_tag(content="img {max-width: 100%; max-height: 760px;}")
            page.wait_for_timeout(300)
            SCREENS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SCREENS / f"{name}.png"))
        browser.close()
