"""The Start tab: create a project, set its genre and keywords, generate or hand-write the plot."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import gradio as gr

from aizac.web import episodes
from aizac.web import handlers as h
from aizac.web.forms import STAGE_KEYS
from aizac.web.labels import UNIT_KEYS, UNIT_NAME_KEYS, headers
from aizac.web.runner import Ui

if TYPE_CHECKING:
    from aizac.manuscript.preview import ManuscriptPreview


@dataclass
class ImportPanel:
    """"Import a manuscript": upload, the preview with the writer's boundary adjustments."""

    files: Any
    summary: Any
    table: Any
    episode: Any
    paragraph: Any
    steps: Any  # the adjustments made so far, in order (what the preview and the import replay)


@dataclass
class ReadPanel:
    """"Read the manuscript into memory": the estimate, the reading (progress, cancel), the
    plot of the story so far."""

    said: Any


@dataclass
class ReportPanel:
    """"Continuity report": the serial's findings, each with where it is; a dismiss button."""

    first: Any
    last: Any
    reviewer: Any
    summary: Any
    table: Any
    key: Any


@dataclass
class StartTab:
    new_name: Any
    new_genre: Any
    new_keywords: Any
    new_language: Any
    new_beats: Any
    new_length: Any
    genre: Any
    keywords: Any
    overview: Any
    title: Any
    logline: Any
    characters: Any
    settings: Any
    acts: Any
    cliches: Any
    version: Any
    replace: Any  # the writer's confirmation that a generated plot may replace theirs
    manuscript: ImportPanel
    report: ReportPanel
    reading: ReadPanel

    @property
    def import_inputs(self) -> list[Any]:
        """What "Import as a new project" reads: the New project form, the files, the
        adjustments the preview shows."""
        return [*self.create_inputs, self.manuscript.files, self.manuscript.steps]

    @property
    def create_inputs(self) -> list[Any]:
        """What "Create project" reads: name, genre, keywords, language, beats, length."""
        return [self.new_name, self.new_genre, self.new_keywords, self.new_language,
                self.new_beats, self.new_length]

    @property
    def outputs(self) -> list[Any]:
        return [self.genre, self.keywords, self.overview, self.title, self.logline,
                self.characters, self.settings, self.acts, self.cliches, self.version,
                self.replace]


def values(ui: Ui, view: h.StartView | None) -> list[Any]:
    """The Start tab's outputs for ``view`` (a blank screen without a project)."""
    L = ui.L
    if view is None:
        return ["", "", L["ui.blank_start"], "", "", [], [], [], "", None,
                gr.Checkbox(value=False, visible=False)]
    from aizac.web.tab_models import small_model_note

    try:
        note = small_model_note(ui, view.project)
    except Exception:  # the note must never hide the plot
        note = ""
    overview = view.overview(L) + (f"\n\n{note}" if note else "")
    # Stage names in the interface language (saving reads stages by row, not by this cell).
    acts = [[L[STAGE_KEYS[r[0]]] if r[0] in STAGE_KEYS else r[0], *r[1:]] for r in view.acts]
    return [view.genre, view.keywords, overview, view.title, view.logline,
            view.characters, view.settings, acts, view.cliches or L["ui.none_yet"],
            view.plot_version,
            # Unticked after every load: each replacement is confirmed anew.
            gr.Checkbox(value=False, visible=view.plot_version is not None)]


def fixed(columns: int) -> Any:
    """A table's column count the writer cannot change: Gradio's column menu then offers no
    "delete column" or "add column" (a plot table read by position would take one column's
    text for another's). Gradio 6 reads ``(n, "fixed")`` at run time although its signature
    says ``int`` (its ``column_limits`` is declared but not implemented yet)."""
    return (columns, "fixed")


def length_boxes(ui: Ui, language: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Label and hint of the beats and prose-length boxes for a new project in ``language``
    (the unit and the default are the language's: ko ~5,000 characters, en 2,000 words)."""
    L = ui.L
    base = episodes.defaults(ui.service, language)
    amount = L.t("ui.ep.amount", n=f"{base.length:,}", unit=L[UNIT_KEYS[base.unit]])
    return (
        {"label": L["ui.ep.beats"], "info": L.t("ui.ep.default_beats", beats=base.beats),
         "placeholder": str(base.beats)},
        {"label": L.t("ui.ep.length", unit=L[UNIT_NAME_KEYS[base.unit]]),
         "info": L.t("ui.ep.default", amount=amount), "placeholder": f"{base.length:,}"},
    )


def story_language(ui: Ui) -> str:
    """The story language a new project gets unless the writer picks another: the one rule
    of the CLI, the API and the web app alike, ``AIZAC_LANGUAGE`` (``ko`` by default), whatever
    language the interface speaks."""
    studio: Any = ui.service.studio
    language = str(getattr(studio.settings, "language", "ko"))
    return language if language in ("ko", "en", "zh") else "ko"


def build(ui: Ui, language: str, data_note: str = "") -> tuple[StartTab, Callable[[], None]]:
    """Lay out the tab (inside an open ``gr.Tab``); returns its parts and its wiring.
    ``data_note``: where the projects are kept (the single-writer app says it here)."""
    L = ui.L
    story = story_language(ui)
    manuscript = _import_panel(ui)
    reading = _read_panel(ui)
    report = _report_panel(ui)
    with gr.Row():
        with gr.Column(scale=1, min_width=300):
            gr.Markdown(f"#### {L['ui.new_project']}")
            if data_note:
                gr.Markdown(data_note, elem_id="aizac-data-dir", elem_classes="aizac-small")
            new_name = gr.Textbox(label=L["ui.name"], elem_id="aizac-new-name")
            new_genre = gr.Textbox(label=L["ui.genre"], elem_id="aizac-genre")
            new_keywords = gr.Textbox(label=L["ui.keywords"], placeholder=L["ui.keywords_hint"],
                                      elem_id="aizac-keywords")
            new_language = gr.Dropdown(
                label=L["ui.language"],
                choices=[(L["language.native.ko"], "ko"), (L["language.native.en"], "en"),
                         (L["language.native.zh"], "zh")],
                value=story, elem_id="aizac-language",
            )
            with gr.Row():
                beats_box, length_box = length_boxes(ui, story)
                # Text boxes: an empty number box sends 0, and "5,000" is how writers type it.
                new_beats = gr.Textbox(value="", **beats_box, elem_id="aizac-new-beats")
                new_length = gr.Textbox(value="", **length_box, elem_id="aizac-new-length")
            ui.button("create", L["ui.create"], variant="primary")
        with gr.Column(scale=3):
            overview = gr.Markdown("", elem_id="aizac-overview")
            with gr.Row():
                genre = gr.Textbox(label=L["ui.project_genre"], elem_id="aizac-project-genre")
                keywords = gr.Textbox(label=L["ui.project_keywords"],
                                      elem_id="aizac-project-keywords")
                ui.button("save-project", L["ui.save_project"], scale=0)
            with gr.Row(elem_classes="aizac-actions"):
                ui.button("generate-plot", L["ui.generate_plot"], variant="primary")
                ui.button("cancel-plot", L["ui.cancel"], variant="stop", scale=0)
                ui.button("save-plot", L["ui.save_plot"])
            ui.note("plot")
            replace = gr.Checkbox(label=L["ui.replace_plot"], value=False, visible=False,
                                  elem_id="aizac-replace-plot")
            title = gr.Textbox(label=L["ui.plot_title"], elem_id="aizac-plot-title")
            logline = gr.Textbox(label=L["ui.logline"], lines=2, elem_id="aizac-logline")
            characters = gr.Dataframe(
                headers=headers(L, "ui.h.characters"), label=L["ui.characters"], interactive=True,
                wrap=True, column_count=fixed(3), type="array", elem_id="aizac-characters",
                column_widths=["18%", "18%", "64%"],
            )
            settings = gr.Dataframe(
                headers=headers(L, "ui.h.settings"), label=L["ui.settings"], interactive=True,
                wrap=True, column_count=fixed(2), type="array", elem_id="aizac-settings",
                column_widths=["25%", "75%"],
            )
            acts = gr.Dataframe(
                headers=headers(L, "ui.h.acts"), label=L["ui.acts"], interactive=True, wrap=True,
                column_count=fixed(4), type="array", elem_id="aizac-acts",
                column_widths=["14%", "33%", "9%", "44%"],
            )
            with gr.Accordion(L["ui.cliches"], open=False):
                cliches = gr.Markdown("")
    tab = StartTab(new_name, new_genre, new_keywords, new_language, new_beats, new_length,
                   genre, keywords, overview,
                   title, logline, characters, settings, acts, cliches, gr.State(None),
                   replace, manuscript, report, reading)
    return tab, lambda: _wire(ui, tab)


IMPORT_TYPES = [".txt", ".md", ".docx", ".epub", ".hwpx"]


def _import_panel(ui: Ui) -> ImportPanel:
    """The panel under New project: the writer uploads a manuscript, sees how it splits into
    episodes, merges or splits where a boundary is wrong, then imports it under the name,
    genre and keywords typed above."""
    L = ui.L
    with gr.Accordion(L["ui.import.title"], open=False, elem_id="aizac-import-panel"), gr.Row():
        with gr.Column(scale=1, min_width=300):
            gr.Markdown(L["ui.import.hint"], elem_classes="aizac-small")
            files = gr.File(label=L["ui.import.files"], file_count="multiple",
                            file_types=IMPORT_TYPES, type="filepath",
                            elem_id="aizac-import-files")
            with gr.Row():
                episode = gr.Textbox(label=L["ui.import.episode"], min_width=80,
                                     elem_id="aizac-import-episode")
                paragraph = gr.Textbox(label=L["ui.import.paragraph"], min_width=80,
                                       elem_id="aizac-import-paragraph")
            ui.button("import-merge", L["ui.import.merge"], size="sm")
            ui.button("import-split", L["ui.import.split"], size="sm")
            ui.button("import-reset", L["ui.import.reset"], size="sm")
            ui.button("import", L["ui.import.save"], variant="primary")
        with gr.Column(scale=3):
            summary = gr.Markdown("", elem_id="aizac-import-summary")
            table = gr.Dataframe(headers=headers(L, "ui.h.import"), interactive=False,
                                 wrap=True, type="array", max_height=420,
                                 elem_id="aizac-import-preview",
                                 column_widths=["6%", "16%", "10%", "8%", "60%"])
    return ImportPanel(files, summary, table, episode, paragraph, gr.State([]))


def _read_panel(ui: Ui) -> ReadPanel:
    """The panel under the import: what reading the open project's manuscript into memory
    will cost, the reading itself (progress in the status; cancel keeps what was read, and
    Read again goes on from there), and the planner's plot of the story so far."""
    L = ui.L
    with gr.Accordion(L["ui.read.title"], open=False, elem_id="aizac-read-panel"), gr.Row():
        with gr.Column(scale=1, min_width=300):
            gr.Markdown(L["ui.read.hint"], elem_classes="aizac-small")
            ui.button("read-estimate", L["ui.read.estimate"], size="sm")
            ui.button("read", L["ui.read.run"], variant="primary")
            ui.button("read-cancel", L["ui.read.cancel"], size="sm")
            ui.button("plot-from-story", L["ui.read.plot"], size="sm")
        with gr.Column(scale=3):
            said = gr.Markdown("", elem_id="aizac-read-said")
    return ReadPanel(said)


def _report_panel(ui: Ui) -> ReportPanel:
    """The panel under the import: the continuity report of the open project's episodes
    (deterministic checks, and the reviewer model when ticked), a finding per row with its
    episode, paragraph and beat, and a key to dismiss it with."""
    L = ui.L
    with gr.Accordion(L["ui.report.title"], open=False, elem_id="aizac-report-panel"), gr.Row():
        with gr.Column(scale=1, min_width=300):
            with gr.Row():
                first = gr.Textbox(label=L["ui.report.first"], min_width=80,
                                   elem_id="aizac-report-first")
                last = gr.Textbox(label=L["ui.report.last"], min_width=80,
                                  elem_id="aizac-report-last")
            reviewer = gr.Checkbox(label=L["ui.report.reviewer"], value=False,
                                   elem_id="aizac-report-reviewer")
            ui.button("report", L["ui.report.run"], variant="primary")
            key = gr.Textbox(label=L["ui.report.key"], elem_id="aizac-report-key")
            ui.button("report-dismiss", L["ui.report.dismiss"], size="sm")
        with gr.Column(scale=3):
            summary = gr.Markdown("", elem_id="aizac-report-summary")
            table = gr.Dataframe(headers=headers(L, "ui.h.report"), interactive=False,
                                 wrap=True, type="array", max_height=520,
                                 elem_id="aizac-report-table")
    return ReportPanel(first, last, reviewer, summary, table, key)


def import_summary(ui: Ui, preview: ManuscriptPreview | None,
                   steps: list[list[Any]]) -> str:
    """What the preview found, in the writer's words (what was read in which encoding,
    numbers the headings skip, the adjustments made); nothing is saved until Import."""
    if preview is None:
        return ""
    L = ui.L
    read = ", ".join(f"{f.name} ({f.encoding})" if f.encoding else f.name
                     for f in preview.files)
    lines = [L.t("ui.import.found", episodes=len(preview.episodes),
                 characters=f"{preview.characters:,}", files=h.escape_markdown(read))]
    if preview.skipped_numbers:
        lines.append(L.t("ui.import.skipped",
                         numbers=", ".join(map(str, preview.skipped_numbers))))
    lines += [L.t("ui.import.left_out", file=h.escape_markdown(x.file), row=x.row,
                  text=h.escape_markdown(x.text[:60])) for x in preview.left_out]
    if steps:
        lines.append(L.t("ui.import.adjusted", n=len(steps)))
    lines.append(L["ui.import.nothing_saved"])
    return "\n\n".join(lines)


def _wire(ui: Ui, tab: StartTab) -> None:
    service, L, b = ui.service, ui.L, ui.buttons
    out = ui.outputs(tab.outputs, "plot")
    n = len(tab.outputs)

    def save_project(project: str | None, genre: str, kw: str) -> tuple[list[Any], str]:
        return values(ui, h.update_project(service, project, genre, kw)), L["ui.project_saved"]

    def plot(project: str | None, replace: bool, progress: Any) -> tuple[list[Any], str]:
        view = h.generate_plot(service, project, progress, replace=bool(replace))
        return values(ui, view), L["ui.plot_generated"]

    def save_plot(project: str | None, version: int | None, title: str, log: str, chars: Any,
                  sets: Any, acts: Any) -> tuple[list[Any], str]:
        view = h.save_plot(service, project, version, title, log, chars, sets, acts)
        return values(ui, view), L["ui.plot_saved"]

    def cancel(project: str | None) -> str:
        return L["ui.cancel_sent"] if service.cancel(project) else L["ui.nothing_running"]

    def on_language(lang: str) -> list[Any]:
        beats_box, length_box = length_boxes(ui, lang or "en")
        return [gr.Textbox(**beats_box), gr.Textbox(**length_box)]

    _wire_import(ui, tab)
    _wire_read(ui, tab, out, n)
    _wire_report(ui, tab.report)
    tab.new_language.change(on_language, tab.new_language, [tab.new_beats, tab.new_length])
    b["save-project"].click(ui.act(save_project, n, "plot"),
                            [ui.project, tab.genre, tab.keywords], out)
    b["generate-plot"].click(ui.long(plot, n, "ui.busy.plot", "plot"), [ui.project, tab.replace],
                             out, show_progress="hidden")
    b["cancel-plot"].click(cancel, ui.project, ui.status, show_progress="hidden")
    b["save-plot"].click(
        ui.act(save_plot, n, "plot"),
        [ui.project, tab.version, tab.title, tab.logline, tab.characters, tab.settings, tab.acts],
        out,
    )


def _wire_import(ui: Ui, tab: StartTab) -> None:
    """The preview follows the upload and each adjustment (Import itself opens the new
    project, so it is wired with Create in :func:`aizac.web.ui._wire_project`)."""
    panel, service = tab.manuscript, ui.service
    shown = [panel.summary, panel.table, panel.steps]

    def drawn(files: Any, steps: list[list[Any]]) -> list[Any]:
        preview = h.import_preview(service, files, steps)
        return [import_summary(ui, preview, steps), h.import_rows(preview), steps]

    def uploaded(_project: str | None, files: Any) -> tuple[list[Any], str]:
        return drawn(files, []), ui.L["ui.import.previewed"] if files else ""

    def merged(_project: str | None, files: Any, steps: Any, episode: Any
               ) -> tuple[list[Any], str]:
        return drawn(files, h.import_adjusted(steps, "merge", episode)), ui.L["ui.import.redrawn"]

    def split(_project: str | None, files: Any, steps: Any, episode: Any, paragraph: Any
              ) -> tuple[list[Any], str]:
        return (drawn(files, h.import_adjusted(steps, "split", episode, paragraph)),
                ui.L["ui.import.redrawn"])

    out = ui.outputs(shown)
    panel.files.change(ui.act(uploaded, 3), [ui.project, panel.files], out,
                       show_progress="hidden")
    ui.buttons["import-reset"].click(ui.act(uploaded, 3), [ui.project, panel.files], out)
    ui.buttons["import-merge"].click(
        ui.act(merged, 3), [ui.project, panel.files, panel.steps, panel.episode], out)
    ui.buttons["import-split"].click(
        ui.act(split, 3), [ui.project, panel.files, panel.steps, panel.episode,
                           panel.paragraph], out)


def _wire_read(ui: Ui, tab: StartTab, plot_out: list[Any], n: int) -> None:
    """Estimate says the cost before anything runs; Read reads the unread scenes with its
    progress in the status (cancellable); Plot of the story fills the tab's plot tables."""
    service, L = ui.service, ui.L
    said = ui.outputs([tab.reading.said])

    def lines(texts: list[Any]) -> str:
        return "\n\n".join(h.escape_markdown(L.say(t)) for t in texts)

    def estimate(project: str | None) -> tuple[list[Any], str]:
        from aizac.application.reading_estimate import estimate_lines

        return [lines(estimate_lines(service.estimate_reading(project)))], L["ui.read.estimated"]

    def read(project: str | None, progress: Any) -> tuple[list[Any], str]:
        report = service.read_manuscript(project, progress)
        text = lines(report.lines())
        return [text], text

    def story_plot(project: str | None, progress: Any) -> tuple[list[Any], str]:
        service.draft_plot_from_story(project, progress)
        return values(ui, h.start_view(service, project)), L["ui.plot_generated"]

    def cancel(project: str | None) -> str:
        return L["ui.cancel_sent"] if service.cancel(project) else L["ui.nothing_running"]

    ui.buttons["read-estimate"].click(ui.act(estimate, 1), [ui.project], said)
    ui.buttons["read"].click(ui.long(read, 1, "ui.busy.read"), [ui.project], said,
                             show_progress="hidden")
    ui.buttons["read-cancel"].click(cancel, ui.project, ui.status, show_progress="hidden")
    ui.buttons["plot-from-story"].click(ui.long(story_plot, n, "ui.busy.plot", "plot"),
                                        [ui.project], plot_out, show_progress="hidden")


def _wire_report(ui: Ui, panel: ReportPanel) -> None:
    """Report runs the checks (the reviewer when ticked) and shows the findings; Dismiss
    dismisses the finding whose key is typed, and shows the report again without it."""
    service = ui.service

    def shown(project: str | None, first: Any, last: Any, reviewer: bool) -> list[Any]:
        report = h.continuity_report(service, project, first, last, reviewer=bool(reviewer))
        return [h.report_summary(ui.L, report), h.report_rows(ui.L, report)]

    def run(project: str | None, first: Any, last: Any, reviewer: bool
            ) -> tuple[list[Any], str]:
        return shown(project, first, last, reviewer), ui.L["ui.report.done"]

    def dismiss(project: str | None, first: Any, last: Any, key: str
                ) -> tuple[list[Any], str]:
        service.dismiss_finding(project, (key or "").strip())
        return shown(project, first, last, False), ui.L["ui.report.dismissed"]

    out = ui.outputs([panel.summary, panel.table])
    ui.buttons["report"].click(ui.act(run, 2),
                               [ui.project, panel.first, panel.last, panel.reviewer], out)
    ui.buttons["report-dismiss"].click(ui.act(dismiss, 2),
                                       [ui.project, panel.first, panel.last, panel.key], out)
