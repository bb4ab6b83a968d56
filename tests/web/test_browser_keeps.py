"""Issue 23 in the browser: what the writer typed in a beat field stands through every
regeneration; the "keep my edits" boxes show the draft's own state, and unticking one lets the
next regeneration change it.

Debian chromium through Playwright against an in-process server with the scripted model.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from aizac.cliches import ClicheDB
from aizac.web.ui import OPEN_PROJECT_KEY as KEPT_KEY
from tests.fakes import ScriptedChatModel
from tests.web.browser_kit import (
    CHROMIUM,
    browser_page,
    click,
    field,
    reload,
    served,
    shot,
    status_says,
    tab,
    wait_enabled,
)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium (/usr/bin/chromium) absent"),
]
SCREENS = Path(__file__).resolve().parents[2] / "docs" / "screens" / "beat-locks"
TIME = "The first dawn, 4 a.m."


@pytest.fixture
def page(tmp_path: Path, cliche_db: ClicheDB) -> Iterator[Any]:
    with served(tmp_path, cliche_db, ScriptedChatModel()) as url, browser_page(url) as pg:
        yield pg


def _ticked(page: Any) -> list[bool]:
    boxes = page.locator("#aizac-locked input[type=checkbox]")
    return [boxes.nth(i).is_checked() for i in range(boxes.count())]


def _regenerate(page: Any) -> None:
    """Regenerate and wait for the history list to show one more regeneration."""
    count = "() => (document.getElementById('aizac-history').innerText"
    count += ".match(/regenerated/g) || []).length"
    before = page.evaluate(count)
    click(page, "aizac-regenerate")
    page.wait_for_function(f"() => ({count})() > {before}")
    status_says(page, "Regenerated")


def test_a_typed_field_stands_until_its_box_is_unticked(page: Any) -> None:
    field(page, "aizac-new-name").fill("dawn")
    field(page, "aizac-keywords").fill("regression, revenge")
    click(page, "aizac-create")
    wait_enabled(page, "aizac-generate-plot")
    click(page, "aizac-generate-plot")
    status_says(page, "Plot generated")
    tab(page, "Beat editor")
    click(page, "aizac-next-beat")
    status_says(page, "Designed the next beat")
    field(page, "aizac-time").fill(TIME)  # typed; neither saved nor ticked
    for _ in range(2):
        _regenerate(page)
        assert field(page, "aizac-time").input_value() == TIME
        ticked = _ticked(page)
        assert ticked[1] and not ticked[0] and not any(ticked[2:])
    field(page, "aizac-location").scroll_into_view_if_needed()
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENS / "kept-after-two-regenerations.png"))
    page.reload()  # the box shows the draft's state, not the page's
    tab(page, "Beat editor")
    page.wait_for_function("() => document.querySelectorAll('#aizac-locked input:checked')"
                           ".length === 1")
    page.locator("#aizac-locked label").nth(1).click()  # untick "Time"
    status_says(page, "Saved your edit")
    assert not any(_ticked(page))
    _regenerate(page)
    assert field(page, "aizac-time").input_value() != TIME
    shot(page, "23-unticked-regenerated")


def _create(page: Any, name: str) -> None:
    field(page, "aizac-new-name").fill(name)
    field(page, "aizac-keywords").fill("regression, revenge")
    click(page, "aizac-create")
    status_says(page, f"Created project {name}")


def _wait_kept(page: Any, act: Callable[[], object]) -> None:
    """Do ``act`` and wait until the browser has written the project it keeps (encrypted with a
    fresh IV, so any write changes the stored text; a fixed wait lost this race under load)."""
    kept = page.evaluate(f"() => localStorage.getItem('{KEPT_KEY}')")
    act()
    page.wait_for_function(f"k => localStorage.getItem('{KEPT_KEY}') !== k", arg=kept)


def test_a_reload_reopens_the_project_this_browser_had_open(page: Any) -> None:
    """Issue 23 items 3 and 5: the page opened the last created project, not the writer's;
    a double click on Create said the project exists and left the plot buttons disabled."""
    field(page, "aizac-new-name").fill("first")
    field(page, "aizac-keywords").fill("regression, revenge")
    page.locator("#aizac-create").dblclick()
    status_says(page, "Created project first")
    page.wait_for_timeout(1500)  # the second click's answer
    wait_enabled(page, "aizac-generate-plot")
    assert "exists" not in page.locator("#aizac-status").inner_text()
    _wait_kept(page, lambda: _create(page, "second"))
    reload(page)  # right after Create: the created project, not the one opened before it
    page.wait_for_function("() => document.querySelector('#aizac-project input')?.value"
                           " === 'second'")
    page.locator("#aizac-project input").click()
    _wait_kept(page, lambda: page.get_by_role("option", name="first").click())
    reload(page)
    page.wait_for_function("() => document.querySelector('#aizac-project input')?.value"
                           " === 'first'")
    shot(page, "23-reopened-first")

