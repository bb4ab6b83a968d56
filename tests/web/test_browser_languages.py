"""A Korean and a Chinese page speak their language everywhere, whatever the browser's (issue 22).

Chromium with an English browser locale (``en-US``) against the app in ``ko`` and in ``zh``,
over a Korean story (the scripted model writes Korean): every tab, after the actions a writer
takes, shows no English word in its visible text or in the tooltips and screen-reader labels of
its controls, outside what stays as written (file formats, model specs). Gradio's own chrome
follows the interface language too: its table menu ("Filter", "Clear filters"), its buttons'
tooltips ("Copy table data", "Fullscreen").
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aizac.cliches import ClicheDB
from aizac.text import t
from aizac.web.ui import GRADIO_ENGLISH
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
from tests.web.test_browser_editor import ALLOWED, VISIBLE_UI_TEXT

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium (/usr/bin/chromium) absent"),
]
LATIN = re.compile(r"[A-Za-z]{2,}")
KEPT = {*ALLOWED, "json", "mb", "typographic", "png", "jpg"}
"""Words shown as they are on any page: file formats, model specs' parts, the brand."""
# Tooltips and screen-reader labels of visible controls.
NAMED = """() => [...document.querySelectorAll('[title], [aria-label], [placeholder]')]
  .filter(e => e.checkVisibility() && !e.closest('code, #aizac-roles td'))
  .flatMap(e => ['title', 'aria-label', 'placeholder'].map(a => e.getAttribute(a)))
  .filter(v => v)"""


def _english(words: str) -> set[str]:
    return {w for w in LATIN.findall(words) if w.casefold() not in KEPT}


def _leaks(page: Any) -> set[str]:
    """English words on the page once Gradio's own progress is gone: visible text, then the
    controls' tooltips and labels."""
    settled = page.wait_for_function(
        f"() => {{ const text = ({VISIBLE_UI_TEXT})();"
        " return /processing|queue/.test(text) ? false : text; }")
    named = " ".join(page.evaluate(NAMED))
    return _english(str(settled.json_value())) | _english(named)


@pytest.fixture(params=["ko", "zh"])
def page(request: Any, tmp_path: Path, cliche_db: ClicheDB) -> Iterator[Any]:
    model = ScriptedChatModel()
    model.speak_korean()  # a Korean story: any Latin word on the page is the interface's
    with served(tmp_path, cliche_db, model, language=request.param) as url, \
            browser_page(url, locale="en-US") as pg:
        pg.ui_language = request.param
        yield pg


def test_every_tab_speaks_the_interface_language_not_the_browsers(page: Any) -> None:
    lang = page.ui_language
    say = lambda key, **params: t(key, lang, **params)  # noqa: E731
    seen: dict[str, set[str]] = {"page": _leaks(page)}
    assert page.evaluate("document.documentElement.lang") == {"ko": "ko", "zh": "zh-CN"}[lang]
    field(page, "aizac-new-name").fill("새벽")
    field(page, "aizac-keywords").fill("회귀, 복수")
    pick(page, "aizac-language", say("language.native.ko"))
    click(page, "aizac-create")
    status_says(page, "새벽")
    wait_enabled(page, "aizac-generate-plot")
    click(page, "aizac-generate-plot")
    status_says(page, say("ui.plot_generated"))
    seen["start"] = _leaks(page)
    shot(page, f"40-{lang}-start")
    tab(page, say("ui.tab.beats"))
    click(page, "aizac-next-beat")
    status_says(page, say("ui.designed"))
    click(page, "aizac-undo")
    status_says(page, say("ui.undone"))
    click(page, "aizac-next-beat")
    status_says(page, say("ui.designed"))
    click(page, "aizac-accept")
    status_says(page, say("ui.accepted_done"))
    click(page, "aizac-write-prose")
    status_says(page, say("ui.prose_done"))
    seen["beats"] = _leaks(page)
    shot(page, f"41-{lang}-beats")
    tab(page, say("ui.tab.memory"))
    click(page, "aizac-mem-refresh")
    page.locator("#aizac-memories [data-testid='cell-0-2']").wait_for()
    pick(page, "aizac-selected")
    click(page, "aizac-curves")
    page.locator("#aizac-curve-plot img, #aizac-curve-plot svg").first.wait_for()
    seen["memory"] = _leaks(page)
    shot(page, f"42-{lang}-memory")
    tab(page, say("ui.tab.export"))
    click(page, "aizac-download")
    page.locator("#aizac-exported a").first.wait_for()
    seen["export"] = _leaks(page)
    shot(page, f"43-{lang}-export")
    for name, key in (("gallery", "ui.illustration.tab"), ("autopilot", "ui.tab.autopilot"),
                      ("models", "ui.tab.models")):
        tab(page, say(key))
        page.wait_for_timeout(500)
        seen[name] = _leaks(page)
        shot(page, f"44-{lang}-{name}")
    # Gradio's own table menu, in the interface's words (its translations lack two of them)
    tab(page, say("ui.tab.beats"))
    page.locator("#aizac-beats th").first.hover()
    page.locator("#aizac-beats .cell-menu-button").first.click(force=True)
    page.get_by_text(say("ui.gradio.clear_filter")).wait_for()
    seen["table menu"] = _leaks(page)
    assert {k: v for k, v in seen.items() if v} == {}
    assert say("ui.gradio.fullscreen") in page.evaluate(NAMED)  # Gradio's English, translated


def test_the_page_script_knows_every_english_word_it_replaces() -> None:
    from aizac.text import known

    assert all(known(key) for key in GRADIO_ENGLISH.values())
    for lang in ("ko", "zh"):  # each replacement reads in the language, not in English
        assert not any(_english(t(key, lang)) for key in GRADIO_ENGLISH.values())
