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

from aizac.autopilot.panel import AutopilotPanel, View
from aizac.web.runner import Ui

TEXT = {
    "en": {"episodes": "Episodes", "gates": "Wait for me at", "budget": "Token budget (0: none)",
           "start": "Start", "pause": "Pause", "resume": "Resume", "approve": "Approve",
           "reject": "Reject", "edit": "Edit", "edit_value": "Edit (instruction, or JSON)",
           "steer": "Steer the book", "send": "Send", "events": "Events", "draft": "Draft",
           "gate_plan": "plan", "gate_rewrite": "rewrite", "gate_commit": "commit"},
    "ko": {"episodes": "회차 수", "gates": "확인할 단계", "budget": "토큰 예산 (0: 없음)",
           "start": "시작", "pause": "일시 정지", "resume": "재개", "approve": "승인",
           "reject": "거절", "edit": "수정", "edit_value": "수정 (지시문 또는 JSON)",
           "steer": "방향 지시", "send": "보내기", "events": "이벤트", "draft": "초고",
           "gate_plan": "계획", "gate_rewrite": "다시 쓰기", "gate_commit": "확정"},
    "zh": {"episodes": "回数", "gates": "在这些步骤等我", "budget": "令牌预算（0：不限）",
           "start": "开始", "pause": "暂停", "resume": "继续", "approve": "批准",
           "reject": "拒绝", "edit": "修改", "edit_value": "修改（指示或 JSON）",
           "steer": "方向指示", "send": "发送", "events": "事件", "draft": "草稿",
           "gate_plan": "计划", "gate_rewrite": "重写", "gate_commit": "确定"},
}
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
    language = ui.language if ui.language in TEXT else "en"
    T = TEXT[language]
    pilot = panel or AutopilotPanel(ui.service.agent, language=language)
    with gr.Row():
        episodes = gr.Number(label=T["episodes"], value=5, precision=0, minimum=1,
                             elem_id="aizac-ap-episodes")
        gates = gr.CheckboxGroup([(T[f"gate_{g}"], g) for g in GATE_CHOICES], label=T["gates"],
                                 value=[], elem_id="aizac-ap-gates")
        budget = gr.Number(label=T["budget"], value=0, precision=0, minimum=0)
    with gr.Row():
        start = gr.Button(T["start"], variant="primary", elem_id="aizac-ap-start")
        pause = gr.Button(T["pause"], elem_id="aizac-ap-pause")
        resume = gr.Button(T["resume"], elem_id="aizac-ap-resume")
    said = gr.Markdown("", elem_id="aizac-ap-said")
    status = gr.Markdown("", elem_id="aizac-ap-status")
    with gr.Row():
        with gr.Column(scale=3):
            gate = gr.Markdown("", elem_id="aizac-ap-gate")
            with gr.Row():
                approve = gr.Button(T["approve"], elem_id="aizac-ap-approve")
                reject = gr.Button(T["reject"], elem_id="aizac-ap-reject")
                edit = gr.Button(T["edit"], elem_id="aizac-ap-edit")
            edit_value = gr.Textbox(label=T["edit_value"], lines=2)
            prose = gr.Markdown("", label=T["draft"], elem_id="aizac-ap-prose")
        with gr.Column(scale=2):
            events = gr.Markdown("", label=T["events"], elem_id="aizac-ap-events")
            steer_text = gr.Textbox(label=T["steer"], lines=2, elem_id="aizac-ap-steer")
            send = gr.Button(T["send"])
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
