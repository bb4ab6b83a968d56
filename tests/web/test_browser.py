"""The app in a real browser: Playwright driving Debian's chromium against an in-process server.

The server runs in this process on a free loopback port with scripted fake chat models passed
into the app factory. Every request the page makes to anything but the server is blocked and
reported. Screenshots of each screen are written to ./artifacts/screenshots/.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aizac.cliches import ClicheDB
from tests.fakes import ScriptedChatModel
from tests.web.browser_kit import (
    CHROMIUM,
    beats_show,
    browser_page,
    click,
    field,
    pick,
    served,
    shot,
    status_says,
    tab,
    table_shows,
)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium (/usr/bin/chromium) absent"),
]


@pytest.fixture
def app_url(tmp_path: Path, cliche_db: ClicheDB) -> Iterator[str]:
    with served(tmp_path, cliche_db, ScriptedChatModel()) as url:
        yield url


@pytest.fixture
def page(app_url: str) -> Iterator[Any]:
    with browser_page(app_url) as pg:
        yield pg


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
    status_says(page, re.compile("keyword", re.I))
    message = page.locator("#aizac-status").inner_text()
    assert "Traceback" not in message and "File \"" not in message
    shot(page, "07-error-message")
