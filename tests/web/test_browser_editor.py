"""Issue 11 in the browser: the editor keeps the writer's work and says what it is doing.

Debian chromium through Playwright against an in-process server with the scripted model.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aizac.cliches import ClicheDB
from tests.fakes import ScriptedChatModel
from tests.fakes import scripted as fakes
from tests.web.browser_kit import (
    CHROMIUM,
    add_table_row,
    beats_show,
    browser_page,
    click,
    enabled,
    field,
    pick,
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


@pytest.fixture
def model() -> ScriptedChatModel:
    return ScriptedChatModel()


@pytest.fixture
def page(tmp_path: Path, cliche_db: ClicheDB, model: ScriptedChatModel) -> Iterator[Any]:
    with served(tmp_path, cliche_db, model) as url, browser_page(url) as pg:
        yield pg


def _plotted(page: Any, name: str = "dawn") -> None:
    field(page, "aizac-new-name").fill(name)
    field(page, "aizac-genre").fill("fantasy")
    field(page, "aizac-keywords").fill("regression, revenge")
    click(page, "aizac-create")
    status_says(page, "Created project")
    wait_enabled(page, "aizac-generate-plot")
    click(page, "aizac-generate-plot")
    status_says(page, "Plot generated")


def _drafted(page: Any) -> None:
    _plotted(page)
    tab(page, "Beat editor")
    click(page, "aizac-next-beat")
    status_says(page, "Designed the next beat")


def test_the_notes_beside_the_buttons_speak_of_the_open_project(page: Any) -> None:
    """A new novel showed "Plot generated." beside its empty plot: the note was the last
    project's. Opening a project clears the notes; the next action there writes its own."""
    _plotted(page, "first")
    note = page.locator("#aizac-note-plot")
    note.get_by_text("Plot generated").wait_for()
    field(page, "aizac-new-name").fill("second")
    click(page, "aizac-create")
    status_says(page, "Created project")
    page.wait_for_function("() => document.getElementById('aizac-note-plot').innerText"
                           ".trim() === ''")
    click(page, "aizac-generate-plot")
    note.get_by_text("Plot generated").wait_for()
    pick(page, "aizac-project", "first")
    page.wait_for_function("() => document.getElementById('aizac-note-plot').innerText"
                           ".trim() === ''")


def test_an_empty_editor_disables_what_cannot_be_done(page: Any) -> None:
    tab(page, "Beat editor")
    for name in ("next-beat", "accept", "save-edit", "regenerate", "undo", "redo",
                 "write-prose", "cancel-beat"):
        assert not enabled(page, f"aizac-{name}"), name
    shot(page, "11-empty-editor")


def test_accept_keeps_the_place_typed_without_save_edit(page: Any) -> None:
    _drafted(page)
    field(page, "aizac-location").fill("The burned chapel")
    click(page, "aizac-accept")
    status_says(page, "Accepted")
    beats_show(page, "accepted")
    assert "The burned chapel" in page.locator("#aizac-beats").inner_text()


def test_regenerate_keeps_saved_edits_and_follows_the_instruction(
    page: Any, model: ScriptedChatModel
) -> None:
    model.react("more tension", {"conflicts": ["A blade at Aren's throat."]})
    _drafted(page)
    field(page, "aizac-location").fill("The burned chapel")
    field(page, "aizac-time").fill("Midnight")
    click(page, "aizac-save-edit")
    status_says(page, "Saved your edit")
    locked = page.locator("#aizac-locked input[type=checkbox]")
    # the saved locks are drawn with the edit's answer; a busy page may draw them a moment
    # after the status
    page.wait_for_function("() => { const b = document.querySelectorAll("
                           "'#aizac-locked input[type=checkbox]');"
                           " return b.length > 1 && b[0].checked && b[1].checked; }",
                           timeout=30_000)
    ticked = [locked.nth(i).is_checked() for i in range(locked.count())]
    assert ticked[:2] == [True, True] and not any(ticked[2:])
    field(page, "aizac-instruction").fill("more tension")
    click(page, "aizac-regenerate")
    status_says(page, "Regenerated")
    assert field(page, "aizac-location").input_value() == "The burned chapel"
    assert field(page, "aizac-time").input_value() == "Midnight"
    assert field(page, "aizac-conflicts").input_value() == "A blade at Aren's throat."
    shot(page, "12-regenerated-locked")


def test_next_beat_with_a_draft_pending_says_so(page: Any) -> None:
    _drafted(page)
    click(page, "aizac-next-beat")
    status_says(page, "already waiting")


def test_an_error_goes_to_the_status_and_the_fields_keep_their_text(page: Any) -> None:
    _drafted(page)
    field(page, "aizac-location").fill("The burned chapel")
    field(page, "aizac-dialogue").fill("a line without a speaker")
    click(page, "aizac-save-edit")
    status_says(page, re.compile("Speaker: line"))
    assert field(page, "aizac-location").input_value() == "The burned chapel"
    assert field(page, "aizac-dialogue").input_value() == "a line without a speaker"
    assert page.locator(".error, [data-testid='error']").count() == 0  # no red pill over outputs
    assert "Status" in page.locator("#aizac-beats").inner_text()  # table headers still shown
    shot(page, "13-error-in-status")


def test_a_long_operation_shows_progress_blocks_clicks_and_cancel_stops_it(
    page: Any, model: ScriptedChatModel
) -> None:
    _plotted(page)
    tab(page, "Beat editor")
    model.slow(0.3)  # ~18 s for a beat unless cancelled
    click(page, "aizac-next-beat")
    status_says(page, re.compile(r"designing beat 1-1"))
    assert not enabled(page, "aizac-next-beat") and not enabled(page, "aizac-undo")
    assert not enabled(page, "aizac-generate-plot")
    assert enabled(page, "aizac-cancel-beat")
    # The busy sign is drawn by CSS, not an emoji glyph (a box in chromium without an emoji font).
    spinner = page.locator("#aizac-status .aizac-spinner")
    assert spinner.count() == 1
    assert spinner.evaluate("e => getComputedStyle(e).animationName") == "aizac-spin"
    assert "⏳" not in page.locator("#aizac-status").inner_text()
    shot(page, "14-progress")
    click(page, "aizac-cancel-beat")
    status_says(page, "Cancelled")
    streamed = model.streamed
    wait_enabled(page, "aizac-next-beat")
    page.wait_for_timeout(1500)
    assert model.streamed - streamed <= 2  # the model stopped, it is not still computing
    assert "draft" not in page.locator("#aizac-beats").inner_text()


def test_a_plot_written_by_hand_is_saved(page: Any, model: ScriptedChatModel) -> None:
    field(page, "aizac-new-name").fill("hand")
    field(page, "aizac-keywords").fill("regression")
    click(page, "aizac-create")
    status_says(page, "Created project")
    wait_enabled(page, "aizac-save-plot")
    for elem, row in (("aizac-characters", ["Aren", "hero", "A knight."]),
                      ("aizac-settings", ["Eastwall", "A fort."])):
        add_table_row(page, elem, row)
    acts = page.locator("#aizac-acts")
    # A writer scrolls down to the acts before typing there; Gradio's table draws its rows
    # through a virtual list that measures its view (CI once waited 120 s for the fifth stage
    # of this table, below two others; not reproduced in 16 runs under load). If it still never
    # shows, the failure says what the table held.
    acts.scroll_into_view_if_needed()
    try:
        acts.locator("[data-testid='cell-4-0']").get_by_text("resolution").wait_for()
    except Exception as e:
        raise AssertionError(f"the acts never showed their five stages: {acts.inner_text()!r}"
                             ) from e
    for row in range(5):
        for col, text in ((1, "Goal"), (3, "Event")):
            type_cell(page, acts.locator(f"[data-testid='cell-{row}-{col}']"), text)
    field(page, "aizac-plot-title").fill("Written by hand")
    field(page, "aizac-logline").fill("A knight goes back in time.")
    page.wait_for_timeout(500)
    click(page, "aizac-save-plot")
    status_says(page, "Plot saved")
    assert model.calls == []
    assert "Written by hand" in page.locator("#aizac-overview").inner_text()


def test_use_this_puts_a_cliche_suggestion_into_the_draft(page: Any) -> None:
    _drafted(page)
    click(page, "aizac-suggest")
    page.locator("#aizac-suggestions li, #aizac-suggestions p").first.wait_for()
    wait_enabled(page, "aizac-use-this")
    before = field(page, "aizac-events").input_value()
    click(page, "aizac-use-this")
    status_says(page, "Added the suggestion")
    after = field(page, "aizac-events").input_value()
    assert after.startswith(before) and len(after.splitlines()) == len(before.splitlines()) + 1


# -------------------------------------------------------------------------------- Korean
def _model_words() -> set[str]:
    text = json.dumps(fakes.PLOT) + " ".join(
        json.dumps(fakes.beat_design(n)) for n in range(6)
    ) + " ".join(fakes._reply(t, n) for t in (
        "StoryExtraction", "CharacterExtraction", "RelationExtraction", "SettingExtraction",
        "BeatSummary", "CharacterProfile", "") for n in range(6))
    return {w.casefold() for w in re.findall(r"[A-Za-z]+", text)}


ALLOWED = {"aizac", "txt", "md", "epub", "docx", "zip", "id", "ko", "en", "zh", "english", "api",
           "csv", "tsv"}  # file formats (Gradio's own Korean drop hint names CSV and TSV)
# Visible text without names that stay as they are: model specs written as code
# (`openai:gpt-4o`), the roles table's model and provider columns, the memories' hex ids.
# Gradio renders table rows virtually, so cells are found by their test ids. Screen-reader-only
# text (.sr-only) is not on screen (Gradio's announcer, which said its untranslated key
# "common.complete" there, is silenced by hidden progress: test_browser_gradio_texts.py).
VISIBLE_UI_TEXT = """() => {
  const style = document.createElement('style');
  style.textContent = ".sr-only, code, #aizac-roles [data-testid^='cell-'][data-testid$='-1'], "
    + "#aizac-roles [data-testid^='cell-'][data-testid$='-2'], "
    + "#aizac-memories [data-testid^='cell-'][data-testid$='-0'] { display: none !important; }";
  document.head.appendChild(style);
  const text = document.body.innerText; style.remove(); return text;
}"""
"""The page's visible text without what stays as written (model specs, memory ids). Read from
the live page with those parts hidden for the moment by a style: a copy of the page appended to
it held a copy of ``<gradio-app>``, which booted a second Gradio app (its own session, timers and
load events) on every read, and a click could then wait forever for a reply."""


def _settled(page: Any) -> str:
    """The visible UI text once Gradio's own progress overlays ("processing", "queue") are gone
    (they belong to Gradio and last while an event runs)."""
    settled = page.wait_for_function(
        f"() => {{ const text = ({VISIBLE_UI_TEXT})();"
        " return /processing|queue/.test(text) ? false : text; }")
    return str(settled.json_value())


def _settled_status(page: Any) -> str:
    settled = page.wait_for_function(
        "() => { const text = document.getElementById('aizac-status').innerText;"
        " return /processing|queue/.test(text) ? false : text; }")
    return str(settled.json_value())


def _english(text: str) -> set[str]:
    words = {w for w in re.findall(r"[A-Za-z]{2,}", text)}
    model = _model_words()
    return {w for w in words if w.casefold() not in ALLOWED and w.casefold() not in model}


@pytest.fixture
def ko_page(tmp_path: Path, cliche_db: ClicheDB, model: ScriptedChatModel) -> Iterator[Any]:
    model.speak_korean()
    with served(tmp_path, cliche_db, model, language="ko") as url, \
            browser_page(url, locale="ko-KR") as pg:
        yield pg


def test_every_tab_reads_in_korean(ko_page: Any) -> None:
    page = ko_page
    click(page, "aizac-create")  # an error, in Korean
    status_says(page, "키워드")
    # Read once Gradio's own "processing |" is gone: CI (heavily loaded) once caught it in the
    # status area at this first click after the page loaded, though every event's progress is
    # hidden; not reproduced here at load 5. Later events are watched for it by a
    # MutationObserver in test_browser_gradio_texts.
    seen: dict[str, set[str]] = {"error": _english(_settled_status(page))}
    field(page, "aizac-new-name").fill("dawn")
    field(page, "aizac-keywords").fill("회귀, 복수")
    click(page, "aizac-create")
    status_says(page, "만들었습니다")
    wait_enabled(page, "aizac-generate-plot")
    click(page, "aizac-generate-plot")
    status_says(page, "플롯을 생성했습니다")
    seen["시작"] = _english(_settled(page))
    shot(page, "20-ko-start")
    tab(page, "비트 편집")
    click(page, "aizac-next-beat")
    status_says(page, "설계했습니다")
    click(page, "aizac-accept")
    status_says(page, "확정했습니다")
    click(page, "aizac-write-prose")
    status_says(page, "본문을 쓰고 저장했습니다")
    click(page, "aizac-undo")
    status_says(page, "실행 취소했습니다")
    seen["비트 편집"] = _english(_settled(page))
    shot(page, "21-ko-editor")
    undo, cancel = (page.locator(f"#aizac-{b}").inner_text() for b in ("undo", "cancel-beat"))
    assert undo != cancel and "취소" not in cancel  # 실행 취소 (undo) vs 생성 중단 (cancel)
    for name in ("cancel-beat", "cancel-prose"):  # "■ 생성 중단" on one line, not two
        box, next_box = (page.locator(f"#aizac-{b}").bounding_box()
                         for b in (name, "next-beat"))
        assert box["height"] <= next_box["height"] + 2, name
    tab(page, "기억")
    click(page, "aizac-mem-refresh")
    # The table scrolls (max_height), so Gradio renders its rows virtually: a row is found by
    # its cells' test ids, not as a visible ``tbody tr`` (the skip's "no rows after Undo").
    first_memory = page.locator("#aizac-memories [data-testid='cell-0-2']")
    first_memory.wait_for()
    assert "아렌" in page.locator("#aizac-memories").inner_text()  # the plot's cast, kept
    pick(page, "aizac-selected")
    click(page, "aizac-curves")
    page.locator("#aizac-curve-plot img, #aizac-curve-plot svg").first.wait_for()
    seen["기억"] = _english(_settled(page))
    font = first_memory.evaluate("e => getComputedStyle(e).fontFamily")
    assert "mono" not in font.casefold()  # Korean cells read in the sans font
    shot(page, "22-ko-memory")
    tab(page, "내보내기")
    seen["내보내기"] = _english(_settled(page))
    tab(page, "모델")
    seen["모델"] = _english(_settled(page))
    shot(page, "23-ko-models")
    assert {k: v for k, v in seen.items() if v} == {}


def test_a_writers_plot_is_replaced_only_after_they_confirm(
    ko_page: Any, model: ScriptedChatModel
) -> None:
    """Generating over the writer's plot warns in Korean and changes nothing until the writer
    ticks the confirmation (the embedded model replaced a hand-written plot with one click)."""
    page = ko_page
    field(page, "aizac-new-name").fill("mine")
    field(page, "aizac-keywords").fill("회귀, 복수")
    click(page, "aizac-create")
    status_says(page, "만들었습니다")
    wait_enabled(page, "aizac-generate-plot")
    assert not page.locator("#aizac-replace-plot").is_visible()  # no plot: one click
    click(page, "aizac-generate-plot")
    status_says(page, "플롯을 생성했습니다")
    field(page, "aizac-plot-title").fill("내가 고친 제목")
    click(page, "aizac-save-plot")
    status_says(page, "플롯을 저장했습니다")
    click(page, "aizac-generate-plot")
    status_says(page, "이미 플롯이 있어")
    shot(page, "30-ko-replace-plot-warning")
    assert "내가 고친 제목" in page.locator("#aizac-overview").inner_text()
    assert model.calls == ["NovelPlot"]
    box = page.locator("#aizac-replace-plot input")
    box.check()
    click(page, "aizac-generate-plot")
    status_says(page, "플롯을 생성했습니다")
    assert model.calls == ["NovelPlot", "NovelPlot"]
    page.locator("#aizac-overview").get_by_text("두 번째 새벽").wait_for()
    assert not box.is_checked()  # the next replacement is confirmed anew


def test_plan_this_episode_drafts_the_beats_left_and_keeps_the_typed_place(page: Any) -> None:
    """Issue 26: one click designs every beat left in the episode (the place typed into the
    draft stays the writer's); the drafts come back one by one to accept."""
    _drafted(page)
    field(page, "aizac-location").fill("The burned chapel")
    click(page, "aizac-plan-episode")
    status_says(page, re.compile(r"Designed \d+ beats of episode 1"))
    assert field(page, "aizac-location").input_value() == "The burned chapel"
    table = page.locator("#aizac-beats").inner_text()
    assert table.count("draft") > 1
    screens = Path(__file__).resolve().parents[2] / "docs" / "screens" / "plan-episode"
    screens.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(screens / "planned-episode.png"))
    click(page, "aizac-accept")
    status_says(page, "Accepted")
    assert field(page, "aizac-location").input_value() != "The burned chapel"  # the next draft
    assert "accepted" in page.locator("#aizac-beats").inner_text()
