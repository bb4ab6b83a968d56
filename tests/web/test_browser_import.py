"""A Korean writer brings a serial already under way (issue 42), in chromium: uploads the folder
of txt files (one in CP949), reads the preview, moves one boundary, imports it as a new project,
reads what reading it into memory will cost, reads it (progress in the status), has the planner
draft the plot of the story so far, runs the continuity report, and writes the next beat after
the last imported episode.
``DOC_SCREENS=1`` keeps the screens in ``docs/screens/import/``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from aizac.cliches import ClicheDB
from aizac.text import t
from tests.fakes.reading import ReadingModel
from tests.manuscript.conftest import write_serial
from tests.web.browser_kit import (
    CHROMIUM,
    browser_page,
    click,
    field,
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
SCREENS = Path(__file__).resolve().parents[2] / "docs" / "screens" / "import"


def say(key: str, **params: Any) -> str:
    return t(key, "ko", **params)


def keep(page: Any, name: str) -> None:
    shot(page, f"import-{name}")
    if os.environ.get("DOC_SCREENS") == "1":
        SCREENS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENS / f"{name}.png"))


def preview_rows(page: Any, n: int) -> None:
    """Wait until the preview table has ``n`` rows (an episode each)."""
    try:
        page.wait_for_function(
            "(n) => document.querySelectorAll(`#aizac-import-preview [data-testid$='-0']"
            "[data-testid^='cell-']`).length === n",
            arg=n)
    except Exception:
        shot(page, "import-failure")
        rows = page.locator("#aizac-import-preview [data-testid^='cell-'][data-testid$='-0']"
                            ).count()
        raise AssertionError(f"the preview never had {n} rows; it has {rows}") from None


def test_a_korean_writer_imports_a_serial_and_writes_on(tmp_path: Path,
                                                        cliche_db: ClicheDB) -> None:
    folder = write_serial(tmp_path, episodes=3, cp949=2)
    files = sorted(folder.iterdir())
    model = ReadingModel()
    model.speak_korean()
    with served(tmp_path, cliche_db, model, language="ko") as url, \
            browser_page(url, locale="ko-KR") as page:
        page.get_by_text(say("ui.import.title")).first.click()
        page.locator("#aizac-import-files input[type=file]").set_input_files(
            [str(f) for f in files])
        status_says(page, say("ui.import.previewed"))
        summary = page.locator("#aizac-import-summary")
        summary.get_by_text("3화", exact=False).first.wait_for()
        assert "cp949" in summary.inner_text().lower()  # the file read in the Korean encoding
        preview_rows(page, 3)
        table_shows(page, "aizac-import-preview", "1화 1장 1문단")
        keep(page, "1-preview")

        # one boundary moved: episode 3 is two episodes, the second from its 4th paragraph
        field(page, "aizac-import-episode").fill("3")
        field(page, "aizac-import-paragraph").fill("4")
        click(page, "aizac-import-split")
        status_says(page, say("ui.import.redrawn"))
        preview_rows(page, 4)
        table_shows(page, "aizac-import-preview", "3화 2장 1문단")
        keep(page, "2-adjusted")

        # a paragraph that is not a number is refused, the preview kept as it was
        field(page, "aizac-import-paragraph").fill("넷")
        click(page, "aizac-import-split")
        status_says(page, say("ui.import.paragraph"))
        preview_rows(page, 4)

        field(page, "aizac-new-name").fill("이어쓰기")
        field(page, "aizac-keywords").fill("귀환, 왕도")  # what the plot will be drafted from
        click(page, "aizac-import")
        status_says(page, say("ui.import.saved", project="이어쓰기", episodes=4, beats=6,
                              characters="x").split(":")[0])
        assert field(page, "aizac-project").input_value() == "이어쓰기"
        keep(page, "3-imported")

        # what reading it will cost, said before anything runs
        page.get_by_text(say("ui.read.title")).first.click()
        wait_enabled(page, "aizac-read-estimate")
        click(page, "aizac-read-estimate")
        status_says(page, say("ui.read.estimated"))
        said = page.locator("#aizac-read-said")
        said.get_by_text("장면 6개", exact=False).first.wait_for()
        keep(page, "4-estimate")

        # the reading: each scene in the status as it goes, then what the memory holds
        click(page, "aizac-read")
        status_says(page, say("ui.busy.read"))
        said.get_by_text(say("read.all_read")).first.wait_for(timeout=120_000)
        keep(page, "5-read")

        # the plot of the story so far, drafted from what was read (names the read cast)
        wait_enabled(page, "aizac-plot-from-story")
        click(page, "aizac-plot-from-story")
        status_says(page, say("ui.plot_generated"))

        # the continuity report of the imported episodes
        page.get_by_text(say("ui.report.title")).first.click()
        wait_enabled(page, "aizac-report")
        click(page, "aizac-report")
        status_says(page, say("ui.report.done"))
        page.locator("#aizac-report-summary").get_by_text("1", exact=False).first.wait_for()
        keep(page, "6-report")

        # the story continues: the next beat after the last imported episode
        tab(page, say("ui.tab.beats"))
        click(page, "aizac-next-beat")
        status_says(page, say("ui.designed"))
        table_shows(page, "aizac-beats", say("beat.status.draft"))
        table_shows(page, "aizac-beats", "5-1")  # after the four imported episodes
        keep(page, "7-next-beat")
        assert page.outside_requests == []
