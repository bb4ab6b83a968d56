"""The Gradio Blocks of the co-writing app: layout and wiring only.

:func:`build_app` lays out the screens (Start, Beat editor, Memory, Export) and connects each
button to a handler in :mod:`aizac.web.handlers` (or :mod:`aizac.web.inspector`). Errors the
writer must see become ``gr.Error`` messages; anything unexpected is logged and shown as a short
message, never a stack trace. :func:`launch` serves the app (theme and CSS go to ``launch()`` in
Gradio 6; the export folder is the only extra path the browser may download from).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterator
from typing import Any

import gradio as gr

from aizac.errors import AizacError, CancelledError
from aizac.web import handlers as h
from aizac.web import inspector
from aizac.web.forms import BEAT_FIELDS
from aizac.web.labels import labels
from aizac.web.service import WebService

log = logging.getLogger(__name__)

CSS = """
.gradio-container {width: 100% !important; max-width: 1440px !important;
  margin: 0 auto !important;}
.gradio-container > main, .gradio-container .main {width: 100% !important;
  max-width: 100% !important;}
#aizac-brand h2 {margin: 0.4em 0;}
#aizac-status {min-height: 2.2em;}
#aizac-prose textarea {font-family: Georgia, 'Noto Serif KR', serif; font-size: 1.05em;
  line-height: 1.7;}
.aizac-actions button {min-width: 7em;}
"""


def theme() -> Any:
    """The app's theme: system fonts only, so the page never fetches a web font."""
    return gr.themes.Soft(
        primary_hue="indigo",
        neutral_hue="slate",
        font=["system-ui", "Segoe UI", "Noto Sans KR", "Apple SD Gothic Neo", "sans-serif"],
        font_mono=["ui-monospace", "SFMono-Regular", "Menlo", "monospace"],
    )


def user_message(error: BaseException) -> str:
    """What the page says about ``error`` (no stack trace, ever)."""
    if isinstance(error, AizacError):
        return f"{error.message} {error.hint}".strip()
    return (
        f"Something went wrong ({type(error).__name__}: {str(error)[:300]}). "
        "The project was left as it was; try again."
    )


def _shown(error: BaseException) -> gr.Error:
    if not isinstance(error, AizacError):
        log.exception("unexpected error in a web handler", exc_info=error)
    title = "Cancelled" if isinstance(error, CancelledError) else "aizac"
    return gr.Error(user_message(error), title=title, print_exception=False)


def safe(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` with every exception turned into a readable ``gr.Error``."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except gr.Error:
            raise
        except Exception as e:
            raise _shown(e) from None

    return wrapper


def safe_stream(fn: Callable[..., Iterator[Any]]) -> Callable[..., Iterator[Any]]:
    """Like :func:`safe` for generator handlers (streamed prose)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Iterator[Any]:
        try:
            yield from fn(*args, **kwargs)
        except gr.Error:
            raise
        except Exception as e:
            raise _shown(e) from None

    return wrapper


def _progress(progress: Any) -> Callable[[str], None]:
    def say(message: str) -> None:
        progress(None, desc=message)

    return say


def build_app(service: WebService, *, language: str = "en") -> gr.Blocks:
    """The whole app over ``service`` (labels in ``language``: ``"en"`` or ``"ko"``)."""
    L = labels(language)
    with gr.Blocks(title=L["title"], fill_width=True) as app:
        with gr.Row(equal_height=False, elem_id="aizac-header"):
            gr.Markdown(f"## {L['title']}", elem_id="aizac-brand")
            project = gr.Dropdown(
                label=L["project"], choices=[], value=None, allow_custom_value=False, scale=1,
                elem_id="aizac-project",
            )
            reload_btn = gr.Button(L["refresh"], scale=0, size="sm", elem_id="aizac-refresh")
        status = gr.Markdown("", elem_id="aizac-status")

        with gr.Tabs() as tabs:
            # ------------------------------------------------------------------- Start
            with gr.Tab(L["tab_start"], id="start"):
                with gr.Row():
                    with gr.Column(scale=1, min_width=300):
                        gr.Markdown(f"#### {L['new_project']}")
                        new_name = gr.Textbox(label=L["name"], elem_id="aizac-new-name")
                        genre = gr.Textbox(label=L["genre"], elem_id="aizac-genre")
                        keywords = gr.Textbox(
                            label=L["keywords"], placeholder=L["keywords_hint"],
                            elem_id="aizac-keywords",
                        )
                        language_box = gr.Dropdown(
                            label=L["language"], choices=[("한국어", "ko"), ("English", "en"),
                                                          ("中文", "zh")],
                            value="en" if language != "ko" else "ko", elem_id="aizac-language",
                        )
                        create_btn = gr.Button(L["create"], variant="primary",
                                               elem_id="aizac-create")
                    with gr.Column(scale=3):
                        overview = gr.Markdown("", elem_id="aizac-overview")
                        with gr.Row(elem_classes="aizac-actions"):
                            plot_btn = gr.Button(L["generate_plot"], variant="primary",
                                                 elem_id="aizac-generate-plot")
                            plot_cancel = gr.Button(L["cancel"], variant="stop", scale=0)
                            save_plot_btn = gr.Button(L["save_plot"], elem_id="aizac-save-plot")
                        plot_title = gr.Textbox(label=L["plot_title"], elem_id="aizac-plot-title")
                        logline = gr.Textbox(label=L["logline"], lines=2)
                        characters = gr.Dataframe(
                            headers=h.forms.CHARACTER_HEADERS, label=L["characters"],
                            interactive=True, wrap=True, column_count=3, type="array",
                            elem_id="aizac-characters",
                        )
                        settings_df = gr.Dataframe(
                            headers=h.forms.SETTING_HEADERS, label=L["settings"],
                            interactive=True, wrap=True, column_count=2, type="array",
                        )
                        acts = gr.Dataframe(
                            headers=h.forms.ACT_HEADERS, label=L["acts"], interactive=True,
                            wrap=True, column_count=4, type="array",
                        )
                        with gr.Accordion(L["cliches"], open=False):
                            cliches = gr.Markdown("")
                plot_version = gr.State(None)

            # ------------------------------------------------------------- Beat editor
            with gr.Tab(L["tab_beats"], id="beats"):
                with gr.Row():
                    with gr.Column(scale=2, min_width=320):
                        episode_md = gr.Markdown("### Episode 1", elem_id="aizac-episode")
                        beats_df = gr.Dataframe(
                            headers=h.BEAT_HEADERS, label=L["episode_beats"], interactive=False,
                            wrap=True, type="array", elem_id="aizac-beats",
                            column_widths=["8%", "16%", "21%", "21%", "34%"],
                        )
                        gr.Markdown(f"#### {L['history']}")
                        with gr.Row():
                            undo_btn = gr.Button(L["undo"], elem_id="aizac-undo")
                            redo_btn = gr.Button(L["redo"], elem_id="aizac-redo")
                        history_md = gr.Markdown("", elem_id="aizac-history")
                        branches = gr.Dropdown(label=L["branches"], choices=[],
                                               elem_id="aizac-branches")
                        switch_btn = gr.Button(L["switch"], elem_id="aizac-switch")
                    with gr.Column(scale=3):
                        draft_md = gr.Markdown(f"#### {L['draft']}", elem_id="aizac-draft")
                        with gr.Row():
                            location = gr.Textbox(label=L["location"], elem_id="aizac-location")
                            time_box = gr.Textbox(label=L["time"], elem_id="aizac-time")
                        beat_chars = gr.Textbox(label=L["beat_characters"],
                                                elem_id="aizac-beat-characters")
                        events = gr.Textbox(label=L["events"], lines=3, elem_id="aizac-events")
                        dialogue = gr.Textbox(label=L["dialogue"], lines=3,
                                              elem_id="aizac-dialogue")
                        with gr.Row():
                            emotions = gr.Textbox(label=L["emotions"])
                            conflicts = gr.Textbox(label=L["conflicts"], lines=2)
                        with gr.Row():
                            sets_up = gr.Textbox(label=L["sets_up"], lines=2)
                            pays_off = gr.Textbox(label=L["pays_off"], lines=2)
                        with gr.Row(elem_classes="aizac-actions"):
                            next_btn = gr.Button(L["next_beat"], variant="primary",
                                                 elem_id="aizac-next-beat")
                            save_edit_btn = gr.Button(L["save_edit"], elem_id="aizac-save-edit")
                            accept_btn = gr.Button(L["accept"], variant="primary",
                                                   elem_id="aizac-accept")
                            beat_cancel = gr.Button(L["cancel"], variant="stop", scale=0)
                        with gr.Row(elem_classes="aizac-actions"):
                            instruction = gr.Textbox(
                                label=L["instruction"], placeholder=L["instruction_hint"],
                                scale=3, elem_id="aizac-instruction",
                            )
                            regen_btn = gr.Button(L["regenerate"], elem_id="aizac-regenerate")
                            suggest_btn = gr.Button(L["suggest"], elem_id="aizac-suggest")
                        suggestions = gr.Markdown("", elem_id="aizac-suggestions")
                gr.Markdown(f"#### {L['prose']}")
                with gr.Row():
                    prose_beat = gr.Dropdown(label=L["prose_beat"], choices=[], scale=2,
                                             elem_id="aizac-prose-beat")
                    prose_btn = gr.Button(L["write_prose"], variant="primary",
                                          elem_id="aizac-write-prose")
                    prose_cancel = gr.Button(L["cancel"], variant="stop", scale=0)
                    save_prose_btn = gr.Button(L["save_prose"], elem_id="aizac-save-prose")
                prose = gr.Textbox(label=L["prose"], lines=12, max_lines=40,
                                   elem_id="aizac-prose", buttons=["copy"])
                beat_id = gr.State(None)
                beat_version = gr.State(None)

            # ------------------------------------------------------------------ Memory
            with gr.Tab(L["tab_memory"], id="memory") as memory_tab:
                mem = inspector.build(service, project, status, L)

            # ------------------------------------------------------------------ Export
            with gr.Tab(L["tab_export"], id="export"), gr.Row():
                with gr.Column():
                    fmt = gr.Radio(["txt", "md", "epub"], value="txt", label=L["format"],
                                   elem_id="aizac-format")
                    with gr.Row():
                        first = gr.Number(label=L["first"], value=0, precision=0, minimum=0)
                        last = gr.Number(label=L["last"], value=0, precision=0, minimum=0)
                    filename = gr.Textbox(label=L["file_name"], elem_id="aizac-file-name")
                    download_btn = gr.Button(L["download"], variant="primary",
                                             elem_id="aizac-download")
                    exported = gr.File(label=L["file"], interactive=False,
                                       elem_id="aizac-exported")
                with gr.Column():
                    address = gr.Textbox(label=L["email"], type="email",
                                         elem_id="aizac-email")
                    send_btn = gr.Button(L["send"], elem_id="aizac-send")

        # -------------------------------------------------------------------- wiring
        fields = [location, time_box, beat_chars, events, dialogue, emotions, conflicts,
                  sets_up, pays_off]
        start_out = [overview, plot_title, logline, characters, settings_df, acts, cliches,
                     plot_version]
        editor_out = [episode_md, draft_md, beats_df, *fields, beat_id, beat_version, history_md,
                      branches, undo_btn, redo_btn, prose_beat]

        def start_values(view: h.StartView) -> list[Any]:
            return [view.overview, view.title, view.logline, view.characters, view.settings,
                    view.acts, view.cliches, view.plot_version]

        def editor_values(view: h.EditorView) -> list[Any]:
            accepted = [(label, str(i)) for label, i in view.accepted]
            return [
                view.heading, view.draft_label, view.beats, *[view.fields[f] for f in BEAT_FIELDS],
                view.beat_id, view.version, view.history_markdown,
                gr.Dropdown(choices=[(lbl, nid) for lbl, nid in view.history.siblings],
                            value=None),
                gr.Button(interactive=view.history.can_undo),
                gr.Button(interactive=view.history.can_redo),
                gr.Dropdown(choices=accepted, value=accepted[-1][1] if accepted else None),
            ]

        def blank_start() -> list[Any]:
            return ["_Create or open a project._", "", "", [], [], [], "", None]

        @safe
        def on_open(name: str | None) -> list[Any]:
            if not name:
                return blank_start()
            return start_values(h.start_view(service, name))

        @safe
        def on_open_editor(name: str | None) -> list[Any]:
            if not name:
                return [gr.skip()] * len(editor_out)
            return editor_values(h.editor_view(service, name))

        @safe
        def on_load() -> Any:
            names = h.project_names(service)
            return gr.Dropdown(choices=names, value=names[-1] if names else None)

        @safe
        def on_create(name: str, genre_v: str, kw: str, lang: str) -> tuple[Any, str]:
            created = h.create_project(service, name, genre_v, kw, lang)
            names = h.project_names(service)
            return gr.Dropdown(choices=names, value=created), f"Created project **{created}**."

        @safe
        def on_plot(name: str | None, progress: gr.Progress = gr.Progress()) -> list[Any]:  # noqa: B008
            progress(0.05, desc="Planning the plot…")
            view = h.generate_plot(service, name, _progress(progress))
            return [*start_values(view), "Plot generated."]

        @safe
        def on_save_plot(name: str | None, version: int | None, title: str, log_v: str,
                         chars: Any, sets: Any, acts_v: Any) -> list[Any]:
            view = h.save_plot(service, name, version, title, log_v, chars, sets, acts_v)
            return [*start_values(view), "Plot saved."]

        def editor_action(action: Callable[..., h.EditorView], done: str) -> Callable[..., Any]:
            @safe
            def run(*args: Any, progress: gr.Progress = gr.Progress()) -> list[Any]:  # noqa: B008
                progress(0.05, desc="Working…")
                view = action(*args)
                return [*editor_values(view), done]

            return run

        @safe
        def on_next(name: str | None, progress: gr.Progress = gr.Progress()) -> list[Any]:  # noqa: B008
            progress(0.05, desc="Designing the next beat…")
            view = h.next_beat(service, name, _progress(progress))
            return [*editor_values(view), "Designed the next beat."]

        @safe
        def on_save_edit(name: str | None, bid: int | None, ver: int | None,
                         *values: str) -> list[Any]:
            view = h.save_edit(service, name, bid, ver, dict(zip(BEAT_FIELDS, values, strict=True)))
            return [*editor_values(view), "Saved your edit."]

        @safe
        def on_regen(name: str | None, bid: int | None, ver: int | None, instr: str,
                     progress: gr.Progress = gr.Progress()) -> list[Any]:  # noqa: B008
            progress(0.05, desc="Regenerating the beat…")
            view = h.regenerate(service, name, bid, ver, instr, _progress(progress))
            return [*editor_values(view), "Regenerated the beat."]

        @safe
        def on_accept(name: str | None, bid: int | None, ver: int | None,
                      progress: gr.Progress = gr.Progress()) -> list[Any]:  # noqa: B008
            progress(0.05, desc="Accepting: extracting memories…")
            view = h.accept(service, name, bid, ver, _progress(progress))
            return [*editor_values(view), "Accepted: the beat is canon and memory was updated."]

        @safe
        def on_suggest(name: str | None, bid: int | None) -> str:
            return h.suggest(service, name, bid)

        @safe_stream
        def on_prose(name: str | None, bid: str | None) -> Iterator[Any]:
            text = ""
            for text in h.write_prose(service, name, int(bid) if bid else None):
                yield text, "Writing prose…"
            yield text, "Prose written and saved."

        @safe
        def on_load_prose(name: str | None, bid: str | None) -> str:
            return h.load_prose(service, name, int(bid) if bid else None)

        @safe
        def on_save_prose(name: str | None, bid: str | None, text: str) -> str:
            return h.save_prose(service, name, int(bid) if bid else None, text)

        @safe
        def on_cancel(name: str | None) -> str:
            n = service.cancel(name)
            return "Cancelled." if n else "Nothing was running."

        @safe
        def on_export(name: str | None, fmt_v: str, f: float, la: float, fn: str) -> Any:
            path = h.export_file(service, name, fmt_v, f, la, fn)
            return path, f"Exported `{path.rsplit('/', 1)[-1]}`."

        @safe
        def on_email(name: str | None, addr: str, fmt_v: str, f: float, la: float) -> str:
            return h.send_email(service, name, addr, fmt_v, f, la)

        app.load(on_load, None, project)
        project.change(on_open, project, start_out).then(
            on_open_editor, project, editor_out
        ).then(mem.refresh_fn, mem.refresh_inputs, mem.refresh_outputs)
        reload_btn.click(on_open, project, start_out).then(
            on_open_editor, project, editor_out
        ).then(mem.refresh_fn, mem.refresh_inputs, mem.refresh_outputs)
        create_btn.click(on_create, [new_name, genre, keywords, language_box], [project, status])
        plot_ev = plot_btn.click(on_plot, project, [*start_out, status])
        plot_cancel.click(on_cancel, project, status, cancels=[plot_ev])
        save_plot_btn.click(
            on_save_plot,
            [project, plot_version, plot_title, logline, characters, settings_df, acts],
            [*start_out, status],
        )
        next_ev = next_btn.click(on_next, project, [*editor_out, status])
        save_edit_btn.click(on_save_edit, [project, beat_id, beat_version, *fields],
                            [*editor_out, status])
        regen_ev = regen_btn.click(on_regen, [project, beat_id, beat_version, instruction],
                                   [*editor_out, status])
        accept_ev = accept_btn.click(on_accept, [project, beat_id, beat_version],
                                     [*editor_out, status]).then(
            mem.refresh_fn, mem.refresh_inputs, mem.refresh_outputs
        )
        beat_cancel.click(on_cancel, project, status, cancels=[next_ev, regen_ev, accept_ev])
        suggest_btn.click(on_suggest, [project, beat_id], suggestions)
        undo_btn.click(editor_action(lambda n: h.undo(service, n), "Undone."), project,
                       [*editor_out, status]).then(
            mem.refresh_fn, mem.refresh_inputs, mem.refresh_outputs
        )
        redo_btn.click(editor_action(lambda n: h.redo(service, n), "Redone."), project,
                       [*editor_out, status]).then(
            mem.refresh_fn, mem.refresh_inputs, mem.refresh_outputs
        )
        switch_btn.click(
            editor_action(lambda n, b: h.switch_branch(service, n, b), "Switched branch."),
            [project, branches], [*editor_out, status],
        ).then(mem.refresh_fn, mem.refresh_inputs, mem.refresh_outputs)
        memory_tab.select(mem.refresh_fn, mem.refresh_inputs, mem.refresh_outputs)
        prose_beat.change(on_load_prose, [project, prose_beat], prose)
        prose_ev = prose_btn.click(on_prose, [project, prose_beat], [prose, status])
        prose_cancel.click(on_cancel, project, status, cancels=[prose_ev])
        save_prose_btn.click(on_save_prose, [project, prose_beat, prose], status)
        download_btn.click(on_export, [project, fmt, first, last, filename], [exported, status])
        send_btn.click(on_email, [project, address, fmt, first, last], status)
        del tabs
    return app


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
