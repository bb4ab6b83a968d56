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

import logging
from typing import Any

import gradio as gr

from aizac.text import t
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
from aizac.web.runner import Ui
from aizac.web.service import WebService

log = logging.getLogger(__name__)

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
    service: WebService, *, language: str = "en", models_tab: bool = True
) -> gr.Blocks:
    """The whole app over ``service`` (labels in ``language``: ``"en"`` or ``"ko"``).

    ``models_tab=False`` leaves out the Models tab (``aizac serve``: the models are the
    server's, set by its administrator, not by each user)."""
    L = labels(language)
    ui = Ui(service, L, language)
    with gr.Blocks(title=L["title"], fill_width=True) as app:
        with gr.Row(equal_height=False, elem_id="aizac-header"):
            gr.Markdown(f"## {L['title']}", elem_id="aizac-brand")
            ui.project = gr.Dropdown(label=L["project"], choices=[], value=None, scale=1,
                                     allow_custom_value=False, elem_id="aizac-project")
            ui.button("refresh", L["refresh"], scale=0, size="sm")
        ui.status = gr.Markdown("", elem_id="aizac-status")
        with gr.Tabs():
            with gr.Tab(L["tab_start"], id="start"):
                start, wire_start = tab_start.build(ui, language)
            with gr.Tab(L["tab_beats"], id="beats"):
                beats, wire_beats = tab_beats.build(ui)
                wire_illustration = tab_illustrations.build_beat_panel(ui, beats)
            with gr.Tab(L["tab_memory"], id="memory") as memory_tab:
                memory, wire_memory = inspector.build(ui)
            with gr.Tab(L["tab_export"], id="export"):
                wire_export = tab_export.build(ui)
            with gr.Tab(t("ui.illustration.tab", language), id="gallery"):
                wire_gallery = tab_illustrations.build_gallery(ui)
            with gr.Tab(t("ui.tab.style", language), id="style"):
                wire_style = tab_style.build(ui, beats)
            wires = [wire_start, wire_beats, wire_memory, wire_export, wire_illustration,
                     wire_gallery, wire_style]
            with gr.Tab("Autopilot" if language != "ko" else "자동 연재", id="autopilot"):
                wires.append(tab_autopilot.build(ui))
            if models_tab:
                with gr.Tab(L["tab_models"], id="models"):
                    wires.append(tab_models.build(ui))
        for wire in wires:
            wire()
        _wire_project(ui, app, start, beats, memory)
        memory_tab.select(memory.refresh_fn, memory.refresh_inputs, memory.refresh_outputs)
        hide_gradio_progress(app)  # inside the block: Gradio computes the page config on exit
    return app


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
    out = [*start.outputs, *beats.outputs, ui.status, *ui.button_list]
    n = len(start.outputs) + len(beats.outputs)
    refresh = (memory.refresh_fn, memory.refresh_inputs, memory.refresh_outputs)

    def on_load() -> Any:
        names = h.project_names(service)
        return gr.Dropdown(choices=names, value=names[-1] if names else None)

    def opened(name: str | None, said: Any) -> list[Any]:
        if not name:
            blank_editor = [gr.skip()] * len(beats.outputs)
            return [*tab_start.values(ui, None), *blank_editor, said, *ui.states(None)]
        try:
            return [*tab_start.values(ui, h.start_view(service, name)),
                    *tab_beats.values(ui, h.editor_view(service, name)), said,
                    *ui.states(name)]
        except Exception as e:
            return [*[gr.skip()] * n, ui.message(e), *ui.states(None)]

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
            return [gr.skip(), *[gr.skip()] * n, ui.message(e), *ui.states(None)]
        choices = gr.Dropdown(choices=h.project_names(service), value=created)
        return [choices, *opened(created, ui.L["created"].format(name=created))]

    app.load(on_load, None, ui.project).then(on_open, ui.project, out).then(*refresh)
    ui.project.input(on_open, ui.project, out).then(*refresh)
    ui.buttons["create"].click(on_create, start.create_inputs, [ui.project, *out]).then(*refresh)
    ui.buttons["refresh"].click(on_open, ui.project, out).then(*refresh)


def launch(
    app: gr.Blocks, *, host: str, port: int, allowed_paths: list[str], **kwargs: Any
) -> Any:
    """Serve ``app`` (Gradio 6: theme and CSS are launch options)."""
    app.queue(default_concurrency_limit=4)
    return app.launch(
        server_name=host,
        server_port=port,
        allowed_paths=allowed_paths,
        theme=theme(),
        css=CSS,
        footer_links=[],
        show_error=False,
        **kwargs,
    )
