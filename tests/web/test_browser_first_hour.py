"""A Korean writer's first hour, round two (issue 39), in chromium.

Two walks a new Korean writer takes, each checked in the browser, with the screens kept for the
issue's closing note (``DOC_SCREENS=1`` writes them to ``docs/screens/first-hour-2/``):

* **The first screen** (items 7, 9, 1) — the app as ``python app.py`` serves it, on the product's
  default models (the embedded demo model, which no step here calls) with a loopback Ollama as
  the writer's own model server: the story language is Korean by the README's rule although the
  interface starts in English; the interface language is chosen there and the page reloads in
  Korean; it says where the projects are kept; once every role uses the Ollama model, the
  demo-model banner stays gone after a reload.
* **A first session** (items 2, 5, 13) — in Korean over the scripted model: an EPUB exported
  before any visit to the Gallery has a cover; the Gallery, opened after the plot was generated,
  shows the cover's prompt and makes the cover; the Style & voices tab shows the writer's own
  edit without Refresh; a beat design the model keeps getting wrong is refused in Korean words
  (which reply, which field), with no validator English.
"""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path
from typing import Any

import pytest
from acceptance.listing_servers import OllamaServer

from aizac.cliches import ClicheDB
from aizac.llm.embeddings import HashingEmbeddings
from aizac.settings import Settings
from aizac.text import t
from aizac.writer.service import Studio
from tests.fakes import ScriptedChatModel
from tests.web.browser_kit import (
    CHROMIUM,
    browser_page,
    click,
    field,
    free_port,
    pick,
    served,
    shot,
    status_says,
    tab,
    table_shows,
    wait_enabled,
)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium (/usr/bin/chromium) absent"),
]
SCREENS = Path(__file__).resolve().parents[2] / "docs" / "screens" / "first-hour-2"


def say(key: str, **params: Any) -> str:
    return t(key, "ko", **params)


def keep(page: Any, name: str) -> None:
    """A screenshot in the test's artifacts; with ``DOC_SCREENS=1`` also the docs' copy (the
    visible part of the page, a small PNG)."""
    shot(page, f"first-hour-2-{name}")
    if os.environ.get("DOC_SCREENS") == "1":
        from PIL import Image

        SCREENS.mkdir(parents=True, exist_ok=True)
        path = SCREENS / f"{name}.png"
        page.screenshot(path=str(path))
        with Image.open(path) as image:  # a page is a few flat colours: 128 of them is plenty
            small = image.convert("RGB").quantize(colors=128)
        small.save(path, optimize=True)


def test_the_first_screen_in_korean(tmp_path: Path, cliche_db: ClicheDB) -> None:
    from aizac.web.app import serve

    with OllamaServer("qwen2.5:7b") as ollama:
        # the product's defaults (AIZAC_LANGUAGE ko, English interface, the embedded model)
        settings = Settings(data_dir=tmp_path / "data", discover=True, discover_timeout=5.0,
                            discover_ports=str(ollama.port), ollama_base_url=ollama.url)
        studio = Studio(settings, embeddings=HashingEmbeddings(), cliches=cliche_db)
        served_app = serve(studio=studio, host="127.0.0.1", port=free_port(),
                           prevent_thread_lock=True)
        try:
            with browser_page(served_app.local_url, locale="ko-KR") as page:
                page.get_by_role("tab", name="Start").wait_for()  # English, as configured
                # item 7: the story language follows the one rule, whatever the interface says
                assert field(page, "aizac-language").input_value() == "한국어"
                # item 9: where the projects are kept
                data = str((tmp_path / "data").resolve())
                page.locator("#aizac-data-dir").get_by_text(data, exact=False).wait_for()
                keep(page, "1-first-screen-english")
                # item 7: the interface language, chosen here; the page comes back in Korean
                pick(page, "aizac-interface", "한국어")
                page.get_by_role("tab", name=say("ui.tab.start")).wait_for(timeout=120_000)
                assert json.loads((tmp_path / "data" / "interface.json").read_text(
                    encoding="utf-8")) == {"ui_language": "ko"}
                assert field(page, "aizac-language").input_value() == "한국어"
                note = page.locator("#aizac-embedded-note")
                note.wait_for()
                assert note.inner_text().strip() == say("ui.embedded.note")
                page.locator("#aizac-data-dir").get_by_text(data, exact=False).wait_for()
                keep(page, "2-first-screen-korean")
                # item 1: every role on the writer's own server; a reload keeps the banner gone
                click(page, "aizac-open-models")
                page.locator("#aizac-servers").get_by_text("ollama:qwen2.5:7b").first.wait_for()
                click(page, "aizac-use-all")
                status_says(page, say("ui.models.used_all", spec="ollama:qwen2.5:7b"))
                page.locator("#aizac-embedded").wait_for(state="hidden")
                page.reload()
                page.get_by_role("tab", name=say("ui.tab.start")).wait_for()
                # drawn from the models now in use when the page loads (it came back before)
                page.locator("#aizac-embedded").wait_for(state="hidden", timeout=60_000)
                keep(page, "3-after-reload-no-banner")
                assert page.outside_requests == []
        finally:
            served_app.close()


def test_a_first_session_in_korean(tmp_path: Path, cliche_db: ClicheDB) -> None:
    model = ScriptedChatModel()
    model.speak_korean()
    model.react("지도에 없는 장소", {"location": None})  # a design the model keeps getting wrong
    with served(tmp_path, cliche_db, model, language="ko") as url, \
            browser_page(url, locale="ko-KR") as page:
        field(page, "aizac-new-name").fill("새벽")
        field(page, "aizac-keywords").fill("회귀, 복수")
        click(page, "aizac-create")
        wait_enabled(page, "aizac-generate-plot")
        click(page, "aizac-generate-plot")
        status_says(page, say("ui.plot_generated"))
        title = field(page, "aizac-plot-title").input_value()
        assert title
        tab(page, say("ui.tab.beats"))
        click(page, "aizac-next-beat")
        status_says(page, say("ui.designed"))
        click(page, "aizac-accept")
        status_says(page, say("ui.accepted_done"))
        click(page, "aizac-write-prose")
        status_says(page, say("ui.prose_done"))
        prose = field(page, "aizac-prose")
        prose.fill(prose.input_value() + "\n\n나는 천천히 숨을 골랐다. 바람이 불었다.")
        click(page, "aizac-save-prose")
        status_says(page, say("ui.prose_saved", where="1-1", n=0).split("(")[0].strip())

        # item 13: an EPUB before any visit to the Gallery has the free typographic cover
        tab(page, say("ui.tab.export"))
        page.locator("#aizac-format label").filter(has_text="epub").click()
        with page.expect_download() as download:
            click(page, "aizac-download")
            status_says(page, "epub")
            page.locator("#aizac-exported a").first.click()
        epub = tmp_path / "book.epub"
        download.value.save_as(str(epub))
        with zipfile.ZipFile(epub) as book:
            names = book.namelist()
            cover_page = book.read(next(n for n in names if n.endswith("cover.xhtml"))).decode()
        assert any(n.endswith("images/cover-typographic.png") for n in names)
        assert "<title>표지</title>" in cover_page
        keep(page, "4-export-epub")

        # item 2: the Gallery, first opened after the plot was generated, knows the plot
        tab(page, say("ui.illustration.tab"))
        page.wait_for_function(
            "(title) => document.querySelector('#aizac-img-cover-prompt textarea')"
            ".value.includes(title)", arg=title)
        click(page, "aizac-img-cover-generate")
        page.locator("#aizac-img-cover-quote").get_by_text("typographic", exact=False).wait_for()
        click(page, "aizac-img-cover-confirm")
        status_says(page, say("ui.illustration.made_one", model="typographic"))
        page.locator("#aizac-img-cover-preview img").first.wait_for()
        keep(page, "5-gallery-cover")

        # item 2: the Style & voices tab shows the writer's edit without Refresh
        tab(page, say("ui.tab.style"))
        summary = page.locator("#aizac-style-summary")
        summary.get_by_text("고친 대목 1개", exact=False).wait_for()
        keep(page, "6-style-tab")

        # item 5: a design the model keeps getting wrong, refused in the writer's words
        tab(page, say("ui.tab.beats"))
        click(page, "aizac-next-beat")
        status_says(page, say("ui.designed"))
        table_shows(page, "aizac-beats", say("beat.status.draft"))
        field(page, "aizac-instruction").fill("지도에 없는 장소에서")
        click(page, "aizac-regenerate")
        status_says(page, say("schema.beat"))
        said = page.locator("#aizac-status").inner_text()
        assert say("field.location") in said, said
        for english in ("Field required", "Input should", "BeatDesign", "location", "JSON"):
            assert english not in said, said
        keep(page, "7-error-in-korean")
        table_shows(page, "aizac-beats", say("beat.status.draft"))  # the draft as it was
        assert page.outside_requests == []
