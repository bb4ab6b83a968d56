"""The Gradio Blocks of the co-writing app: the header, the status area and the tabs.

:func:`build_app` lays out the header (project box, refresh), the one status area every action
reports to, and the tabs, each built by its own module (:mod:`aizac.web.tab_start`,
:mod:`aizac.web.tab_beats`, :mod:`aizac.web.inspector`, :mod:`aizac.web.tab_export`,
:mod:`aizac.web.tab_models`); the tabs are wired once all of them exist, because every action
also sets every action button (see :mod:`aizac.web.runner`). :func:`launch` serves the app
(theme and CSS go to ``launch()`` in Gradio 6; the export folder is the only extra path the
browser may download from).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

import gradio as gr
from starlette.middleware import Middleware

from aizac.application.service import ApplicationService
from aizac.web import handlers as h
from aizac.web import (
    inspector,
    tab_autopilot,
    tab_beats,
    tab_export,
    tab_illustrations,
    tab_models,
    tab_start,
    tab_style,
)
from aizac.web.labels import labels
from aizac.web.runner import SPINNER, Ui

log = logging.getLogger(__name__)

OPEN_PROJECT_KEY = "aizac-open-project"
"""The browser's localStorage key of the project it had open (``gr.BrowserState``)."""

CSS = """
.gradio-container {width: 100% !important; max-width: 1440px !important;
  margin: 0 auto !important;}
.gradio-container > main, .gradio-container .main {width: 100% !important;
  max-width: 100% !important;}
#aizac-brand h2 {margin: 0.4em 0;}
#aizac-status {min-height: 2.2em; padding: 0.2em 0.8em; border-radius: 6px;
  background: var(--background-fill-secondary);}
#aizac-prose textarea {font-family: Georgia, 'Noto Serif KR', serif; font-size: 1.05em;
  line-height: 1.7;}
.aizac-actions button {min-width: 7em;}
.aizac-small {font-size: 0.88em; opacity: 0.85;}
.aizac-note {padding: 0 0.6em; border-left: 3px solid var(--color-accent);}
.aizac-note:not(:has(p)) {display: none;}
#aizac-cancel-plot, #aizac-cancel-beat, #aizac-cancel-prose {min-width: 8.5em;
  white-space: nowrap;}
.aizac-spinner {display: inline-block; width: 0.85em; height: 0.85em; margin-right: 0.35em;
  vertical-align: -0.1em; border: 2px solid currentColor; border-right-color: transparent;
  border-radius: 50%; animation: aizac-spin 0.8s linear infinite;}
@keyframes aizac-spin {to {transform: rotate(360deg);}}
.gradio-container table td, .gradio-container table th, .gradio-container table td *,
.gradio-container table th * {font-family: system-ui, 'Noto Sans KR', 'Noto Sans CJK KR',
  sans-serif !important;}
"""


def theme() -> Any:
    """The app's theme: system fonts only, so the page never fetches a web font."""
    return gr.themes.Soft(
        primary_hue="indigo",
        neutral_hue="slate",
        font=["system-ui", "Segoe UI", "Noto Sans KR", "Apple SD Gothic Neo", "sans-serif"],
        # Gradio sets table cells in the mono font: Hangul reads badly there, so "mono" is
        # the same sans stack (the app shows no code).
        font_mono=["system-ui", "Noto Sans KR", "Noto Sans CJK KR", "sans-serif"],
    )


def build_app(
    service: ApplicationService, *, language: str = "en", models_tab: bool = True,
    on_language: Callable[[str], None] | None = None,
) -> gr.Blocks:
    """The whole app over ``service`` (labels in ``language``: ``en``, ``ko`` or ``zh``).

    ``models_tab=False`` leaves out the Models tab (``aizac serve``: the models are the
    server's, set by its administrator, not by each user). ``on_language``: what choosing
    another interface language on the first screen calls (:class:`aizac.web.app.Served`;
    ``None``: the choice is not offered)."""
    L = labels(language)
    ui = Ui(service, L, language)
    with gr.Blocks(title=L["ui.title"], fill_width=True) as app:
        with gr.Row(equal_height=False, elem_id="aizac-header"):
            gr.Markdown(f"## {L['ui.title']}", elem_id="aizac-brand")
            ui.project = gr.Dropdown(label=L["ui.project"], choices=[], value=None, scale=1,
                                     allow_custom_value=False, elem_id="aizac-project")
            interface = interface_choice(ui) if on_language is not None else None
            ui.button("refresh", L["ui.refresh"], scale=0, size="sm")
            ui.button("check", L["ui.check"], scale=0, size="sm")
            ui.button("backup", L["ui.backup"], scale=0, size="sm")
        backup_file = gr.File(label=L["ui.backup_file"], interactive=False, visible=False,
                              elem_id="aizac-backup-file")
        ui.status = gr.Markdown("", elem_id="aizac-status")
        first_note = embedded_note(ui) if models_tab else None
        with gr.Tabs() as tabs:
            with gr.Tab(L["ui.tab.start"], id="start"):
                start, wire_start = tab_start.build(ui, language, data_note(ui) if models_tab
                                                    else "")
            with gr.Tab(L["ui.tab.beats"], id="beats"):
                beats, wire_beats = tab_beats.build(ui)
                wire_illustration = tab_illustrations.build_beat_panel(ui, beats)
            with gr.Tab(L["ui.tab.memory"], id="memory") as memory_tab:
                memory, wire_memory = inspector.build(ui)
            with gr.Tab(L["ui.tab.export"], id="export"):
                wire_export = tab_export.build(ui, smtp_settings=models_tab)
            with gr.Tab(L["ui.illustration.tab"], id="gallery") as gallery_tab:
                wire_gallery = tab_illustrations.build_gallery(ui, gallery_tab)
            with gr.Tab(L["ui.tab.style"], id="style") as style_tab:
                wire_style = tab_style.build(ui, beats, style_tab)
            wires = [wire_start, wire_beats, wire_memory, wire_export, wire_illustration,
                     wire_gallery, wire_style]
            with gr.Tab(L["ui.tab.autopilot"], id="autopilot"):
                wires.append(tab_autopilot.build(ui))
            if models_tab:
                with gr.Tab(L["ui.tab.models"], id="models"):
                    wires.append(tab_models.build(ui, first_note))
        for wire in wires:
            wire()
        if first_note is not None:
            ui.buttons["open-models"].click(lambda: gr.Tabs(selected="models"), None, tabs)
            # drawn from the models in use on every load, not from what they were at start
            app.load(lambda: gr.Row(visible=embedded_writes(ui)), None, first_note,
                     show_progress="hidden")
        _wire_project(ui, app, start, beats, memory)
        _wire_report_jump(start, beats, tabs)
        _wire_keeping(ui, backup_file)
        if interface is not None and on_language is not None:
            _wire_interface(ui, interface, on_language)
        memory_tab.select(memory.refresh_fn, memory.refresh_inputs, memory.refresh_outputs)
        hide_gradio_progress(app)  # inside the block: Gradio computes the page config on exit
    app.aizac_language = L.language  # launch() speaks it too
    return app


def embedded_note(ui: Ui) -> Any:
    """The first screen's note when the embedded demo model writes (planner or writer): what
    it can and cannot do, in one sentence, and a button to the Models tab (``None`` when real
    models serve both roles)."""
    from aizac.text import t

    with gr.Row(visible=embedded_writes(ui), elem_id="aizac-embedded") as row:
        gr.Markdown(t("ui.embedded.note", ui.language), elem_id="aizac-embedded-note")
        ui.button("open-models", t("ui.embedded.open_models", ui.language), scale=0,
                  size="sm")
    return row


INTERFACE_LANGUAGES = ("en", "ko", "zh")


def interface_choice(ui: Ui) -> Any:
    """The first screen's choice of the interface language, each named in its own language."""
    from aizac.text import t

    return gr.Dropdown(
        label=t("ui.interface_language", ui.language),
        choices=[(t(f"language.native.{lang}", ui.language), lang)
                 for lang in INTERFACE_LANGUAGES],
        value=ui.language, scale=0, min_width=150, allow_custom_value=False,
        elem_id="aizac-interface")


_RELOAD_INTO = """(lang) => {
  // the app is served anew in the chosen language: wait until the page speaks it, then load it
  const locale = LOCALES[lang];
  if (!locale || lang === CURRENT) return;
  let tries = 0;
  const look = () => fetch(location.pathname, {cache: 'no-store'})
    .then((r) => r.text())
    .then((page) => page.includes(`const locale = "${locale}"`) ? location.reload() : again())
    .catch(again);
  const again = () => { if (++tries < 120) setTimeout(look, 500); };
  setTimeout(look, 800);
}"""


def _wire_interface(ui: Ui, interface: Any, on_language: Callable[[str], None]) -> None:
    """Choosing another interface language: refused while an operation runs (its progress
    would be lost to the page), else the app is served anew in it and the page reloads."""
    from aizac.text import Text, language_name, render, t

    def choose(language: str | None) -> list[Any]:
        if not language or language == ui.language:
            return [gr.skip(), gr.skip()]
        if ui.live:
            return [gr.Dropdown(value=ui.language), t("ui.interface.busy", ui.language)]
        try:
            on_language(language)
        except Exception as e:
            return [gr.Dropdown(value=ui.language), ui.message(e)]
        said = Text("ui.interface.switching", language=language_name(language))
        return [gr.skip(), f"{SPINNER} {render(said, language)}"]

    script = (_RELOAD_INTO.replace("LOCALES", json.dumps(GRADIO_LOCALES))
              .replace("CURRENT", json.dumps(ui.language)))
    interface.input(choose, interface, [interface, ui.status], show_progress="hidden").then(
        None, interface, None, js=script)


def data_note(ui: Ui) -> str:
    """Where the single writer's projects are kept, for the first screen: the sentence as
    literal Markdown, each folder as code (a path is written as it is, whatever the interface
    language, and may hold underscores)."""
    from aizac.export.render import escape_markdown
    from aizac.settings_fast import where_data_lives
    from aizac.text import Text, render

    studio: Any = ui.service.studio
    said = where_data_lives(studio.settings.data_dir)
    marks = {k: f"\x00{n}\x00" for n, k in enumerate(said.params)}
    text = escape_markdown(render(Text(said.key, marks), ui.language))
    for k, mark in marks.items():
        text = text.replace(mark, "`" + str(said.params[k]).replace("`", "'") + "`")
    return text


def embedded_writes(ui: Ui) -> bool:
    """Whether the embedded demo model serves the planner or the writer now (the router as the
    Models tab last set it)."""
    from aizac.writer.model_policy import NOTE_ROLES, serves_embedded

    studio: Any = ui.service.studio
    return any(serves_embedded(studio.router, role) for role in NOTE_ROLES)


def hide_gradio_progress(app: gr.Blocks) -> None:
    """Hide Gradio's own progress on every event of ``app``.

    Its overlay speaks English whatever the UI language ("processing | 0.3s", hard-coded in
    Gradio 6's status tracker) and its screen-reader announcer says an untranslated key
    ("common.complete") after each event; neither shows when an event's ``show_progress`` is
    "hidden" ("minimal" keeps both). The app reports every action in its one status area, in
    the UI language, with its own spinner for long ones. Called once all tabs are wired (so no
    event of any tab is left out) and before the Blocks closes (the page's config is taken then).
    """
    for fn in app.fns.values():
        fn.show_progress = "hidden"


def _wire_project(ui: Ui, app: gr.Blocks, start: tab_start.StartTab, beats: tab_beats.BeatsTab,
                  memory: inspector.MemoryTab) -> None:
    """Opening a project (or Refresh) fills every tab and sets every button.

    Only the writer's own pick of a project (``.input``), Refresh, page load and Create open
    one; a value set by an event opens nothing by itself. Create opens the new project in the
    same event: a second "open" event after it overwrote what the writer began typing meanwhile
    (on the embedded model, a character row typed into the Start tab right after Create).
    """
    service = ui.service
    # the notes beside the buttons speak of the project they were said on: opening another
    # one clears them (a new novel said "plot generated" beside its empty plot)
    notes = list(ui.notes.values())
    out = [*start.outputs, *beats.outputs, ui.status, *ui.button_list]
    opens = [*out, *notes]  # only opening a project clears them; the watch leaves them be
    n = len(start.outputs) + len(beats.outputs)
    cleared, kept = [""] * len(notes), [gr.skip()] * len(notes)
    refresh = (memory.refresh_fn, memory.refresh_inputs, memory.refresh_outputs)

    # the project this browser had open (its own, not the CLI's current_project on disk)
    last_open = gr.BrowserState(None, storage_key=OPEN_PROJECT_KEY)

    def on_load(last: str | None) -> Any:
        choices = h.project_choices(service, ui.L)
        names = [name for _, name in choices]
        return gr.Dropdown(choices=choices, value=h.reopened(names, last))

    def opened(name: str | None, said: Any) -> list[Any]:
        if not name:
            blank_editor = [gr.skip()] * len(beats.outputs)
            return [*tab_start.values(ui, None), *blank_editor, said, *ui.states(None), *kept]
        try:
            return [*tab_start.values(ui, h.start_view(service, name)),
                    *tab_beats.values(ui, h.editor_view(service, name)), said,
                    *ui.states(name), *cleared]
        except Exception as e:
            return [*[gr.skip()] * n, ui.message(e), *ui.states(None), *kept]

    def on_open(name: str | None) -> list[Any]:
        # a project whose memory still uses other embeddings says what to do on open
        try:
            said: Any = inspector.reindex_notice(service, name, ui.language) or gr.skip()
        except Exception:  # opening reports its own error below
            said = gr.skip()
        return opened(name, said)

    def on_create(*inputs: Any) -> list[Any]:
        try:
            created = h.create_project(service, *inputs)
        except Exception as e:
            return [gr.skip(), gr.skip(), *[gr.skip()] * n, ui.message(e), *ui.states(None),
                    *kept]
        choices = gr.Dropdown(choices=h.project_choices(service, ui.L), value=created)
        return [choices, created, *opened(created, ui.L.t("ui.created", name=created))]

    def on_import(*inputs: Any) -> list[Any]:
        try:
            report = h.import_manuscript(service, *inputs)
        except Exception as e:
            return [gr.skip(), gr.skip(), *[gr.skip()] * n, ui.message(e), *ui.states(None),
                    *kept]
        choices = gr.Dropdown(choices=h.project_choices(service, ui.L), value=report.project)
        said = ui.L.t("ui.import.saved", project=report.project, episodes=report.episodes,
                      beats=report.beats, characters=f"{report.characters:,}")
        return [choices, report.project, *opened(report.project, said)]

    seen = gr.State(None)  # the (project, revision, what runs) this page's views show
    look = watch(ui, start, beats)
    gr.Timer(WATCH_SECONDS).tick(
        look, [ui.project, seen, beats.beat_id, beats.version, start.version, beats.prose_beat,
               beats.drawn, *beats.fields],
        [*out, seen], show_progress="hidden")

    # The browser state is written by the handlers that open a project, as one of their outputs:
    # a `.change` listener on the dropdown wrote the value it had before a handler's update, so
    # a reload after Create reopened the project opened before it.
    app.load(on_load, last_open, ui.project).then(on_open, ui.project, opens).then(*refresh)
    ui.project.input(lambda name: name, ui.project, last_open, show_progress="hidden")
    ui.project.input(on_open, ui.project, opens).then(*refresh)
    ui.buttons["create"].click(on_create, start.create_inputs,
                               [ui.project, last_open, *opens]).then(*refresh)
    ui.buttons["import"].click(on_import, start.import_inputs,
                               [ui.project, last_open, *opens]).then(*refresh)
    ui.buttons["refresh"].click(on_open, ui.project, opens).then(*refresh)


def _wire_keeping(ui: Ui, backup_file: Any) -> None:
    """Check and Back up, beside the project box: Check verifies every store of the project
    (a damaged one too) and says what it found in the status; Back up takes a consistent
    backup of the open project and offers it for download."""
    service = ui.service

    def check(project: str | None) -> tuple[list[Any], str]:
        return [], h.check_text(service, project, ui.L)

    def backup(project: str | None) -> tuple[list[Any], str]:
        path = h.backup_file(service, project)
        return [gr.File(value=path, visible=True)], ui.L.t(
            "ui.backup_done", file=path.rsplit("/", 1)[-1])

    ui.buttons["check"].click(ui.act(check, 0), ui.project, ui.outputs([]))
    ui.buttons["backup"].click(ui.act(backup, 1), ui.project, ui.outputs([backup_file]))


WATCH_SECONDS = 1.0
"""How often an open page looks whether its project changed (a cheap read: the last step)."""


def watch(ui: Ui, start: tab_start.StartTab, beats: tab_beats.BeatsTab) -> Callable[..., Any]:
    """The page's look at its project, every :data:`WATCH_SECONDS`: the store holds the
    state and every view is drawn from it, so whatever changed the project (a plot generated,
    a beat accepted, an autopilot run, undo/redo, another tab or page) redraws the Start and
    Beat tabs here. While a long operation runs on the project (started by this page or
    before a reload) the status shows it running and the action buttons wait; when it ends
    the status says how it ended. What the writer is typing is kept: a draft or plot whose
    version the page already shows is not drawn again, and a draft form the writer changed
    keeps the version it was made from when another tab saves the draft (its save is then
    a conflict that shows both)."""
    service = ui.service
    n = len(start.outputs) + len(beats.outputs)

    def look(project: str | None, seen: Any, beat_id: Any, version: Any, plot_version: Any,
             prose_pick: Any, drawn: Any, *form: Any) -> list[Any]:
        nothing = [*[gr.skip()] * (n + 1), *ui.skip_buttons(), gr.skip()]
        if not project:
            return nothing
        key = ui.key(project)
        running = ui.live.get(key)
        try:
            now = [project, list(h.revision(service, project)),
                   None if running is None else [running[0], str(running[1])]]
            if now == seen:
                return nothing
            if running is not None:
                return [*[gr.skip()] * n, ui.progress_line(*running), *ui.busy(), now]
            start_view = h.start_view(service, project)
            first = ([gr.skip()] * len(start.outputs) if start_view.plot_version == plot_version
                     else tab_start.values(ui, start_view))
            editor = tab_beats.values(ui, h.editor_view(service, project),
                                      shown=(beat_id, version), prose_pick=prose_pick,
                                      typing=tab_beats.typing(form, drawn))
        except Exception:  # a look that fails says nothing: the writer's own actions report
            log.exception("could not look at project %s", project)
            return nothing
        ended = seen is not None and seen[0] == project and seen[2] is not None
        said = ui.outcome.get(key, gr.skip()) if ended else gr.skip()
        return [*first, *editor, said, *ui.states(project), now]

    return look


GRADIO_LOCALES = {"en": "en", "ko": "ko", "zh": "zh-CN"}
"""The locale of Gradio's own translations that matches each interface language."""
_PAGE_SCRIPT = """<script>(() => {
  const locale = LOCALE, words = WORDS, nav = window.navigator;
  Object.defineProperty(nav, 'language', {get: () => locale, configurable: true});
  Object.defineProperty(nav, 'languages', {get: () => [locale], configurable: true});
  const named = ['title', 'aria-label', 'placeholder'];
  const fix = (el) => {
    for (const a of named) {
      const v = el.getAttribute(a);
      // only when it changes: an attribute set to itself is a mutation again (an endless
      // loop that hangs the page where a word says itself, as English does)
      if (v && Object.hasOwn(words, v) && words[v] !== v) el.setAttribute(a, words[v]);
    }
    // a choice's tooltip is its value (a field's name): show its label instead
    const label = el.tagName === 'INPUT' ? el.closest('label') : null;
    const said = label ? label.textContent.trim() : '';
    if (said && el.hasAttribute('title') && el.getAttribute('title') !== said)
      el.setAttribute('title', said);
  };
  const sweep = (node) => {
    if (node.nodeType !== 1) return;
    fix(node);
    node.querySelectorAll('[title], [aria-label], [placeholder]').forEach(fix);
  };
  sweep(document.documentElement);
  new MutationObserver((records) => {
    for (const r of records) {
      if (r.type === 'attributes') fix(r.target); else r.addedNodes.forEach(sweep);
    }
  }).observe(document.documentElement, {subtree: true, childList: true, attributes: true,
                                        attributeFilter: named});
  // A long action's note sits under its button: when the action starts (its spinner shows),
  // bring the note into view (a button clicked at the bottom edge would leave its progress
  // below the fold).
  const running = new WeakSet();
  new MutationObserver(() => {
    document.querySelectorAll('.aizac-note').forEach((note) => {
      const spins = note.querySelector('.aizac-spinner') !== null;
      if (spins && !running.has(note)) {
        running.add(note);
        const box = note.getBoundingClientRect();
        if (box.bottom > window.innerHeight || box.top < 0) note.scrollIntoView({block: 'nearest'});
      } else if (!spins) {
        running.delete(note);
      }
    });
  }).observe(document.documentElement, {subtree: true, childList: true});
})();</script>"""
GRADIO_WORDS = {"dataframe.filter": "ui.gradio.filter",
                "dataframe.clear_filter": "ui.gradio.clear_filter"}
"""Gradio's own words its Korean and Chinese translations lack, as catalogue keys."""
GRADIO_ENGLISH = {
    "Copy table data": "ui.gradio.copy_table", "Copied to clipboard": "ui.gradio.copied",
    "Fullscreen": "ui.gradio.fullscreen", "Exit fullscreen mode": "ui.gradio.exit_fullscreen",
    "Table actions": "ui.gradio.table_actions", "Copy": "ui.gradio.copy",
    "Copied": "ui.gradio.copied_short", "Empty value": "ui.gradio.empty",
    "Dataframe": "ui.gradio.dataframe", "Download": "ui.gradio.download",
    "Clear": "ui.gradio.clear", "Add row": "ui.gradio.add_row",
    "Add column": "ui.gradio.add_column", "Open cell menu": "ui.gradio.cell_menu",
}
"""Words Gradio writes in English whatever the locale (tooltips and screen-reader labels of
its buttons), as catalogue keys: the page script puts them in the interface language."""


def page_chrome(language: str) -> dict[str, Any]:
    """What makes Gradio's own chrome (a table's filter menu, upload prompts, its buttons'
    tooltips) speak the interface language whatever the browser's: its translations keyed by
    the interface's locale (the words Gradio's own lack, from the catalogue), and a head script
    that gives Gradio that locale as the browser's (Gradio picks its locale from
    ``navigator.language`` when the page loads; gr.I18n alone follows the browser) and puts
    the words Gradio hard-codes in English in the interface language. ``launch()`` options
    (``gr.mount_gradio_app`` takes the same)."""
    L = labels(language)
    locale = GRADIO_LOCALES.get(L.language, "en")
    words = {gradio_key: L[key] for gradio_key, key in GRADIO_WORDS.items()}
    english = {said: L[key] for said, key in GRADIO_ENGLISH.items()}
    script = (_PAGE_SCRIPT.replace("LOCALE", json.dumps(locale))
              .replace("WORDS", json.dumps(english, ensure_ascii=False)))
    return {"i18n": gr.I18n(**{locale: words}),
            "app_kwargs": {"middleware": [Middleware(PageScript, script=script)]}}


class PageScript:
    """ASGI middleware that puts ``script`` first in the ``<head>`` of every HTML page: it
    must run before Gradio's own code, which reads the browser's locale as it starts (a
    launch ``head`` is added after that)."""

    def __init__(self, app: Any, script: str) -> None:
        self.app = app
        self.script = script.encode("utf-8")

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("method") != "GET":
            await self.app(scope, receive, send)
            return
        start: dict[str, Any] = {}
        body: list[bytes] = []

        async def relay(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                kinds = dict(message.get("headers") or [])
                if not kinds.get(b"content-type", b"").startswith(b"text/html"):
                    await send(message)
                    return
                start.update(message)
                return
            if not start:  # not an HTML page: passed through as it comes
                await send(message)
                return
            body.append(message.get("body", b""))
            if message.get("more_body"):
                return
            page = b"".join(body).replace(b"<head>", b"<head>" + self.script, 1)
            kept = [(k, v) for k, v in start.get("headers", []) if k != b"content-length"]
            kept.append((b"content-length", str(len(page)).encode()))
            await send({**start, "headers": kept})
            await send({"type": "http.response.body", "body": page})

        await self.app(scope, receive, relay)


LAUNCH_TRIES = 3


def launch(
    app: gr.Blocks, *, host: str, port: int, allowed_paths: list[str], **kwargs: Any
) -> Any:
    """Serve ``app`` (Gradio 6: theme, CSS, translations and head are launch options).

    Gradio's launch checks its own URL with HEAD requests that give up at the first 3 s
    timeout, and then raises "When localhost is not accessible ..." although the server is up:
    a busy 2-core machine is enough. Such a launch is closed and tried again; any other error,
    and the third refusal, are raised.
    """
    app.queue(default_concurrency_limit=4)
    options = {**page_chrome(getattr(app, "aizac_language", "en")), **kwargs}
    for attempt in range(1, LAUNCH_TRIES + 1):
        try:
            return app.launch(
                server_name=host,
                server_port=port,
                allowed_paths=allowed_paths,
                theme=theme(),
                css=CSS,
                footer_links=[],
                show_error=False,
                **options,
            )
        except ValueError as e:
            if "localhost is not accessible" not in str(e) or attempt == LAUNCH_TRIES:
                raise
            app.close()
    raise AssertionError("unreachable")  # the loop returns or raises


def _wire_report_jump(start: Any, beats: Any, tabs: Any) -> None:
    """A click on a continuity report row opens its beat's prose on the Beat tab (the
    contradicted words' beat when the click is on them)."""

    def jump(table: Any, event: gr.SelectData) -> list[Any]:
        rows = table.values.tolist() if hasattr(table, "values") else list(table or [])
        row, column = event.index if isinstance(event.index, list) else (event.index, 0)
        beat = h.report_jump(rows[row], column) if 0 <= row < len(rows) else None
        if beat is None:
            return [gr.skip(), gr.skip()]
        return [gr.Tabs(selected="beats"), gr.Dropdown(value=beat)]

    start.report.table.select(jump, start.report.table, [tabs, beats.prose_beat])
