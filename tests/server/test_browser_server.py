"""``aizac serve`` in chromium: two writers sign up, one writes a beat in a Korean-named
project, the other cannot reach it by its URL, logging out ends the session. Screenshots go to
/tmp/shots/H7/."""

from __future__ import annotations

import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI

from tests.server.conftest import PASSWORD
from tests.web.browser_kit import (
    CHROMIUM,
    CHROMIUM_ARGS,
    TIMEOUT_MS,
    beats_show,
    click,
    field,
    free_port,
    status_says,
    tab,
)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium (/usr/bin/chromium) absent"),
]
SHOTS = Path("/tmp/shots/H7")
PROJECT = "두번째 새벽"


@pytest.fixture
def server_url(make_app: Callable[..., FastAPI]) -> Iterator[str]:
    """The server app under uvicorn on a free loopback port (stopped afterwards)."""
    import uvicorn

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(make_app(ui=True), host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True, name="aizac-test-server")
    thread.start()
    deadline = time.monotonic() + 120
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.1)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(60)


def _shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.wait_for_timeout(300)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def _sign_up(page: Any, url: str, name: str) -> None:
    page.goto(f"{url}/")
    page.wait_for_selector("#signup")
    page.fill("#name", name)
    page.fill("#password", PASSWORD)
    page.click("#signup")
    page.wait_for_selector("#aizac-create")


def test_login_write_logout_in_chromium(server_url: str) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS,
                                    headless=True)
        outside: list[str] = []

        def only_loopback(route: Any) -> None:
            if route.request.url.startswith(("http://127.0.0.1", "ws://127.0.0.1", "data:",
                                             "blob:")):
                route.continue_()
            else:
                outside.append(route.request.url)
                route.abort()

        pages = []
        for _ in range(2):  # two writers, two cookie jars
            context = browser.new_context(viewport={"width": 1440, "height": 1000})
            context.route("**/*", only_loopback)
            page = context.new_page()
            page.set_default_timeout(TIMEOUT_MS)
            pages.append(page)
        mina, jun = pages

        _sign_up(mina, server_url, "mina")
        _shot(mina, "01-mina-signed-in")
        field(mina, "aizac-new-name").fill(PROJECT)
        field(mina, "aizac-keywords").fill("regression, revenge")
        click(mina, "aizac-create")
        status_says(mina, "Created project")
        click(mina, "aizac-generate-plot")
        status_says(mina, "Plot generated")
        tab(mina, "Beat editor")
        click(mina, "aizac-next-beat")
        status_says(mina, "Designed the next beat")
        click(mina, "aizac-accept")
        status_says(mina, "Accepted")
        beats_show(mina, "accepted")
        click(mina, "aizac-write-prose")
        status_says(mina, "Prose written and saved")
        assert "Red light spilled" in field(mina, "aizac-prose").input_value()
        _shot(mina, "02-mina-wrote-a-beat")

        _sign_up(jun, server_url, "jun")
        jun.locator("#aizac-project").click()
        assert PROJECT not in jun.locator("body").inner_text()
        _shot(jun, "03-jun-sees-no-projects")
        quoted = urllib.parse.quote(PROJECT)
        for path in (f"/api/v1/projects/{quoted}", f"/api/v1/projects/{quoted}/beats"):
            reply = jun.goto(f"{server_url}{path}")
            assert reply is not None and reply.status == 404, path
        listed = jun.request.get(f"{server_url}/api/v1/projects")
        assert listed.status == 200 and listed.json() == []
        _shot(jun, "04-jun-asks-for-minas-project")
        mine = mina.request.get(f"{server_url}/api/v1/projects/{quoted}/beats")
        assert mine.status == 200 and mine.json()["beats"][0]["status"] == "accepted"

        mina.goto(f"{server_url}/ui/")
        mina.wait_for_selector("#aizac-logout")
        mina.click("#aizac-logout")
        mina.wait_for_selector("#login")
        _shot(mina, "05-mina-logged-out")
        mina.goto(f"{server_url}/ui/")
        mina.wait_for_selector("#login")  # back to the sign-in page
        assert mina.request.get(f"{server_url}/api/v1/projects").status == 401
        assert outside == []
        browser.close()
