"""Issue 13 in the browser: the writer sets the episode length and the next prose uses it.

Debian chromium through Playwright against an in-process server with the scripted model.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aizac.cliches import ClicheDB
from tests.fakes import ScriptedChatModel
from tests.web.browser_kit import (
    CHROMIUM,
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


@pytest.fixture
def model() -> ScriptedChatModel:
    return ScriptedChatModel()


@pytest.fixture
def page(tmp_path: Path, cliche_db: ClicheDB, model: ScriptedChatModel) -> Iterator[Any]:
    with served(tmp_path, cliche_db, model) as url, browser_page(url) as pg:
        yield pg


def test_the_writer_sets_the_episode_length_and_the_prose_uses_it(
    page: Any, model: ScriptedChatModel
) -> None:
    length_box = page.locator("#aizac-new-length")
    pick(page, "aizac-language", "한국어")  # the unit and default follow the story language
    length_box.get_by_text("5,000 characters").wait_for()
    pick(page, "aizac-language", "English")
    length_box.get_by_text("2,000 words").wait_for()
    field(page, "aizac-new-name").fill("dawn")
    field(page, "aizac-keywords").fill("regression, revenge")
    field(page, "aizac-new-beats").fill("2")
    field(page, "aizac-new-length").fill("900")
    click(page, "aizac-create")
    status_says(page, "Created project")
    wait_enabled(page, "aizac-generate-plot")
    click(page, "aizac-generate-plot")
    status_says(page, "Plot generated")
    tab(page, "Beat editor")
    page.locator("#aizac-episode-length").get_by_text("Episode length").first.click()
    note = page.locator("#aizac-ep-note")
    note.get_by_text("900 words").wait_for()
    assert "2 beats" in note.inner_text()
    field(page, "aizac-ep-beats").fill("0")
    click(page, "aizac-save-episode")
    status_says(page, "between 1 and 50")
    field(page, "aizac-ep-beats").fill("2")
    field(page, "aizac-ep-length").fill("600")
    click(page, "aizac-save-episode")
    status_says(page, "Saved the episode length: 2 beats, 600 words")
    assert "about 300 words per beat" in note.inner_text()
    shot(page, "30-episode-length")
    click(page, "aizac-next-beat")
    status_says(page, "Designed the next beat")
    click(page, "aizac-accept")
    status_says(page, "Accepted")
    wait_enabled(page, "aizac-write-prose")
    click(page, "aizac-write-prose")
    status_says(page, "Prose written")
    assert "about 300 words" in model.prompts[-1]


def test_write_this_episode_writes_each_accepted_beat_and_keeps_one_in_the_box(
    page: Any, model: ScriptedChatModel
) -> None:
    """Issue 26: "Write this episode" writes the prose of the selected beat's episode (its
    accepted beats without prose), then the box shows the selected beat's own prose, which is
    what "Save prose" would save; a second click says there is nothing left to write."""
    field(page, "aizac-new-name").fill("dusk")
    field(page, "aizac-keywords").fill("regression, revenge")
    field(page, "aizac-new-beats").fill("2")
    click(page, "aizac-create")
    status_says(page, "Created project")
    wait_enabled(page, "aizac-generate-plot")
    click(page, "aizac-generate-plot")
    status_says(page, "Plot generated")
    tab(page, "Beat editor")
    for _ in range(2):
        click(page, "aizac-next-beat")
        status_says(page, "Designed the next beat")
        click(page, "aizac-accept")
        status_says(page, "Accepted")
    wait_enabled(page, "aizac-write-episode")
    pick(page, "aizac-prose-beat", "1-1 ")
    before = len(model.prompts)
    click(page, "aizac-write-episode")
    status_says(page, "The episode's prose is written and saved")
    assert sum(1 for c in model.calls[before:] if c == "") == 2  # a fake declares nothing
    box = field(page, "aizac-prose")
    first = box.input_value()
    assert first.strip() and "(0)" in first and "(1)" not in first  # beat 1's scene alone
    shot(page, "31-write-episode")
    pick(page, "aizac-prose-beat", "1-2 ")
    page.wait_for_function(
        "() => { const t = document.querySelector('#aizac-prose textarea');"
        " return t && t.value.includes('(1)'); }")
    click(page, "aizac-write-episode")
    status_says(page, "has its prose already")
