"""The app in a real browser: Playwright driving Debian's chromium against an in-process server.

The server runs in this process on a free loopback port with scripted fake chat models passed
into the app factory. Every request the page makes to anything but the server is blocked and
reported. Screenshots of each screen are written to ./artifacts/screenshots/.
"""

from __future__ import annotations

import re
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aizac.cliches import ClicheDB
from aizac.llm.embeddings import HashingEmbeddings
from aizac.settings import Settings
from aizac.writer.service import Studio
from tests.web.fakes import ScriptedChatModel

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
SHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
TIMEOUT_MS = 30_000

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium (/usr/bin/chromium) absent"),
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def app_url(tmp_path: Path, cliche_db: ClicheDB) -> Iterator[str]:
    from aizac.web.app import create_app
    from aizac.web.ui import launch

    model = ScriptedChatModel()
    settings = Settings(data_dir=tmp_path / "data", language="en", structured_retries=1,
                        transient_retries=0)
    studio = Studio(settings, models=dict.fromkeys(("planner", "writer", "extractor",
                                                     "reviewer"), model),
                    embeddings=HashingEmbeddings(), cliches=cliche_db, beats_per_episode=3)
    app, export_dir = create_app(studio)
    port = _free_port()
    launch(app, host="127.0.0.1", port=port, allowed_paths=[str(export_dir)],
           prevent_thread_lock=True, quiet=True)
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        app.close()


@pytest.fixture
def page(app_url: str) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS,
                                    headless=True)
        context = browser.new_context(viewport={"width": 1440, "height": 1000},
                                      accept_downloads=True)
        pg = context.new_page()
        pg.set_default_timeout(TIMEOUT_MS)
        outside: list[str] = []

        def only_loopback(route: Any) -> None:
            url = route.request.url
            if url.startswith(("http://127.0.0.1", "ws://127.0.0.1", "data:", "blob:")):
                route.continue_()
            else:
                outside.append(url)
                route.abort()

        pg.route("**/*", only_loopback)
        pg.goto(app_url)
        pg.wait_for_selector("#aizac-create")
        pg.outside_requests = outside
        yield pg
        context.close()
        browser.close()


def shot(page: Any, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.wait_for_timeout(300)
    page.screenshot(path=str(path), full_page=True)
    return path


def status_says(page: Any, text: str) -> None:
    try:
        page.locator("#aizac-status").get_by_text(text).wait_for()
    except Exception:
        shot(page, "failure")
        toasts = page.locator("[data-testid='toast-body']").all_inner_texts()
        raise AssertionError(f"status never said {text!r}; messages: {toasts}") from None


def beats_show(page: Any, status: str) -> None:
    """Wait until the episode table lists a beat with ``status``."""
    page.locator("#aizac-beats [data-testid='cell-0-1']").get_by_text(status).first.wait_for()


def table_shows(page: Any, elem_id: str, text: str | re.Pattern[str]) -> None:
    page.locator(f"#{elem_id} span").filter(has_text=text).first.wait_for()


def field(page: Any, elem_id: str) -> Any:
    return page.locator(f"#{elem_id} textarea, #{elem_id} input").first


def click(page: Any, elem_id: str) -> None:
    page.locator(f"#{elem_id}").click()


def pick(page: Any, elem_id: str, option: str | None = None) -> None:
    """Choose an option of a Gradio dropdown (the first one when ``option`` is None)."""
    field(page, elem_id).click()
    options = page.locator(f"#{elem_id} [data-testid='dropdown-option']")
    target = options.filter(has_text=option) if option else options
    target.first.click()


def tab(page: Any, name: str) -> None:
    page.get_by_role("tab", name=name).click()


def test_a_writer_session_in_the_browser(page: Any, tmp_path: Path) -> None:
    shot(page, "00-empty")
    # Start: create a project and generate its plot.
    field(page, "aizac-new-name").fill("second-dawn")
    field(page, "aizac-genre").fill("fantasy")
    field(page, "aizac-keywords").fill("regression, revenge")
    click(page, "aizac-create")
    status_says(page, "Created project")
    click(page, "aizac-generate-plot")
    status_says(page, "Plot generated")
    assert field(page, "aizac-plot-title").input_value() == "The Second Dawn"
    shot(page, "01-start")
    assert "Duke Veil" in page.locator("#aizac-characters").inner_text()

    # Beat editor: next beat, edit a field, accept, write prose.
    tab(page, "Beat editor")
    click(page, "aizac-next-beat")
    status_says(page, "Designed the next beat")
    assert field(page, "aizac-location").input_value() == "Eastwall gate"
    field(page, "aizac-time").fill("Midnight, the red moon")
    click(page, "aizac-save-edit")
    status_says(page, "Saved your edit")
    shot(page, "02-beat-editor-draft")
    click(page, "aizac-accept")
    status_says(page, "Accepted")
    beats_show(page, "accepted")
    click(page, "aizac-write-prose")
    status_says(page, "Prose written and saved")
    assert "Red light spilled" in field(page, "aizac-prose").input_value()
    shot(page, "03-beat-editor-prose")

    # Undo / redo: undoing the acceptance makes the beat a draft again.
    click(page, "aizac-undo")
    status_says(page, "Undone")
    beats_show(page, "draft")
    click(page, "aizac-redo")
    status_says(page, "Redone")
    beats_show(page, "accepted")

    # Branch: undo the acceptance, regenerate (a sibling branch), switch back.
    click(page, "aizac-undo")
    status_says(page, "Undone")
    field(page, "aizac-instruction").fill("more tension")
    click(page, "aizac-regenerate")
    status_says(page, "Regenerated")
    regenerated = field(page, "aizac-location").input_value()
    assert regenerated != "Eastwall gate"
    pick(page, "aizac-branches", "accepted")
    click(page, "aizac-switch")
    status_says(page, "Switched branch")
    beats_show(page, "accepted")
    assert "Midnight" in page.locator("#aizac-beats").inner_text()
    shot(page, "04-history-branches")

    # Memory: pin a memory, plot forgetting curves.
    tab(page, "Memory")
    table_shows(page, "aizac-memories", "Wary allies.")
    pick(page, "aizac-selected")
    click(page, "aizac-pin")
    status_says(page, "Pinned 1 memory")
    table_shows(page, "aizac-memories", re.compile(r"^\s*pinned\s*$"))
    click(page, "aizac-curves")
    page.locator("#aizac-curve-plot img, #aizac-curve-plot svg").first.wait_for()
    shot(page, "05-memory")

    # Export: download the novel as .txt.
    tab(page, "Export")
    click(page, "aizac-download")
    status_says(page, "Exported")
    link = page.locator("#aizac-exported a").first
    with page.expect_download() as info:
        link.click()
    saved = tmp_path / "download.txt"
    info.value.save_as(saved)
    text = saved.read_text(encoding="utf-8")
    assert "The Second Dawn" in text and "Red light spilled" in text
    shot(page, "06-export")
    assert page.outside_requests == []


def test_errors_are_readable_messages_not_stack_traces(page: Any) -> None:
    click(page, "aizac-create")  # no name, no keywords
    toast = page.locator(".toast-body, [data-testid='toast-body']").first
    toast.wait_for()
    message = toast.inner_text()
    assert re.search(r"keyword", message, re.I)
    assert "Traceback" not in message and "File \"" not in message
    shot(page, "07-error-message")
