"""The Autopilot tab in Debian chromium (Playwright) against the app on a loopback port, with
the scripted fake model: start a run with the commit gate, see the gate, the prose and the
events, approve, and the run finishes."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from aizac.autopilot.events import RunStore
from aizac.cliches import ClicheDB
from aizac.llm.embeddings import HashingEmbeddings
from aizac.writer.project_dirs import release_project
from tests.autopilot.fakes import JudgingModel, make_studio
from tests.web.browser_kit import CHROMIUM, browser_page, served

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium (/usr/bin/chromium) absent"),
]


def test_autopilot_tab_gate_and_finish(tmp_path: Path) -> None:
    model = JudgingModel()
    studio = make_studio(tmp_path / "data", model)
    agent = studio.create("tab", "regression, revenge", genre="fantasy", language="en")
    agent.plan()
    release_project(agent.store.directory)
    cliche_db = ClicheDB(tmp_path / "data" / "cliches", embeddings=HashingEmbeddings())
    with served(tmp_path, cliche_db, model) as url, browser_page(url) as page:
        page.wait_for_function("document.querySelector('#aizac-project input')"
                               ".value === 'tab'")
        page.get_by_role("tab", name="Autopilot").click()
        page.locator("#aizac-ap-episodes input").fill("1")
        page.locator("#aizac-ap-gates").get_by_label("commit").check()
        page.locator("#aizac-ap-start").click()
        page.wait_for_function("document.querySelector('#aizac-ap-gate').innerText"
                               ".includes('waiting at the commit gate')", timeout=600_000)
        assert "candidate memories" in page.locator("#aizac-ap-gate").inner_text()
        assert "beat 1" in page.locator("#aizac-ap-prose").inner_text()
        assert "review" in page.locator("#aizac-ap-events").inner_text()
        shots = Path("/tmp/shots/h5")
        shots.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(shots / "autopilot-tab-gate.png"), full_page=True)
        page.locator("#aizac-ap-approve").click()
        page.wait_for_function("document.querySelector('#aizac-ap-status').innerText"
                               ".includes('finished')", timeout=600_000)
        assert "finish" in page.locator("#aizac-ap-events").inner_text()
        page.screenshot(path=str(shots / "autopilot-tab-finished.png"), full_page=True)


def _english_on_page(page: Any, run_id: str) -> set[str]:
    """English words in the page's visible text (Gradio's own progress overlays gone)."""
    from tests.web.test_browser_editor import ALLOWED, VISIBLE_UI_TEXT

    settled = page.wait_for_function(
        f"() => {{ const text = ({VISIBLE_UI_TEXT})();"
        " return /processing|queue/.test(text) ? false : text; }")
    text = str(settled.json_value()).replace(run_id, "")
    formats = {*ALLOWED, "json"}  # the edit box takes an instruction or JSON (a format name)
    return {w for w in re.findall(r"[A-Za-z]{2,}", text) if w.casefold() not in formats}


def test_the_autopilot_tab_reads_in_korean(tmp_path: Path) -> None:
    from tests.autopilot.test_panel_text import KoreanJudge

    model = KoreanJudge()
    model.speak_korean()
    studio = make_studio(tmp_path / "data", model)
    agent = studio.create("새벽", "회귀, 복수", genre="판타지", language="ko")
    agent.plan()
    release_project(agent.store.directory)
    cliche_db = ClicheDB(tmp_path / "data" / "cliches", embeddings=HashingEmbeddings())
    with served(tmp_path, cliche_db, model, language="ko") as url, \
            browser_page(url, locale="ko-KR") as page:
        page.wait_for_function("document.querySelector('#aizac-project input')"
                               ".value === '새벽'")
        page.get_by_role("tab", name="자동 연재").click()
        page.locator("#aizac-ap-episodes input").fill("1")
        page.locator("#aizac-ap-gates").get_by_label("확정").check()
        page.locator("#aizac-ap-start").click()
        page.wait_for_function("document.querySelector('#aizac-ap-gate').innerText"
                               ".includes('확정 확인을 기다리는 중')", timeout=600_000)
        run_id = RunStore(agent.store.directory).run().id
        events = page.locator("#aizac-ap-events").inner_text()
        assert "회차" in events and "연속성 검사" in events and "수락" in events
        assert "후보 기억" in page.locator("#aizac-ap-gate").inner_text()
        assert _english_on_page(page, run_id) == set()
        shots = Path("/tmp/shots/h2")
        shots.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(shots / "autopilot-tab-ko.png"), full_page=True)
        page.locator("#aizac-ap-approve").click()
        page.wait_for_function("document.querySelector('#aizac-ap-status').innerText"
                               ".includes('완료')", timeout=600_000)
        assert _english_on_page(page, run_id) == set()


def _absent_in_korean(memory: Any, *, beats: Any, **_: Any) -> Any:
    """A check that finds the same error in every draft (a rewrite never closes it)."""
    from aizac.continuity.report import ContinuityReport, Finding

    return ContinuityReport(findings=(Finding(
        "speaker_absent", "error", "미라가 1번 비트에서 말하지만 장면에 없습니다", None,
        "미라의 말", beats[0].index),))


def test_open_errors_wait_for_the_writer_in_the_korean_tab(tmp_path: Path) -> None:
    """Issue 39 item 3 in chromium: an episode whose check error outlasted two rewrites waits
    at the commit gate (no gate switched on); the Korean panel lists the open error first, and
    the episode becomes canon only once the writer approves it there."""
    from aizac.autopilot.runner import Autopilot
    from aizac.autopilot.state import Options
    from tests.autopilot.test_panel_text import KoreanJudge

    model = KoreanJudge()
    model.speak_korean()
    studio = make_studio(tmp_path / "data", model)
    agent = studio.create("새벽", "회귀, 복수", genre="판타지", language="ko")
    agent.plan()
    autopilot = Autopilot(agent, checker=_absent_in_korean)
    result = autopilot.start(Options(episodes=1))
    autopilot.close()
    assert result.status == "waiting" and not agent.store.beats(status="accepted")
    release_project(agent.store.directory)
    cliche_db = ClicheDB(tmp_path / "data" / "cliches", embeddings=HashingEmbeddings())
    with served(tmp_path, cliche_db, model, language="ko") as url, \
            browser_page(url, locale="ko-KR") as page:
        page.wait_for_function("document.querySelector('#aizac-project input')"
                               ".value === '새벽'")
        page.get_by_role("tab", name="자동 연재").click()
        page.wait_for_function("document.querySelector('#aizac-ap-gate').innerText"
                               ".includes('고쳐 쓴 뒤에도 남은 오류 1건')", timeout=600_000)
        gate = page.locator("#aizac-ap-gate").inner_text()
        assert "미라가 1번 비트에서 말하지만 장면에 없습니다" in gate
        assert gate.index("남은 오류") < gate.index("후보 기억")  # the open error first
        assert _english_on_page(page, result.run_id) == set()
        if os.environ.get("DOC_SCREENS") == "1":
            page.screenshot(path=str(Path(__file__).resolve().parents[2] / "docs" / "screens"
                                     / "first-hour-2" / "8-autopilot-open-errors.png"))
        page.locator("#aizac-ap-approve").click()
        page.wait_for_function("document.querySelector('#aizac-ap-status').innerText"
                               ".includes('완료')", timeout=600_000)
    assert [(b.episode, b.index) for b in agent.store.beats(status="accepted")] == [(1, 1),
                                                                                     (1, 2)]
