"""The Export tab: download the novel as txt/md/epub, or send it by email."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gradio as gr

from aizac.web import handlers as h
from aizac.web.exports import ExportResult
from aizac.web.runner import Ui


def _left_out(ui: Ui, result: ExportResult) -> str:
    if not result.without_prose:
        return ""
    beats = ", ".join(result.without_prose[:12]) + ("…" if len(result.without_prose) > 12 else "")
    return ui.L.t("ui.without_prose", n=len(result.without_prose), beats=beats)


def build(ui: Ui) -> Callable[[], None]:
    """Lay out the tab (inside an open ``gr.Tab``); returns its wiring."""
    L = ui.L
    with gr.Row():
        with gr.Column():
            fmt = gr.Radio(["txt", "md", "epub"], value="txt", label=L["ui.format"],
                           elem_id="aizac-format")
            with gr.Row():
                first = gr.Number(label=L["ui.first"], value=0, precision=0, minimum=0)
                last = gr.Number(label=L["ui.last"], value=0, precision=0, minimum=0)
            filename = gr.Textbox(label=L["ui.file_name"], elem_id="aizac-file-name")
            ui.button("download", L["ui.download"], variant="primary")
            ui.note("download")
            exported = gr.File(label=L["ui.file"], interactive=False, elem_id="aizac-exported")
        with gr.Column():
            address = gr.Textbox(label=L["ui.email"], type="email", elem_id="aizac-email")
            ui.button("send", L["ui.send"])
            ui.note("send")

    def export(project: str | None, fmt_v: str, f: float, la: float, fn: str) -> Any:
        result = h.export_file(ui.service, project, fmt_v, f, la, fn)
        said = L.t("ui.exported", file=result.target.rsplit("/", 1)[-1])
        return [result.target], said + _left_out(ui, result)

    def email(project: str | None, addr: str, fmt_v: str, f: float, la: float) -> Any:
        result = h.send_email(ui.service, project, addr, fmt_v, f, la)
        return [], L.t("ui.emailed", fmt=fmt_v, to=result.target) + _left_out(ui, result)

    def wire() -> None:
        ui.buttons["download"].click(ui.act(export, 1, "download"),
                                     [ui.project, fmt, first, last, filename],
                                     ui.outputs([exported], "download"))
        ui.buttons["send"].click(ui.act(email, 0, "send"), [ui.project, address, fmt, first, last],
                                 ui.outputs([], "send"))

    return wire
