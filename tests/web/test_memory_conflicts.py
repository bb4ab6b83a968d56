"""The Memory tab's flagged pairs (issue 24 item 1): "these two may conflict: keep which?" with
a way to keep one — handlers over a real WriterMemory, then the page in chromium (Korean)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from aizac.application.service import ApplicationService
from aizac.cliches import ClicheDB
from aizac.errors import InvalidInputError
from aizac.llm.embeddings import HashingEmbeddings
from aizac.settings import Settings
from aizac.web import handlers as h
from aizac.web import inspector
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

SCREENS = Path(__file__).resolve().parents[2] / "docs" / "screens" / "memory-conflicts"


def _flag(memory: Any) -> tuple[str, str, str]:
    """A condition and a whereabouts, then a fact the extractor said may restate both (kept
    beside them, flagged); returns the ids (hurt, where, both)."""
    ids: list[str] = []
    for text in ("Duke Veil hurt a leg in the duel.", "Duke Veil is in the capital.",
                 "Duke Veil, wounded, hides in the port town."):
        batch = memory.stage()
        ids.append(str(batch.note(text, "Character", character_name="Duke Veil",
                                  conflicts=ids[:2] if len(ids) == 2 else None)))
        batch.commit()
    return ids[0], ids[1], ids[2]


def test_the_pairs_are_listed_and_settled_with_the_writers_choice(
    service: ApplicationService,
) -> None:
    name = h.create_project(service, "dawn", "fantasy", "regression", "en")
    h.generate_plot(service, name)
    memory = service.agent(name).memory
    hurt, where, both = _flag(memory)
    choices = inspector.conflict_choices(service, name, "ko")
    assert {value for _, value in choices} == {f"{both}|{hurt}", f"{both}|{where}"}
    assert all(label.startswith("새 기억: Duke Veil, wounded") for label, _ in choices)
    said = inspector.settle_pair(service, name, f"{both}|{where}", "keep-newer", "ko")
    assert said == "남긴 기억: Duke Veil, wounded, hides in the port town."
    assert memory.get(where).metadata["superseded_by"] == both
    said = inspector.settle_pair(service, name, f"{both}|{hurt}", "keep-both", "en")
    assert said.startswith("Both kept: Duke Veil, wounded")
    assert inspector.conflict_choices(service, name) == []
    with pytest.raises(InvalidInputError):
        inspector.settle_pair(service, name, None, "keep-older")


# ------------------------------------------------------------------------------ browser
@contextmanager
def _served(tmp_path: Path, cliche_db: ClicheDB) -> Iterator[tuple[str, Studio]]:
    from aizac.web.app import create_app

    settings = Settings(data_dir=tmp_path / "data", language="en", structured_retries=1,
                        transient_retries=0)
    studio = Studio(settings, models=dict.fromkeys(ROLES, ScriptedChatModel()),
                    embeddings=HashingEmbeddings(), cliches=cliche_db, beats_per_episode=3)
    app, export_dir = create_app(studio, language="ko")
    url = serve_app(app, export_dir)  # retries Gradio's self-check when it times out under load
    try:
        yield url, studio
    finally:
        app.close()


@pytest.mark.browser
@pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium (/usr/bin/chromium) absent")
def test_a_writer_keeps_one_of_two_facts_in_the_korean_memory_tab(
    tmp_path: Path, cliche_db: ClicheDB,
) -> None:
    with _served(tmp_path, cliche_db) as (url, studio):
        studio.create("dawn", "regression, revenge", genre="fantasy", language="en")
        hurt, where, both = _flag(studio.open("dawn").memory)
        with browser_page(url, locale="ko-KR") as page:
            _settle_in_the_page(page, studio, hurt, where, both)


def _settle_in_the_page(page: Any, studio: Studio, hurt: str, where: str, both: str) -> None:
    """Open the project, see the pairs in the Memory tab, keep the newer, then both."""
    pick(page, "aizac-project", "dawn")
    tab(page, "기억")
    click(page, "aizac-mem-refresh")
    box = page.locator("#aizac-conflicts")
    box.get_by_text("이 두 기억은 서로 어긋날 수 있습니다").first.wait_for()
    page.wait_for_function(
        "() => document.querySelector('#aizac-conflicts input')?.value.includes('새 기억')")
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.locator("#aizac-conflicts").scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENS / "01-two-facts-may-conflict-ko.png"))
    pick(page, "aizac-conflicts", "port town")
    click(page, "aizac-keep-newer")
    status_says(page, "남긴 기억: Duke Veil, wounded")
    memory = studio.open("dawn").memory
    assert memory.get(where).metadata["superseded_by"] == both or memory.get(
        hurt).metadata["superseded_by"] == both
    click(page, "aizac-keep-both")  # the remaining pair: both stay
    status_says(page, "둘 다 남겼습니다")
    page.locator("#aizac-conflicts").get_by_text("정리를 기다리는 기억이 없습니다").first.wait_for(
    )
    page.screenshot(path=str(SCREENS / "02-settled-ko.png"))
    assert memory.conflicts() == []
    assert page.outside_requests == []
