"""Two real users in chromium, as a person would try it: Jun cannot see or change anything of
Mina's through the page, its file links, its event streams or the API, and a same-site page on
another port cannot act as Mina. The page runs under the server's Content-Security-Policy
without a violation. Screenshots go to docs/screens/server-isolation/."""

from __future__ import annotations

import http.server
import json
import threading
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.server.conftest import PASSWORD
from tests.server.test_browser_server import server_url  # noqa: F401  (the fixture)
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
    pytest.mark.timeout(900),
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium (/usr/bin/chromium) absent"),
]
SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screens" / "server-isolation"
PROJECT = "미나의 비밀"
ATTACK = """<!doctype html><html><body><h1>A page on another port</h1><pre id="said">…</pre>
<form id="f" method="post" action="{aizac}/api/v1/projects/{project}/beats/next"
  target="sink"></form><iframe name="sink" style="width:600px;height:120px"></iframe>
<script>
const said = [];
async function tryAll() {{
  for (const path of ['undo', 'redo', 'beats/next']) {{
    try {{
      await fetch('{aizac}/api/v1/projects/{project}/' + path,
                  {{method: 'POST', credentials: 'include', mode: 'no-cors'}});
      said.push('POST ' + path + ': sent (opaque)');
    }} catch (e) {{ said.push('POST ' + path + ': ' + e); }}
  }}
  try {{
    const r = await fetch('{aizac}/api/v1/projects', {{credentials: 'include'}});
    said.push('read projects: ' + (await r.text()).slice(0, 80));
  }} catch (e) {{ said.push('read projects: blocked (' + e.name + ')'); }}
  try {{
    const r = await fetch('{aizac}/ui/gradio_api/queue/data?session_hash=x',
                          {{credentials: 'include'}});
    said.push('read events: ' + r.status);
  }} catch (e) {{ said.push('read events: blocked (' + e.name + ')'); }}
  document.getElementById('said').textContent = said.join('\\n');
  document.getElementById('f').submit();
  window.done = true;
}}
tryAll();
</script></body></html>"""


def _shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.wait_for_timeout(300)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=False)


@pytest.fixture
def attacker(server_url: str) -> Iterator[str]:  # noqa: F811
    """A page on another port of the same host (same site: the browser sends Mina's cookie
    along with its requests)."""
    page = ATTACK.format(aizac=server_url, project=urllib.parse.quote(PROJECT)).encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args: Any) -> None:
            pass

    port = free_port()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        server.shutdown()


def _sign_up(page: Any, url: str, name: str) -> None:
    page.goto(f"{url}/")
    page.wait_for_selector("#signup")
    page.fill("#name", name)
    page.fill("#password", PASSWORD)
    page.click("#signup")
    page.wait_for_selector("#aizac-create")


def test_two_writers_in_chromium_cannot_reach_each_other(server_url: str,  # noqa: F811
                                                         attacker: str) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS,
                                    headless=True)
        pages, problems, hashes = [], [], []
        for _ in range(2):
            context = browser.new_context(viewport={"width": 1280, "height": 900},
                                          accept_downloads=True)
            page = context.new_page()
            page.set_default_timeout(TIMEOUT_MS)
            page.on("console", lambda m: problems.append(m.text)
                    if "Content Security Policy" in m.text else None)
            pages.append(page)
        mina, jun = pages
        mina.on("request", lambda r: hashes.append(
            urllib.parse.parse_qs(urllib.parse.urlsplit(r.url).query)["session_hash"][0])
            if "queue/data" in r.url else None)

        # Mina writes a beat with prose in a Korean-named project and exports it.
        _sign_up(mina, server_url, "mina")
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
        tab(mina, "Export")
        field(mina, "aizac-file-name").fill("mina-secret")
        click(mina, "aizac-download")
        status_says(mina, "Exported")
        link = mina.locator("#aizac-exported a").first.get_attribute("href")
        assert link and "/users/" in link and "/gradio/" not in link  # her sandbox, no cache
        with mina.expect_download() as got:
            mina.locator("#aizac-exported a").first.click()
        assert "Red light spilled" in Path(got.value.path()).read_text(encoding="utf-8")
        _shot(mina, "01-mina-exported-her-novel")
        before = mina.request.get(f"{server_url}/api/v1/projects/{PROJECT}/beats").json()
        assert hashes, "the page read no event stream"

        # Jun: his page, Mina's file link, Mina's event stream, Mina's files, the API.
        _sign_up(jun, server_url, "jun")
        jun.locator("#aizac-project").click()
        assert PROJECT not in jun.locator("body").inner_text()
        _shot(jun, "02-jun-sees-only-his-own-page")
        file_link = urllib.parse.urljoin(server_url, link)
        reply = jun.goto(file_link)
        assert reply is not None and reply.status == 404
        assert "Red light" not in jun.locator("body").inner_text()
        _shot(jun, "03-jun-opens-minas-file-link")
        mina_id = mina.request.get(f"{server_url}/api/v1/auth/me").json()["id"]
        database = link.split("/exports/")[0].split("file=")[-1] + "/projects/"
        for path in (f"/ui/gradio_api/file/{urllib.parse.unquote(database)}"
                     f"{PROJECT}/project.sqlite3",
                     f"/ui/gradio_api/queue/data?session_hash={hashes[0]}",
                     f"/api/v1/projects/{urllib.parse.quote(PROJECT)}/beats",
                     f"/api/v1/admin/users/{mina_id}"):
            answer = jun.request.get(f"{server_url}{path}")
            assert answer.status in (403, 404), (path, answer.status)
            assert "Red light" not in answer.text() and "SQLite" not in answer.text()
        for method, path in (("post", "undo"), ("delete", "")):
            answer = getattr(jun.request, method)(
                f"{server_url}/api/v1/projects/{urllib.parse.quote(PROJECT)}/{path}".rstrip("/"),
                headers={"Origin": server_url})
            assert answer.status == 404, (method, path, answer.status)
        jun.goto(f"{server_url}/ui/gradio_api/queue/data?session_hash={hashes[0]}")
        _shot(jun, "04-jun-reads-minas-event-stream")

        # A same-site page on another port, opened in Mina's browser (her cookie goes along).
        attack = mina.context.new_page()
        attack.goto(attacker)
        attack.wait_for_function("window.done === true")
        attack.wait_for_timeout(1500)  # the form's POST lands in the frame
        said = attack.locator("#said").inner_text()
        assert "read projects: blocked" in said and "read events: blocked" in said, said
        _shot(attack, "05-a-page-on-another-port-tries-to-act-as-mina")
        after = mina.request.get(f"{server_url}/api/v1/projects/{PROJECT}/beats").json()
        assert after == before  # no undo, no redo, no new beat
        assert json.dumps(after, ensure_ascii=False).count('"status": "accepted"') == 1

        # Mina logs out with the button (a POST from her own page); the session is gone.
        mina.goto(f"{server_url}/ui/")
        mina.wait_for_selector("#aizac-logout")
        mina.click("#aizac-logout")
        mina.wait_for_selector("#login")
        assert mina.request.get(f"{server_url}/api/v1/projects").status == 401
        assert problems == [], problems[:5]  # the page runs under the CSP
        browser.close()
