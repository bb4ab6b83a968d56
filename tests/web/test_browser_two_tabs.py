"""Issue 39 items 4 and 6 in the browser: two tabs on one draft. A tab whose form the writer changed
keeps the version it was made from when the other tab saves; its save is then refused as a
conflict that shows both versions, and the writer keeps either (nothing is overwritten
silently, nothing typed is lost). What the checks find in the draft is shown beside Accept.

Debian chromium through Playwright against an in-process server with the scripted model.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aizac.cliches import ClicheDB
from aizac.text import t
from tests.fakes import ScriptedChatModel
from tests.web.browser_kit import (
    CHROMIUM,
    TIMEOUT_MS,
    browser_page,
    click,
    field,
    pick,
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
SCREENS = Path(__file__).resolve().parents[2] / "docs" / "screens" / "first-hour-2"
THEIRS, MINE = "서울역 지하 대합실", "한강 다리 아래"
LOCATION = "#aizac-location textarea, #aizac-location input"
LOOPBACK = ("http://127.0.0.1", "ws://127.0.0.1", "data:", "blob:")


@pytest.fixture
def page(tmp_path: Path, cliche_db: ClicheDB) -> Iterator[Any]:
    """The app in Korean, over the scripted model speaking Korean (a Korean writer's walk)."""
    model = ScriptedChatModel()
    model.speak_korean()
    with served(tmp_path, cliche_db, model, language="ko") as url, \
            browser_page(url, locale="ko-KR") as pg:
        yield pg


def say(key: str, **params: Any) -> str:
    return t(key, "ko", **params)


def _second_tab(page: Any) -> Any:
    """A second tab of the same browser on the same app (it reopens the kept project)."""
    other = page.context.new_page()
    other.set_default_timeout(TIMEOUT_MS)
    other.route("**/*", lambda r: r.continue_() if r.request.url.startswith(LOOPBACK)
                else r.abort())
    other.goto(page.url)
    other.wait_for_selector("#aizac-create")
    try:  # the project this browser keeps is reopened; else the writer picks it
        other.wait_for_function("() => document.querySelector('#aizac-project input')?.value"
                                " === 'twotabs'", timeout=20_000)
    except Exception:
        pick(other, "aizac-project", "twotabs")
    tab(other, say("ui.tab.beats"))
    try:
        other.wait_for_function(f"() => document.querySelector('{LOCATION}')?.value")
        # the page's load chain ends by offering the buttons: a field typed before that may
        # still be drawn over by the load
        wait_enabled(other, "aizac-save-edit")
    except Exception:
        shot(other, "39-two-tabs-failure")
        raise
    return other


def _location(page: Any) -> str:
    return str(field(page, "aizac-location").input_value())


def test_a_stale_save_from_a_second_tab_is_a_conflict_and_the_writer_keeps_either(
    page: Any,
) -> None:
    field(page, "aizac-new-name").fill("twotabs")
    field(page, "aizac-keywords").fill("regression, revenge")
    click(page, "aizac-create")
    wait_enabled(page, "aizac-generate-plot")
    click(page, "aizac-generate-plot")
    status_says(page, say("ui.plot_generated"))
    tab(page, say("ui.tab.beats"))
    click(page, "aizac-next-beat")
    status_says(page, say("ui.designed"))
    other = _second_tab(page)
    field(other, "aizac-location").fill(MINE)  # typed in the second tab, not saved
    field(page, "aizac-location").fill(THEIRS)  # the first tab saves its own edit
    click(page, "aizac-save-edit")
    status_says(page, say("ui.edit_saved"))
    other.wait_for_timeout(3000)  # the second tab's look at the project (every second)
    assert _location(other) == MINE  # what the writer typed there stands
    other.get_by_text("다른 탭에서 저장됨").first.wait_for()
    click(other, "aizac-save-edit")
    status_says(other, say("ui.conflict.said"))
    box = other.locator("#aizac-conflict")
    box.get_by_text(THEIRS).first.wait_for()
    box.get_by_text(MINE).first.wait_for()
    assert _location(other) == MINE  # refused: nothing written, nothing dropped
    page.wait_for_timeout(1500)
    assert _location(page) == THEIRS  # the first tab's save stands
    other.locator("#aizac-conflict-box").scroll_into_view_if_needed()
    if SCREENS.exists():
        other.screenshot(path=str(SCREENS / "two-tabs-conflict.png"))
    click(other, "aizac-keep-mine")
    status_says(other, say("ui.conflict.kept_mine"))
    assert other.locator("#aizac-conflict-box").is_hidden()
    page.wait_for_function(f"m => document.querySelector('{LOCATION}')?.value === m",
                           arg=MINE)  # the first tab is redrawn with the kept version
    # the other way: the first tab types, the second saves, the first keeps the other's
    field(page, "aizac-location").fill(THEIRS)
    field(other, "aizac-location").fill("세 번째 장소")
    click(other, "aizac-save-edit")
    status_says(other, say("ui.edit_saved"))
    page.wait_for_timeout(3000)
    click(page, "aizac-save-edit")
    status_says(page, say("ui.conflict.said"))
    click(page, "aizac-keep-theirs")
    status_says(page, say("ui.conflict.kept_theirs"))
    assert _location(page) == "세 번째 장소"
    shot(page, "39-two-tabs-kept-theirs")
    # item 6: a speaker who is not in the scene is said beside Accept before it is canon
    checks = page.locator("#aizac-accept-checks")
    checks.get_by_text(say("ui.voices.clean")).wait_for()
    field(page, "aizac-dialogue").fill("벨: 누구냐")
    click(page, "aizac-save-edit")
    status_says(page, say("ui.edit_saved"))
    checks.get_by_text(say("ui.accept_checks")).wait_for()
    checks.get_by_text("벨").first.wait_for()
    if SCREENS.exists():
        checks.scroll_into_view_if_needed()
        page.screenshot(path=str(SCREENS / "checks-beside-accept.png"))
