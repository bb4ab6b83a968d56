"""Shared pieces of the browser tests: Debian chromium through Playwright against an
in-process server with scripted fake models (tests only)."""

from __future__ import annotations

import re
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from aizac.cliches import ClicheDB
from aizac.llm.embeddings import HashingEmbeddings
from aizac.settings import Settings
from aizac.writer.service import Studio
from tests.fakes import ScriptedChatModel

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
SHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
TIMEOUT_MS = 240_000  # the machine is shared: a click may wait behind others (CI: 3 workers
# on 2 cores beside the benches' child processes; an event was seen to start after 120 s)
ROLES = ("planner", "writer", "extractor", "reviewer")


GRADIO_WORDS = ("processing", "common.complete", "common.error")
"""Gradio's own English texts: its progress overlay and its screen-reader announcer's keys."""

# Records every Gradio word that shows on the page or is said to a screen reader, however
# briefly: a MutationObserver sees each change, a read at the end would not.
_WATCH = """(words) => {
  window.__gradioSeen = [];
  const shown = (el) => el.closest('.sr-only, [aria-live]')  // told to a screen reader
    || el.checkVisibility({opacityProperty: true, visibilityProperty: true});
  const look = (records) => {
    for (const r of records) {
      // Each text node under the change, judged by its own element: a visible block may hold
      // Gradio's hidden tracker.
      const walker = document.createTreeWalker(r.target, NodeFilter.SHOW_TEXT);
      const texts = r.target.nodeType === 3 ? [r.target] : [];
      while (walker.nextNode()) texts.push(walker.currentNode);
      for (const t of texts) {
        const el = t.parentElement;
        if (!el || el.closest('script, style') || !shown(el)) continue;
        for (const w of words) if (t.textContent.includes(w))
          window.__gradioSeen.push(`${w} in #${el.closest("[id]")?.id} <${el.className}>: `
            + t.textContent.slice(0, 60));
      }
    }
  };
  new MutationObserver(look).observe(document.body,
    {subtree: true, childList: true, characterData: true});
}"""


def watch_gradio_words(page: Any) -> None:
    """Start noting every Gradio English text (:data:`GRADIO_WORDS`) the page shows."""
    page.evaluate(_WATCH, list(GRADIO_WORDS))


def gradio_words_seen(page: Any) -> list[str]:
    """What :func:`watch_gradio_words` noted so far: ``"WORD in #ID <class>: text"`` each."""
    return list(page.evaluate("() => window.__gradioSeen || []"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve_app(app: Any, export_dir: Path) -> str:
    """Serve a built app on a free loopback port; returns its URL."""
    from aizac.web.ui import launch

    port = free_port()
    launch(app, host="127.0.0.1", port=port, allowed_paths=[str(export_dir)],
           prevent_thread_lock=True, quiet=True)
    return f"http://127.0.0.1:{port}/"


@contextmanager
def served(tmp_path: Path, cliche_db: ClicheDB, model: ScriptedChatModel, *,
           language: str = "en") -> Iterator[str]:
    """The app on a free loopback port over ``model``; yields its URL. A Korean or Chinese
    interface serves a writer whose story language (``AIZAC_LANGUAGE``, the Start tab's
    default) is the same; an English one, English stories."""
    from aizac.web.app import create_app

    story = language if language in ("ko", "zh") else "en"
    settings = Settings(data_dir=tmp_path / "data", language=story, structured_retries=1,
                        transient_retries=0)
    studio = Studio(settings, models=dict.fromkeys(ROLES, model),
                    embeddings=HashingEmbeddings(), cliches=cliche_db, beats_per_episode=3)
    app, export_dir = create_app(studio, language=language)
    url = serve_app(app, export_dir)
    try:
        yield url
    finally:
        app.close()


@contextmanager
def browser_page(url: str, *, locale: str = "en-US") -> Iterator[Any]:
    """A chromium page on ``url`` that may reach nothing but the loopback server."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS,
                                    headless=True)
        context = browser.new_context(viewport={"width": 1440, "height": 1000},
                                      accept_downloads=True, locale=locale)
        pg = context.new_page()
        pg.set_default_timeout(TIMEOUT_MS)
        outside: list[str] = []

        def only_loopback(route: Any) -> None:
            target = route.request.url
            if target.startswith(("http://127.0.0.1", "ws://127.0.0.1", "data:", "blob:")):
                route.continue_()
            else:
                outside.append(target)
                route.abort()

        # One Gradio app per page load: each app opens one heartbeat under its session. A
        # second one in a page (a copied <gradio-app> booted itself) runs its own timers and
        # load events beside the writer's, and a click could wait forever for its reply.
        sessions: set[str] = set()
        loads: list[str] = []
        pg.on("request", lambda r: sessions.add(r.url.rsplit("/", 1)[-1].split("?")[0])
              if "/heartbeat/" in r.url else None)
        pg.on("load", lambda _: loads.append(pg.url))
        pg.route("**/*", only_loopback)
        pg.goto(url)
        pg.wait_for_selector("#aizac-create")
        pg.outside_requests = outside
        try:
            yield pg
            assert len(sessions) <= len(loads), (sessions, loads)
        finally:
            context.close()
            browser.close()


def reload(page: Any) -> None:
    """Reload ``page``; a reload that another navigation of the same moment aborted (a
    websocket reconnect or a pending load under a loaded machine: ``net::ERR_ABORTED``) is
    tried once more, since what a test checks is the page a reload opens."""
    try:
        page.reload()
    except Exception as e:
        if "ERR_ABORTED" not in str(e) and "aborted" not in str(e).lower():
            raise
        page.wait_for_timeout(500)
        page.reload()


def shot(page: Any, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.wait_for_timeout(300)
    page.screenshot(path=str(path), full_page=True)
    return path


def status_says(page: Any, text: str | re.Pattern[str]) -> None:
    try:
        page.locator("#aizac-status").get_by_text(text).first.wait_for()
    except Exception:
        shot(page, "failure")
        said = page.locator("#aizac-status").inner_text()
        raise AssertionError(f"status never said {text!r}; it says: {said!r}") from None


def beats_show(page: Any, status: str) -> None:
    """Wait until the episode table lists a beat with ``status``."""
    page.locator("#aizac-beats [data-testid='cell-0-1']").get_by_text(status).first.wait_for()


def table_shows(page: Any, elem_id: str, text: str | re.Pattern[str]) -> None:
    page.locator(f"#{elem_id} span").filter(has_text=text).first.wait_for()


def field(page: Any, elem_id: str) -> Any:
    return page.locator(f"#{elem_id} textarea, #{elem_id} input").first


def click(page: Any, elem_id: str) -> None:
    page.locator(f"#{elem_id}").click()


def enabled(page: Any, elem_id: str) -> bool:
    return bool(page.locator(f"#{elem_id}").is_enabled())


def wait_enabled(page: Any, elem_id: str, state: bool = True) -> None:
    page.wait_for_function(
        "([id, on]) => { const b = document.getElementById(id);"
        " return b && b.disabled === !on; }", arg=[elem_id, state],
    )


def pick(page: Any, elem_id: str, option: str | None = None) -> None:
    """Choose an option of a Gradio dropdown (the first one when ``option`` is None)."""
    field(page, elem_id).click()
    options = page.locator(f"#{elem_id} [data-testid='dropdown-option']")
    target = options.filter(has_text=option) if option else options
    target.first.click()


def tab(page: Any, name: str) -> None:
    page.get_by_role("tab", name=name).click()


def type_cell(page: Any, cell: Any, text: str) -> None:
    """Type ``text`` into a Gradio dataframe cell and see it there. A double click that lands
    while Gradio redraws the table opens no editor and the typing goes nowhere (under load: CI,
    the embedded model beside the browser); a writer would see the empty cell and click again."""
    editor = cell.locator("textarea, input")
    for _ in range(3):
        cell.dblclick()
        try:  # keys typed before the editor opens are lost ("Aren" became "ren")
            editor.first.wait_for(timeout=5_000)
        except Exception:  # Playwright's TimeoutError: no editor opened, click again
            continue
        page.keyboard.press("ControlOrMeta+a")  # what a previous attempt left, replaced
        page.keyboard.type(text)
        page.keyboard.press("Enter")
        try:
            cell.get_by_text(text, exact=True).wait_for(timeout=5_000)
            return
        except Exception:
            continue
    raise AssertionError(f"the cell never showed {text!r}: {cell.inner_text()!r}")


def add_table_row(page: Any, elem_id: str, cells: list[str]) -> None:
    """Add a row to the interactive dataframe ``elem_id`` and type its cells."""
    table = page.locator(f"#{elem_id}")
    before = table.locator("tbody tr").count()
    from aizac.text import t

    # Gradio's own label in any locale, or the page script's (ui.gradio.add_row)
    said = "|".join(re.escape(t("ui.gradio.add_row", lang)) for lang in ("en", "ko", "zh"))
    add = re.compile(f"add row|new row|새 행|행 추가|{said}|\\+", re.I)
    table.get_by_role("button", name=add).first.click()
    page.wait_for_function(
        "([id, n]) => document.querySelectorAll(`#${id} tbody tr`).length > n",
        arg=[elem_id, before],
    )
    for col, text in enumerate(cells):
        type_cell(page, table.locator(f"[data-testid='cell-{before}-{col}']"), text)
