"""Gradio's own English progress texts never show in the Korean page (issue 11 item 11).

Gradio 6's progress overlay writes "processing | 0.3s" (hard-coded English) over an event's
outputs, and its screen-reader announcer says the untranslated key "common.complete" after each
event. The app has its own status area in the UI language, so every event hides Gradio's.
Debian chromium through Playwright against an in-process server with the scripted model.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aizac.cliches import ClicheDB
from aizac.web.app import create_app
from aizac.writer.service import Studio
from tests.fakes import ScriptedChatModel
from tests.web.browser_kit import (
    CHROMIUM,
    browser_page,
    click,
    field,
    gradio_words_seen,
    served,
    shot,
    status_says,
    tab,
    wait_enabled,
    watch_gradio_words,
)


def test_every_event_hides_gradios_own_progress(studio: Studio) -> None:
    app, _ = create_app(studio, language="ko")
    sent = app.config["dependencies"]  # what the page gets (taken when the Blocks closed)
    shown = {d["id"]: d["show_progress"] for d in sent if d["show_progress"] != "hidden"}
    assert len(sent) == len(app.fns) > 20 and shown == {}


@pytest.fixture
def ko_page(tmp_path: Path, cliche_db: ClicheDB) -> Iterator[Any]:
    model = ScriptedChatModel()
    model.speak_korean()
    with served(tmp_path, cliche_db, model, language="ko") as url, \
            browser_page(url, locale="ko-KR") as pg:
        watch_gradio_words(pg)
        yield pg


@pytest.mark.browser
@pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium (/usr/bin/chromium) absent")
def test_no_gradio_english_flashes_during_korean_actions(ko_page: Any) -> None:
    page = ko_page
    field(page, "aizac-new-name").fill("dawn")
    field(page, "aizac-keywords").fill("회귀, 복수")
    click(page, "aizac-create")  # a quick action
    status_says(page, "만들었습니다")
    wait_enabled(page, "aizac-generate-plot")
    click(page, "aizac-generate-plot")  # a long one
    status_says(page, "플롯을 생성했습니다")
    tab(page, "비트 편집")
    click(page, "aizac-next-beat")
    status_says(page, "설계했습니다")
    field(page, "aizac-location").fill("불타는 예배당")
    click(page, "aizac-save-edit")
    status_says(page, "저장했습니다")
    click(page, "aizac-undo")
    status_says(page, "실행 취소했습니다")
    click(page, "aizac-accept")
    status_says(page, "확정했습니다")
    click(page, "aizac-write-prose")
    status_says(page, "본문을 쓰고 저장했습니다")
    tab(page, "내보내기")
    click(page, "aizac-download")  # a File output: Gradio showed "processing" there regardless
    status_says(page, "내보냈습니다")
    page.locator("#aizac-exported a").first.wait_for()
    tab(page, "기억")
    click(page, "aizac-mem-refresh")
    page.locator("#aizac-memories [data-testid='cell-0-2']").wait_for()
    page.wait_for_timeout(1500)  # the announcer speaks just after an event ends
    seen = gradio_words_seen(page)
    if seen:
        shot(page, "24-ko-gradio-english")
    assert sorted({s.split(":")[0] for s in seen}) == []
