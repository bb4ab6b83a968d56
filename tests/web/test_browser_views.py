"""Issue 23 items 4 and 6 in the browser, on a Korean page over a Korean story: every view of the
project is drawn from the store whatever changed it (the Beat tab knows a plot was generated on
the Start tab; a page reloaded during a generation shows it running and then its result), and a
long action's progress and outcome show beside the button the writer pressed.

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
    beats_show,
    browser_page,
    click,
    field,
    served,
    shot,
    status_says,
    tab,
    type_cell,
    wait_enabled,
)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium (/usr/bin/chromium) absent"),
]
SCREENS = Path(__file__).resolve().parents[2] / "docs" / "screens" / "korean-views"


def say(key: str, **params: Any) -> str:
    return t(key, "ko", **params)


@pytest.fixture
def model() -> ScriptedChatModel:
    model = ScriptedChatModel()
    model.speak_korean()
    return model


@pytest.fixture
def page(tmp_path: Path, cliche_db: ClicheDB, model: ScriptedChatModel) -> Iterator[Any]:
    with served(tmp_path, cliche_db, model, language="ko") as url, browser_page(url) as pg:
        yield pg


def _plotted(page: Any, name: str = "새벽") -> None:
    field(page, "aizac-new-name").fill(name)
    field(page, "aizac-keywords").fill("회귀, 복수")
    click(page, "aizac-create")
    wait_enabled(page, "aizac-generate-plot")
    click(page, "aizac-generate-plot")
    status_says(page, say("ui.plot_generated"))


def _shot(page: Any, name: str) -> None:
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENS / f"{name}.png"))


def _draft_says(page: Any) -> str:
    return str(page.locator("#aizac-draft").inner_text())


def test_the_beat_tab_knows_the_plot_the_start_tab_generated(page: Any) -> None:
    """It said "아직 플롯이 없습니다" until 새로고침, though the plot was there."""
    _plotted(page)
    tab(page, say("ui.tab.beats"))
    no_plot = say("ui.no_plot_yet").strip("_").split(".")[0]
    page.wait_for_function(
        "(t) => !document.getElementById('aizac-draft').innerText.includes(t)", arg=no_plot,
        timeout=15_000)
    assert no_plot not in _draft_says(page)
    wait_enabled(page, "aizac-next-beat")
    _shot(page, "beat-tab-after-plot")


def test_a_page_reloaded_during_a_generation_shows_it_running_then_its_result(
    page: Any, model: ScriptedChatModel
) -> None:
    _plotted(page)
    tab(page, say("ui.tab.beats"))
    model.slow(0.5)  # the design streams for half a minute (unless sped up below)
    click(page, "aizac-next-beat")
    page.locator("#aizac-status .aizac-spinner").wait_for()
    page.reload()
    page.wait_for_selector("#aizac-create")
    # running, said on the reloaded page, with the action buttons waiting
    try:
        page.locator("#aizac-status .aizac-spinner").wait_for(timeout=15_000)
    except Exception:
        shot(page, "failure")
        raise
    assert say("ui.busy.next") in page.locator("#aizac-status").inner_text()
    tab(page, say("ui.tab.beats"))
    assert not page.locator("#aizac-next-beat").is_enabled()
    _shot(page, "reloaded-while-designing")
    model.slow(0)
    status_says(page, say("ui.designed"))  # its result, with no 새로고침
    beats_show(page, say("beat.status.draft"))
    assert field(page, "aizac-location").input_value()
    wait_enabled(page, "aizac-accept")


def test_an_accept_shows_its_progress_and_outcome_beside_its_button(
    page: Any, model: ScriptedChatModel
) -> None:
    _plotted(page)
    tab(page, say("ui.tab.beats"))
    # an 8-second accept: the draft's memories are extracted while the writer reads it, and
    # the accept waits for that extraction (each model call takes 8 s here, until sped up)
    model.think(8)
    click(page, "aizac-next-beat")
    status_says(page, say("ui.designed"))
    # the button at the bottom edge of the window, where a writer scrolling down meets it: its
    # note, under the row, must still come into view
    page.locator("#aizac-accept").evaluate("e => e.scrollIntoView({block: 'end'})")
    click(page, "aizac-accept")
    note = page.locator("#aizac-note-beat")
    running = page.wait_for_function(
        "() => { const n = document.getElementById('aizac-note-beat');"
        " return n && n.querySelector('.aizac-spinner') ? n.innerText : false; }",
        timeout=15_000).json_value()
    assert say("ui.busy.accept").split(":")[0] in running
    _shot(page, "accept-progress-beside-the-button")
    # beside the button and in view (the page-top status is scrolled away here)
    button, box = page.locator("#aizac-accept").bounding_box(), note.bounding_box()
    assert abs(box["y"] - button["y"]) < 250, (button, box)
    assert note.is_visible() and 0 <= box["y"] <= page.viewport_size["height"]
    model.think(0)
    note.get_by_text(say("ui.accepted_done")).wait_for()
    assert not note.locator(".aizac-spinner").count()
    _shot(page, "accepted-beside-the-button")


LONG = ("재벌가의 막내 손자로 태어나 형들의 견제 속에 버려졌다가 회귀한 뒤 그룹을 되찾으려는 남자,"
        " 냉정하지만 가족에게는 약하다")
RIGHT_EDGES = """(id) => {
  const box = document.getElementById(id);
  const frame = box.querySelector('.table-wrap, table').getBoundingClientRect();
  const heads = [...box.querySelectorAll('thead th')].filter(h => h.offsetWidth);
  const last = heads[heads.length - 1].getBoundingClientRect();
  return [last.left, last.right, frame.right, heads.length];
}"""


def test_the_plot_tables_show_every_column_and_keep_them(page: Any) -> None:
    """Issue 23 item 8: the last columns (소개, 주요 사건) were cut off, and Gradio's column
    menu could delete a column (the save then named the wrong field)."""
    _plotted(page)
    for table, column in (("aizac-characters", 2), ("aizac-acts", 3)):  # as a model writes them
        type_cell(page, page.locator(f"#{table} [data-testid='cell-0-{column}']"), LONG)
        page.locator("#aizac-overview").click()
    for table in ("aizac-characters", "aizac-settings", "aizac-acts"):
        left, right, frame, _ = page.evaluate(RIGHT_EDGES, table)
        assert right <= frame + 1 and left < frame, (table, left, right, frame)
        page.locator(f"#{table} [data-testid='cell-0-1']").click()
        page.locator(f"#{table} .cell-menu-button").first.click(force=True)
        menu = page.locator(".cell-menu").last
        menu.get_by_text("위에 행 추가").wait_for()  # Gradio's own menu, open
        assert "열 삭제" not in menu.inner_text(), table  # no "delete column"
        page.locator("#aizac-overview").click()  # closes it
    page.locator("#aizac-acts").scroll_into_view_if_needed()
    _shot(page, "plot-tables-every-column")
