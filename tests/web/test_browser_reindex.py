"""A hash-era project in the browser, in Korean: opening it says what to do, the Memory tab shows
the note and its Reindex button converts the memory in place (chromium, loopback only).
Screenshots go to docs/screens/reindex/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from aizac.cliches import ClicheDB
from aizac.llm.embeddings import HashingEmbeddings
from aizac.settings import Settings
from aizac.writer.service import Studio
from tests.fakes import ScriptedChatModel
from tests.web.browser_kit import (
    CHROMIUM,
    ROLES,
    browser_page,
    click,
    pick,
    serve_app,
    status_says,
    tab,
)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium (/usr/bin/chromium) absent"),
]
SCREENS = Path(__file__).resolve().parents[2] / "docs" / "screens" / "reindex"


def save(page: Any, name: str) -> None:
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.wait_for_timeout(300)
    page.screenshot(path=str(SCREENS / f"{name}.png"))


def test_the_memory_tab_reindexes_a_hash_era_project(tmp_path: Path, cliche_db: ClicheDB) -> None:
    from aizac.web.app import create_app

    settings = Settings(data_dir=tmp_path / "data", language="ko", structured_retries=1,
                        transient_retries=0)
    old = Studio(settings, embeddings=HashingEmbeddings(), cliches=cliche_db)
    agent = old.create("봄날", "회귀, 복수", language="ko")
    for n in range(6):
        agent.memory.remember(f"도준은 {n}번째 장에서 순양그룹과 맞선다.", "Story", chapter=1)
    old.close()

    studio = Studio(settings, models=dict.fromkeys(ROLES, ScriptedChatModel()),
                    embeddings=HashingEmbeddings(64), cliches=cliche_db)
    app, export_dir = create_app(studio, language="ko")
    url = serve_app(app, export_dir)
    try:
        with browser_page(url, locale="ko-KR") as page:
            pick(page, "aizac-project", "봄날")
            status_says(page, "aizac reindex --project 봄날")  # said on open
            tab(page, "기억")
            note = page.locator("#aizac-reindex-notice")
            note.get_by_text("hash:256").first.wait_for()
            save(page, "memory-tab-before")
            click(page, "aizac-reindex")
            status_says(page, "기억 6개가 이제 hash:64를 씁니다")
            page.wait_for_function(
                "() => !document.querySelector('#aizac-reindex-notice').innerText.trim()")
            save(page, "memory-tab-after")
            assert not page.outside_requests
    finally:
        app.close()
    memory: Any = studio.open("봄날").memory
    assert memory.reindex_needed is None and len(memory) == 6
