"""The Autopilot tab: start / pause / resume a run, its live event stream, the current gate's
choices, steering notes, and the drafted prose with the continuity findings beside each beat.

The run works in a background thread (:class:`~aizac.autopilot.panel.AutopilotPanel`); a timer
refreshes the view every two seconds while the tab is open. The beat editor keeps working on
the same project: the autopilot commits through the same accept unit of work.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gradio as gr

from aizac.autopilot.names import gate_name
from aizac.autopilot.panel import AutopilotPanel, View
from aizac.autopilot.runner import Autopilot
from aizac.web.runner import Ui

GATE_CHOICES = ("plan", "rewrite", "commit")


def _safe(ui: Ui, work: Callable[..., str]) -> Callable[..., str]:
    def run(*args: Any) -> str:
        try:
            return work(*args)
        except Exception as e:
            return ui.message(e)

    return run


def build(ui: Ui, panel: AutopilotPanel | None = None) -> Callable[[], None]:
    """Lay out the tab (inside an open ``gr.Tab``); returns its wiring."""
    L = ui.L
    pilot = panel or AutopilotPanel(
        ui.service.agent, make=lambda agent: Autopilot(agent, door=ui.service),
        language=L.language)
    with gr.Row():
        episodes = gr.Number(label=L["ui.ap.episodes"], value=5, precision=0, minimum=1,
                             elem_id="aizac-ap-episodes")
        gates = gr.CheckboxGroup([(L.say(gate_name(g)), g) for g in GATE_CHOICES],
                                 label=L["ui.ap.gates"],
                                 value=[], elem_id="aizac-ap-gates")
        budget = gr.Number(label=L["ui.ap.budget"], value=0, precision=0, minimum=0)
    with gr.Row():
        start = gr.Button(L["ui.ap.start"], variant="primary", elem_id="aizac-ap-start")
        pause = gr.Button(L["ui.ap.pause"], elem_id="aizac-ap-pause")
        resume = gr.Button(L["ui.ap.resume"], elem_id="aizac-ap-resume")
    said = gr.Markdown("", elem_id="aizac-ap-said")
    status = gr.Markdown("", elem_id="aizac-ap-status")
    with gr.Row():
        with gr.Column(scale=3):
            gate = gr.Markdown("", elem_id="aizac-ap-gate")
            with gr.Row():
                approve = gr.Button(L["ui.ap.approve"], elem_id="aizac-ap-approve")
                reject = gr.Button(L["ui.ap.reject"], elem_id="aizac-ap-reject")
                edit = gr.Button(L["ui.ap.edit"], elem_id="aizac-ap-edit")
            edit_value = gr.Textbox(label=L["ui.ap.edit_value"], lines=2)
            prose = gr.Markdown("", label=L["ui.ap.draft"], elem_id="aizac-ap-prose")
        with gr.Column(scale=2):
            events = gr.Markdown("", label=L["ui.ap.events"], elem_id="aizac-ap-events")
            steer_text = gr.Textbox(label=L["ui.ap.steer"], lines=2, elem_id="aizac-ap-steer")
            send = gr.Button(L["ui.ap.send"])
    timer = gr.Timer(2.0)

    def refresh(project: str | None) -> list[Any]:
        try:
            view = pilot.view(project)
        except Exception as e:
            view = View(status=ui.message(e))
        return [view.status, view.events, view.gate, view.prose]

    def wire() -> None:
        shown = [status, events, gate, prose]
        start.click(_safe(ui, lambda p, n, g, b: pilot.start(p, int(n or 1), list(g or []),
                                                               budget_tokens=int(b or 0))),
                    [ui.project, episodes, gates, budget], said)
        pause.click(_safe(ui, pilot.pause), ui.project, said)
        resume.click(_safe(ui, lambda p: pilot.resume(p)), ui.project, said)
        approve.click(_safe(ui, lambda p: pilot.answer(p, "approve")), ui.project, said)
        reject.click(_safe(ui, lambda p: pilot.answer(p, "reject")), ui.project, said)
        edit.click(_safe(ui, lambda p, v: pilot.answer(p, "edit", v)), [ui.project, edit_value],
                   said)
        send.click(_safe(ui, pilot.steer), [ui.project, steer_text], said)
        timer.tick(refresh, ui.project, shown)

    return wire
