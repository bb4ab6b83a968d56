"""What the Autopilot panel says: the state said once, and everything around the story's own
text in the interface language (issue 14 gaps 4 and 5)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from langchain_core.messages import BaseMessage

from aizac.autopilot import panel_text as pt
from aizac.autopilot.panel import AutopilotPanel, View
from aizac.text import Text, Verbatim, render
from aizac.text.message import from_data, to_data
from tests.autopilot.fakes import JudgingModel, make_studio
from tests.fakes.scripted import _schema_title
from tests.web.markdown_kit import HEADING, MARKUP, assert_literal, tags_of


class KoreanJudge(JudgingModel):
    """The scripted judging model answering in Korean (verdict reasons too)."""

    def _next(self, messages: list[BaseMessage]) -> str:
        if _schema_title(messages) == "Verdict":
            super()._next(messages)
            return json.dumps({"decision": "accept", "reasons": ["흐름이 자연스럽다"]},
                              ensure_ascii=False)
        return super()._next(messages)


def _english(view: View, run_id: str) -> set[str]:
    shown = " ".join((view.status, view.events, view.gate, view.prose)).replace(run_id, "")
    return set(re.findall(r"[A-Za-z]{2,}", shown))


def test_the_waiting_status_says_waiting_once(tmp_path: Path) -> None:
    studio = make_studio(tmp_path / "data", JudgingModel())
    studio.create("web", "regression", genre="fantasy", language="en").plan()
    panel = AutopilotPanel(studio.open)
    panel.start("web", 1, ["commit"])
    panel.wait("web", 300)
    view = panel.view("web")
    run_id = panel.pilot("web").runs.run().id
    assert view.status == f"**{run_id}**: waiting at the commit gate (episode 1)"
    assert "| ep | step | tokens · s | note |" in view.events
    assert "| 1 | check | 0 · " in view.events and "| 1 | commit gate (gate) |" in view.events


def test_a_korean_panel_says_nothing_in_english(tmp_path: Path) -> None:
    model = KoreanJudge()
    model.speak_korean()
    studio = make_studio(tmp_path / "data", model)
    studio.create("웹", "회귀, 복수", genre="판타지", language="ko").plan()
    panel = AutopilotPanel(studio.open, language="ko")
    assert "시작했습니다" in panel.start("웹", 1, ["plan", "commit"])
    panel.wait("웹", 300)
    run_id = panel.pilot("웹").runs.run().id
    view = panel.view("웹")  # at the plan gate: the beats
    assert view.status == f"**{run_id}**: 계획 확인을 기다리는 중 (1화)"
    assert "인물: " in view.gate and _english(view, run_id) == set()
    panel.answer("웹", "approve")
    panel.wait("웹", 300)
    view = panel.view("웹")  # at the commit gate: memories, prose, events
    assert view.status == f"**{run_id}**: 확정 확인을 기다리는 중 (1화)"
    assert "후보 기억" in view.gate and "비트 1" in view.prose
    assert "| 회차 | 단계 | 토큰 · 초 | 내용 |" in view.events
    assert "연속성 검사" in view.events and "수락: 흐름이 자연스럽다" in view.events
    assert _english(view, run_id) == set(), view
    panel.answer("웹", "approve")
    panel.wait("웹", 300)
    view = panel.view("웹")
    assert view.status == f"**{run_id}**: 완료" and _english(view, run_id) == set(), view
    assert "일시 정지를 요청했습니다" in panel.pause("웹")


def test_pause_reasons_and_finding_kinds_in_korean() -> None:
    """A pause reason is a catalogue text the workflow stored as data, said in the page's
    language (no English sentence read back)."""
    writer = Text("autopilot.pause.writer")
    stuck = from_data(to_data(Text("autopilot.pause.no_progress", node=pt.name("check"), n=5)))
    assert render(writer, "ko") == "작가가 멈췄습니다"
    assert render(stuck, "ko") == "연속성 검사 단계가 진전 없이 5번 실행됐습니다"
    assert render(stuck, "zh") == "连贯性检查步骤 5 次没有进展"
    assert pt.status_line("r1", "paused", writer, None, "", "en") == "**r1**: paused: by the writer"
    budget = Text("autopilot.pause.budget", spent=Verbatim("9 of 5 tokens"))
    assert pt.status_line("r1", "paused", budget, None, "", "en") == (
        "**r1**: paused: budget: 9 of 5 tokens")
    assert pt.status_line("r1", "paused", writer, None, "", "zh") == "**r1**: 暂停：作者暂停了"
    legacy = {"text": "paused by the writer"}  # an older run's event: shown as it was written
    assert pt.event_note("pause", "pause", legacy, "ko") == "paused by the writer"
    state: dict[str, Any] = {"episode": 3, "prose": {"1": "아렌이 걸었다."}, "report": {
        "findings": [{"kind": "foreshadowing_overdue", "severity": "warning",
                      "message": "복선이 기한을 넘겼습니다.", "quote": "", "beat": None}]}}
    text = pt.prose_markdown(state, "ko")
    assert "### 3화" in text and "**경고** (기한 지난 복선)" in text


class _Event:
    def __init__(self, node: str, kind: str, detail: dict[str, Any]) -> None:
        self.node, self.kind, self.detail = node, kind, detail
        self.episode, self.tokens, self.seconds = 2, 10, 0.5


def test_the_models_markup_shows_literally_and_the_panels_own_stays() -> None:
    said = f"{MARKUP} {HEADING}"
    gate = {"gate": "gate_commit", "episode": 2,
            "beat_data": [{"episode": 2, "index": 1, "location": HEADING, "time": "",
                           "characters": [MARKUP]}],
            "memory_data": [{"beat": "1", "tag": "story", "text": said}],
            "verdict": {"decision": "polish", "reasons": [said]}}
    text = pt.gate_markdown(gate, "ko")
    assert_literal(text, f"인물: {MARKUP}", f"[1] 사건: {said}", f"다듬기: {said}")
    assert tags_of(text)[:1] == ["h3"] and tags_of(text).count("strong") == 2
    prose = f"{HEADING}\n\n{MARKUP}\n- 그는 갔다\n\n\u3000들여쓴 문단"
    state: dict[str, Any] = {"episode": 2, "prose": {"1": prose},
                             "report": {"findings": [{"kind": "model", "severity": "warning",
                                                      "message": said, "quote": MARKUP,
                                                      "beat": "1"}]}}
    text = pt.prose_markdown(state, "ko")
    assert_literal(text, HEADING, MARKUP, "- 그는 갔다", f"(모델 검사): {said} — “{MARKUP}”")
    assert tags_of(text).count("p") >= 5, text  # the paragraphs stay apart
    assert "\n\u3000들여쓴 문단" in text  # a Korean paragraph's indent stays
    assert "ul" not in tags_of(text) and tags_of(text).count("strong") == 2
    events = pt.event_table([_Event("review", "end", {"decision": "accept", "reasons": [said]})],
                            "ko")
    assert_literal(events, f"수락: {said}"[:90])
    assert tags_of(events).count("td") == 4, events  # '|' split no cell
    line = pt.status_line("r1", "failed", Verbatim(said), None, "", "ko")
    assert_literal(line, f"r1: 실패: {said}")
    assert tags_of(line) == ["p", "strong"]
