"""The Korean session of issue 11 in chromium, timed step by step.

Starts the web app (``app.py --ui-language ko``) on its own loopback port with its own data
directory under /tmp, drives it in Debian's chromium through Playwright, and prints one row per
writer action: how many seconds from the click to the result on screen, and its screenshot.

    python bench/korean_walk.py                 # whatever models the environment configures
                                                # (default: the embedded model ``local``)
    python bench/korean_walk.py --scripted      # the tests' scripted fake models (quick check)

The walk: create (회귀, 복수, 재벌; 현대 판타지) -> plot by hand -> plot generated -> beat ->
edit a field -> regenerate with "긴장감을 높여줘", twice (the edit stands) -> accept -> prose ->
undo -> redo -> branch (undo + regenerate) -> switch back to the accepted branch -> memory ->
export -> an autopilot episode -> undo its last beat -> double-click Create on a second novel ->
open the first again and reload (the page shows the one open). A step that fails
is a row with what the screen said (and its screenshot), not a crash; later steps still try.
Nothing here leaves loopback: the browser may reach only the app.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from aizac.web.labels import labels  # noqa: E402
from tests.web.browser_kit import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    add_table_row,
    field,
    free_port,
    gradio_words_seen,
    tab,
    type_cell,
    watch_gradio_words,
)

L = labels("ko")
INSTRUCTION = "긴장감을 높여줘"
ERROR_MARK = L["ui.error"].split("{", 1)[0].replace("*", "").strip()  # "⚠ 오류:"
HAND_ACTS = (  # (goal, main event) of the five stages, typed by the writer
    ("회귀를 깨닫는다", "10년 전으로 돌아온다"),
    ("첫 투자로 자금을 모은다", "주식으로 큰돈을 번다"),
    ("한성그룹에 들어간다", "형들의 견제를 받는다"),
    ("복수를 완성한다", "큰형의 비리를 폭로한다"),
    ("새 삶을 시작한다", "그룹을 물려받는다"),
)
CLICK_WAIT_MS = 30_000  # a button still disabled after this means the step cannot be done

STATUS_DONE = """([want, before, mark]) => {
  const s = document.getElementById('aizac-status');
  if (!s || s.querySelector('.aizac-spinner')) return false;
  const text = (s.querySelector('.prose') || s).innerText.trim();  // not Gradio's overlay
  if (text === before) return false;
  return (text.includes(want) || text.includes(mark)) ? text : false;
}"""


@dataclass
class Row:
    step: str
    seconds: float
    shot: str
    said: str
    ok: bool


class Walk:
    """One browser page on the app; each :meth:`step` is timed and photographed."""

    def __init__(self, page: Any, shots: Path, step_timeout_s: float) -> None:
        self.page = page
        self.shots = shots
        self.timeout_ms = step_timeout_s * 1000
        self.rows: list[Row] = []

    def status(self) -> str:
        return str(self.page.evaluate(
            "() => { const s = document.getElementById('aizac-status');"
            " return s ? (s.querySelector('.prose') || s).innerText.trim() : ''; }"))

    def click(self, name: str) -> None:
        """Click ``#aizac-<name>`` once it is enabled (a step fails if it never is)."""
        try:
            self.page.wait_for_function(
                "id => { const b = document.getElementById(id); return b && !b.disabled; }",
                arg=f"aizac-{name}", timeout=CLICK_WAIT_MS)
        except Exception:
            raise RuntimeError(f"the button '{name}' stayed disabled") from None
        self.page.locator(f"#aizac-{name}").click()

    def act(self, name: str, want: str) -> str:
        """Click ``name`` and wait for ``want`` in the status area."""
        before = self.status()
        self.click(name)
        handle = self.page.wait_for_function(STATUS_DONE, arg=[want, before, ERROR_MARK],
                                             timeout=self.timeout_ms, polling=250)
        said = str(handle.json_value())
        if want not in said:
            raise RuntimeError(said)
        return said

    def step(self, name: str, action: Callable[[], str]) -> Row:
        start = time.monotonic()
        try:
            said, ok = action(), True
        except Exception as e:
            said, ok = _reason(e, self), False
        seconds = time.monotonic() - start
        path = self.shots / f"{len(self.rows) + 1:02d}-{name}.png"
        try:
            self.page.wait_for_timeout(300)
            # the view the writer has (small PNGs, 8-bit palette), not the whole page
            self.page.screenshot(path=str(path))
            _small(path)
        except Exception as e:  # a screenshot never ends the walk
            said += f" (no screenshot: {type(e).__name__})"
        row = Row(name, seconds, str(path), " ".join(said.split())[:240], ok)
        self.rows.append(row)
        print(f"  {name}: {'ok' if ok else 'FAILED'} in {seconds:.1f} s - {row.said}",
              flush=True)
        return row


def _small(path: Path) -> None:
    """Rewrite the screenshot at ``path`` as a palette PNG (a third of the bytes, same look)."""
    from PIL import Image

    with Image.open(path) as image:
        small = image.convert("RGB").quantize(colors=128)
    small.save(path, optimize=True)


def _reason(error: BaseException, walk: Walk) -> str:
    """What the screen said when a step failed (the status area), else the error itself."""
    try:
        on_screen = walk.status()
    except Exception:
        on_screen = ""
    first_line = str(error).strip().splitlines()[0] if str(error).strip() else ""
    what = f"{type(error).__name__}: {first_line}"[:200]
    return f"{on_screen} [{what}]" if on_screen else what


# ------------------------------------------------------------------------------- the steps
def create(w: Walk) -> str:
    field(w.page, "aizac-new-name").fill("walk")
    field(w.page, "aizac-genre").fill("현대 판타지")
    field(w.page, "aizac-keywords").fill("회귀, 복수, 재벌")
    return w.act("create", L["ui.created"].split("{", 1)[1].split("}", 1)[1].strip("*").strip())


def plot_by_hand(w: Walk) -> str:
    page = w.page
    page.wait_for_function(
        "() => document.querySelector(\"#aizac-acts [data-testid='cell-4-0']\")")
    add_table_row(page, "aizac-characters", ["서준", "주인공", "재벌가에서 버려진 막내, 회귀했다."])
    add_table_row(page, "aizac-settings", ["한성그룹", "서준을 버린 재벌가의 회사."])
    for row, (goal, event) in enumerate(HAND_ACTS):
        for col, text in ((1, goal), (3, event)):
            type_cell(page, page.locator(f"#aizac-acts [data-testid='cell-{row}-{col}']"), text)
    field(page, "aizac-plot-title").fill("재벌집 막내의 회귀")
    field(page, "aizac-logline").fill("버려진 재벌가 막내가 10년 전으로 돌아와 복수한다.")
    page.wait_for_timeout(500)
    return w.act("save-plot", L["ui.plot_saved"])


def beat(w: Walk, tab_name: str) -> str:
    tab(w.page, tab_name)
    return w.act("next-beat", L["ui.designed"])


def edit(w: Walk) -> str:
    field(w.page, "aizac-location").fill("한성그룹 본사 회장실")
    return w.act("save-edit", L["ui.edit_saved"])


def regenerate(w: Walk) -> str:
    field(w.page, "aizac-instruction").fill(INSTRUCTION)
    return w.act("regenerate", L["ui.regenerated"])


def branch(w: Walk) -> str:
    w.act("undo", L["ui.undone"])
    return w.act("regenerate", L["ui.regenerated"])


def switch(w: Walk) -> str:
    page = w.page
    field(page, "aizac-branches").click()
    options = page.locator("#aizac-branches [data-testid='dropdown-option']")
    options.filter(has_text=L["ui.k.accept"]).first.click(timeout=CLICK_WAIT_MS)
    return w.act("switch", L["ui.switched"])


def memory(w: Walk) -> str:
    tab(w.page, L["ui.tab.memory"])
    w.click("mem-refresh")
    cell = w.page.locator("#aizac-memories [data-testid='cell-0-2']")
    cell.wait_for(timeout=w.timeout_ms)
    rows = w.page.locator("#aizac-memories [data-testid$='-2']").count()
    return f"{rows} memories shown; first: {cell.inner_text()[:80]}"


def export(w: Walk) -> str:
    tab(w.page, L["ui.tab.export"])
    said = w.act("download", L["ui.exported"].rsplit(" ", 1)[-1])
    w.page.locator("#aizac-exported a").first.wait_for(timeout=w.timeout_ms)
    return said


def generate_over_hand_plot(w: Walk) -> str:
    # The hand-written plot is only replaced once the writer ticks the confirmation.
    w.page.locator("#aizac-replace-plot input").check()
    return w.act("generate-plot", L["ui.plot_generated"])


EDITED_PLACE = "한성그룹 본사 회장실"


def edit_survives(w: Walk) -> str:
    """Item 1: a second regeneration keeps the field the writer wrote."""
    page = w.page
    history = page.locator("#aizac-history").inner_text()
    field(page, "aizac-instruction").fill(INSTRUCTION)
    w.click("regenerate")  # the status says what it said the first time: the history tells
    page.wait_for_function(
        "before => { const s = document.getElementById('aizac-status');"
        " return !s.querySelector('.aizac-spinner')"
        " && document.getElementById('aizac-history').innerText !== before; }",
        arg=history, timeout=w.timeout_ms, polling=250)
    said = w.status()
    if L["ui.regenerated"] not in said:
        raise RuntimeError(said)
    kept = field(page, "aizac-location").input_value()
    if kept != EDITED_PLACE:
        raise RuntimeError(f"the edited place became {kept!r}")
    return f"{said} / {L['ui.location']}: {kept}"


def autopilot_episode(w: Walk) -> str:
    """Item 2, first half: the autopilot writes one episode, no gates."""
    page = w.page
    tab(page, L["ui.tab.autopilot"])
    page.locator("#aizac-ap-episodes input").fill("1")
    w.click("ap-start")
    done = L["autopilot.status.finished"]
    page.wait_for_function(
        "want => document.querySelector('#aizac-ap-status').innerText.includes(want)",
        arg=done, timeout=w.timeout_ms * 4)
    return " ".join(page.locator("#aizac-ap-status").inner_text().split())[:160]


def undo_autopilot(w: Walk) -> str:
    """Item 2: the autopilot's last accepted beat is a node of the history tree."""
    tab(w.page, L["ui.tab.beats"])
    return w.act("undo", L["ui.undone"])


def double_create(w: Walk) -> str:
    """Item 5: a double click on Create makes one project and leaves it ready."""
    tab(w.page, L["ui.tab.start"])
    field(w.page, "aizac-new-name").fill("walk-2")
    field(w.page, "aizac-keywords").fill("회귀, 복수")
    before = w.status()
    w.page.locator("#aizac-create").dblclick()
    handle = w.page.wait_for_function(STATUS_DONE, arg=["walk-2", before, ERROR_MARK],
                                      timeout=w.timeout_ms, polling=250)
    w.page.wait_for_timeout(2_000)  # the second click's reply, if any, has arrived
    said = w.status()
    if ERROR_MARK in said or "walk-2" not in str(handle.json_value()):
        raise RuntimeError(said)
    w.page.wait_for_function(
        "() => { const b = document.getElementById('aizac-generate-plot');"
        " return b && !b.disabled; }", timeout=CLICK_WAIT_MS)
    return said


def reload_keeps_open(w: Walk) -> str:
    """Item 3: a reload shows the novel the writer had open, not the last one created."""
    page = w.page
    field(page, "aizac-project").click()
    page.locator("#aizac-project [data-testid='dropdown-option']").filter(
        has_text="walk").filter(has_not_text="walk-2").first.click()
    page.wait_for_function("() => document.querySelector('#aizac-plot-title input, "
                           "#aizac-plot-title textarea').value !== ''", timeout=w.timeout_ms)
    page.reload()
    page.wait_for_function("() => document.querySelector('#aizac-project input')?.value "
                           "=== 'walk'", timeout=w.timeout_ms)
    title = field(page, "aizac-plot-title")
    page.wait_for_function("() => (document.querySelector('#aizac-plot-title input, "
                           "#aizac-plot-title textarea') || {}).value", timeout=w.timeout_ms)
    return f"walk / {title.input_value()[:60]}"


def walk_steps(w: Walk, steps: int | None = None) -> None:
    """The walk, or its first ``steps`` steps."""
    beats = L["ui.tab.beats"]
    plan: list[tuple[str, Callable[[], str]]] = [
        ("create", lambda: create(w)),
        ("plot-by-hand", lambda: plot_by_hand(w)),
        ("plot-generated", lambda: generate_over_hand_plot(w)),
        ("beat", lambda: beat(w, beats)),
        ("edit", lambda: edit(w)),
        ("regenerate", lambda: regenerate(w)),
        ("regenerate-keeps-edit", lambda: edit_survives(w)),
        ("accept", lambda: w.act("accept", L["ui.accepted_done"].split(".", 1)[0])),
        ("prose", lambda: w.act("write-prose", L["ui.prose_done"])),
        ("undo", lambda: w.act("undo", L["ui.undone"])),
        ("redo", lambda: w.act("redo", L["ui.redone"])),
        ("branch", lambda: branch(w)),
        ("switch", lambda: switch(w)),
        ("memory", lambda: memory(w)),
        ("export", lambda: export(w)),
        ("autopilot-episode", lambda: autopilot_episode(w)),
        ("undo-autopilot-beat", lambda: undo_autopilot(w)),
        ("double-click-create", lambda: double_create(w)),
        ("reload-keeps-open-novel", lambda: reload_keeps_open(w)),
    ]
    for name, action in plan[:steps]:
        w.step(name, action)


# ------------------------------------------------------------------------- server, browser
def serve_scripted(port: int, data_dir: Path) -> None:
    """The app over the tests' scripted model, in this process (``--serve-scripted``)."""
    from aizac.llm.embeddings import HashingEmbeddings
    from aizac.settings import Settings
    from aizac.web.app import serve
    from aizac.writer.service import Studio
    from tests.fakes import ScriptedChatModel

    model = ScriptedChatModel()
    model.speak_korean()
    model.react(INSTRUCTION, {"conflicts": ["칼끝이 서준의 목에 닿는다."]})
    settings = Settings(data_dir=data_dir, language="ko", structured_retries=1,
                        transient_retries=0)
    roles = ("planner", "writer", "extractor", "reviewer")
    studio = Studio(settings, models=dict.fromkeys(roles, model),
                    embeddings=HashingEmbeddings(), beats_per_episode=3)
    serve(host="127.0.0.1", port=port, studio=studio, language="ko", quiet=True)


@contextmanager
def app_server(scripted: bool, port: int, data_dir: Path, log: Path) -> Iterator[str]:
    """``app.py`` (or the scripted server) as a child process; yields its URL, stops it."""
    if scripted:
        cmd = [sys.executable, __file__, "--serve-scripted", str(port), "--data-dir",
               str(data_dir)]
    else:
        cmd = [sys.executable, str(ROOT / "app.py"), "--host", "127.0.0.1", "--port",
               str(port), "--ui-language", "ko"]
    env = {**os.environ, "AIZAC_DATA_DIR": str(data_dir), "PYTHONPATH": str(ROOT)}
    url = f"http://127.0.0.1:{port}/"
    with log.open("wb") as out:
        child = _started(cmd, env, out, url)
        try:
            yield url
        finally:
            child.terminate()
            try:
                child.wait(20)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()


def _started(cmd: list[str], env: dict[str, str], out: Any, url: str) -> subprocess.Popen[bytes]:
    """The app, started again (up to 3 times) if it exits right after answering: on a loaded
    machine Gradio's own check of its local URL can time out, and it then stops itself
    ("When localhost is not accessible...")."""
    for attempt in range(1, 4):
        child = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
        try:
            _wait_up(url, child, 300)
            time.sleep(5)
            if child.poll() is None:
                return child
        except SystemExit:
            if attempt == 3:
                raise
        print(f"the app stopped after starting (attempt {attempt}); starting it again",
              flush=True)
        child.wait()
    raise SystemExit("the app did not stay up; see its log")


def _wait_up(url: str, child: subprocess.Popen[bytes], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if child.poll() is not None:
            raise SystemExit(f"the app exited with {child.returncode}; see its log")
        try:
            with urllib.request.urlopen(url, timeout=5) as reply:
                if reply.status == 200:
                    return
        except OSError:
            time.sleep(1)
    raise SystemExit(f"the app did not answer on {url} within {seconds:.0f} s")


@contextmanager
def korean_page(url: str) -> Iterator[Any]:
    """A ko-KR chromium page on ``url`` that may reach nothing but loopback."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS,
                                    headless=True)
        context = browser.new_context(viewport={"width": 1440, "height": 1000},
                                      accept_downloads=True, locale="ko-KR")
        page = context.new_page()
        page.set_default_timeout(CLICK_WAIT_MS * 4)
        page.route("**/*", lambda route: route.continue_() if route.request.url.startswith(
            ("http://127.0.0.1", "ws://127.0.0.1", "data:", "blob:")) else route.abort())
        page.goto(url)
        page.wait_for_selector("#aizac-create")
        watch_gradio_words(page)  # Gradio's English texts must never show on the Korean page
        try:
            yield page
        finally:
            context.close()
            browser.close()


def table(rows: list[Row], seen: list[str], command: str) -> str:
    lines = [f"`{command}`", "", "| step | seconds | screenshot | result (what the screen said) |",
             "|---|---:|---|---|"]
    for r in rows:
        said = r.said.replace("|", "\\|")
        lines.append(f"| {r.step} | {r.seconds:.1f} | {r.shot} | "
                     f"{'ok' if r.ok else '**FAILED**'}: {said} |")
    total = sum(r.seconds for r in rows)
    lines += ["", f"total {total:.0f} s; {sum(not r.ok for r in rows)} failed step(s); "
              f"Gradio's English progress texts seen: {', '.join(seen) or 'none'}"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--scripted", action="store_true",
                    help="the tests' scripted fake models instead of the configured ones")
    ap.add_argument("--shots", type=Path, default=ROOT / "docs" / "screens" / "korean-walk")
    ap.add_argument("--data-dir", type=Path, default=None,
                    help="the app's AIZAC_DATA_DIR (default: a new folder under /tmp)")
    ap.add_argument("--port", type=int, default=None)
    ap.add_argument("--step-timeout", type=float, default=900.0,
                    help="seconds one step may take (default 900: the embedded model is slow)")
    ap.add_argument("--table", type=Path, default=None, help="also write the table here")
    ap.add_argument("--steps", type=int, default=None, help="only the walk's first N steps")
    ap.add_argument("--serve-scripted", type=int, default=None, help=argparse.SUPPRESS)
    from smoke import parse_args  # bench/smoke.py: the --smoke size

    args = parse_args(ap, argv, scripted=True, step_timeout=300.0, steps=4,
                      shots=Path(tempfile.gettempdir()) / "aizac-korean-walk-smoke")
    data_dir = args.data_dir or Path(tempfile.mkdtemp(prefix="aizac-walk-"))  # TMPDIR, else /tmp
    if args.serve_scripted is not None:
        serve_scripted(args.serve_scripted, data_dir)
        return 0
    args.shots.mkdir(parents=True, exist_ok=True)
    for old in args.shots.glob("[0-9][0-9]-*.png"):
        old.unlink()
    data_dir.mkdir(parents=True, exist_ok=True)
    port = args.port or free_port()
    log = data_dir / "app.log"
    print(f"app log: {log}; screenshots: {args.shots}", flush=True)
    with app_server(args.scripted, port, data_dir, log) as url, korean_page(url) as page:
        w = Walk(page, args.shots, args.step_timeout)
        walk_steps(w, args.steps)
        seen = sorted({s.split(" <")[0] for s in gradio_words_seen(page)})
    command = "python bench/korean_walk.py" + " ".join(
        [""] + [a for a in (argv if argv is not None else sys.argv[1:])])
    text = table(w.rows, seen, command)
    print(text)
    if args.table:
        args.table.parent.mkdir(parents=True, exist_ok=True)
        args.table.write_text(text + "\n", encoding="utf-8")
    return 0 if all(r.ok for r in w.rows) else 1


if __name__ == "__main__":
    sys.exit(main())
