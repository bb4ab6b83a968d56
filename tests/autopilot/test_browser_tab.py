"""The Autopilot tab in Debian chromium (Playwright) against the app on a loopback port, with
the scripted fake model: start a run with the commit gate, see the gate, the prose and the
events, approve, and the run finishes."""

from __future__ import annotations

from pathlib import Path

import pytest

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
