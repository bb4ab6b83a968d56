"""What the Autopilot panel says, in the interface language (English, Korean, Chinese).

Pure tables and renderers: the run's status line, the event table, the gate's question and the
drafted prose with its findings. The story's own text (prose, beats, the model's reasons) stays
as written; everything the panel adds around it is translated here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from aizac.export.render import escape_markdown_cell, escape_markdown_lines

TEXT: dict[str, dict[str, str]] = {
    "en": {
        "no_project": "no project open", "no_run": "no run yet",
        "started": "autopilot started: {n} episode(s)",
        "pause_asked": "pause requested: the run stops before its next step",
        "resumed": "autopilot resumed",
        "steered": "steering note queued: applied at the next episode boundary",
        "running": "running", "finished": "finished", "failed": "failed: {message}",
        "waiting": "waiting at the {gate} gate (episode {episode})",
        "paused": "paused: {reason}", "stopped": "stopped",
        "gate_head": "waiting at the {gate} gate (episode {episode})",
        "memories": "candidate memories", "verdict": "verdict", "findings": "findings",
        "episode": "episode {episode}", "beat": "beat {beat}",
        "cols": "ep|step|tokens · s|note",
        "check_note": "{n} findings{kinds}, missed {missed}",
        "replayed": "replayed",
    },
    "ko": {
        "no_project": "열린 프로젝트가 없습니다", "no_run": "아직 실행한 적이 없습니다",
        "started": "자동 연재를 시작했습니다: {n}화",
        "pause_asked": "일시 정지를 요청했습니다: 다음 단계 전에 멈춥니다",
        "resumed": "자동 연재를 재개했습니다",
        "steered": "방향 지시를 받았습니다: 다음 회차 경계에서 적용합니다",
        "running": "실행 중", "finished": "완료", "failed": "실패: {message}",
        "waiting": "{gate} 확인을 기다리는 중 ({episode}화)",
        "paused": "일시 정지: {reason}", "stopped": "멈춤",
        "gate_head": "{gate} 확인을 기다리는 중 ({episode}화)",
        "memories": "후보 기억", "verdict": "판정", "findings": "발견",
        "episode": "{episode}화", "beat": "비트 {beat}",
        "cols": "회차|단계|토큰 · 초|내용",
        "check_note": "발견 {n}건{kinds}, 빠진 비트 {missed}",
        "replayed": "재실행",
    },
    "zh": {
        "no_project": "没有打开的项目", "no_run": "还没有运行",
        "started": "自动连载已开始：{n} 回",
        "pause_asked": "已请求暂停：在下一步之前停止",
        "resumed": "自动连载已继续",
        "steered": "已收到方向指示：在下一回的边界应用",
        "running": "运行中", "finished": "完成", "failed": "失败：{message}",
        "waiting": "等待{gate}确认（第 {episode} 回）",
        "paused": "暂停：{reason}", "stopped": "已停止",
        "gate_head": "等待{gate}确认（第 {episode} 回）",
        "memories": "候选记忆", "verdict": "判定", "findings": "发现",
        "episode": "第 {episode} 回", "beat": "节拍 {beat}",
        "cols": "回|步骤|令牌 · 秒|内容",
        "check_note": "发现 {n} 项{kinds}，遗漏 {missed}",
        "replayed": "重放",
    },
}

# Node, event, gate, verdict, finding and severity names (English is the name itself).
NAMES: dict[str, dict[str, str]] = {
    "en": {"load_context": "context", "rewrite_queued": "queued rewrite",
           "gate_plan": "plan gate", "gate_rewrite": "rewrite gate", "gate_commit": "commit gate",
           "gate_batch": "batch gate"},
    "ko": {
        "load_context": "맥락 불러오기", "plan": "계획", "draft": "초고", "extract": "추출",
        "check": "연속성 검사", "review": "검토", "rewrite": "다시 쓰기", "commit": "확정",
        "checkpoint": "회차 마감", "rewrite_queued": "예약된 다시 쓰기", "outline": "개요",
        "gate_plan": "계획 확인", "gate_rewrite": "다시 쓰기 확인", "gate_commit": "확정 확인",
        "gate_batch": "묶음 확인", "batch": "묶음", "pause": "일시 정지", "finish": "완료",
        "steer": "방향 지시", "run": "실행", "start": "시작", "end": "끝", "verdict": "판정",
        "decision": "결정", "gate": "대기", "warn": "경고", "error": "오류",
        "accept": "수락", "polish": "다듬기", "waiting": "대기 중",
        "warning": "경고", "absent_character": "없는 인물", "dead_character": "죽은 인물",
        "foreshadowing_overdue": "기한 지난 복선", "model": "모델 검사",
        "pinned_negated": "고정 사실 부정", "secret_leak": "비밀 누설",
        "superseded_relation": "지난 관계", "world_rule": "세계 규칙",
        "wrong_location": "어긋난 장소",
        "story": "사건", "characters": "인물", "relations": "관계", "settings": "설정",
        "summary": "요약", "emotions": "감정", "conflicts": "갈등", "sets up": "복선",
        "pays off": "회수",
    },
    "zh": {
        "load_context": "载入上下文", "plan": "计划", "draft": "草稿", "extract": "提取",
        "check": "连贯性检查", "review": "审阅", "rewrite": "重写", "commit": "确定",
        "checkpoint": "本回收尾", "rewrite_queued": "预约重写", "outline": "大纲",
        "gate_plan": "计划确认", "gate_rewrite": "重写确认", "gate_commit": "确定确认",
        "gate_batch": "批次确认", "batch": "批次", "pause": "暂停", "finish": "完成",
        "steer": "方向指示", "run": "运行", "start": "开始", "end": "结束", "verdict": "判定",
        "decision": "决定", "gate": "等待", "warn": "警告", "error": "错误",
        "accept": "接受", "polish": "润色", "waiting": "等待中",
        "warning": "警告", "absent_character": "缺席人物", "dead_character": "已死人物",
        "foreshadowing_overdue": "逾期伏笔", "model": "模型检查",
        "pinned_negated": "否定固定事实", "secret_leak": "泄露秘密",
        "superseded_relation": "过时关系", "world_rule": "世界规则",
        "wrong_location": "地点不符",
        "story": "事件", "characters": "人物", "relations": "关系", "settings": "设定",
        "summary": "摘要", "emotions": "情感", "conflicts": "冲突", "sets up": "伏笔",
        "pays off": "回收",
    },
}

# Pause reasons the workflow writes (English), as patterns -> templates per language.
_REASONS: list[tuple[str, dict[str, str]]] = [
    (r"paused by the writer", {"ko": "작가가 멈췄습니다", "zh": "作者暂停了"}),
    (r"paused at the batch gate", {"ko": "묶음 확인에서 멈췄습니다", "zh": "在批次确认处暂停"}),
    (r"paused by a steering note: (?P<x>.*)",
     {"ko": "방향 지시로 멈췄습니다: {x}", "zh": "因方向指示暂停：{x}"}),
    (r"budget: (?P<x>.*)", {"ko": "토큰 예산을 넘었습니다 ({x})", "zh": "超出令牌预算（{x}）"}),
    (r"(?P<node>[a-z_]+) dispatched (?P<n>\d+) times without progress",
     {"ko": "{node} 단계가 진전 없이 {n}번 실행됐습니다", "zh": "{node} 步骤 {n} 次没有进展"}),
    (r"resume to go on", {"ko": "재개하면 이어집니다", "zh": "继续即可接着运行"}),
    (r"stopped", {"ko": "멈춤", "zh": "已停止"}),
]


def lang(language: str) -> str:
    return language if language in TEXT else "en"


def text(key: str, language: str, **values: Any) -> str:
    """The panel's phrase ``key`` in ``language``, filled with ``values``."""
    return TEXT[lang(language)][key].format(**values)


def name(word: str, language: str) -> str:
    """A node, event, gate, verdict, finding or memory-tag name in ``language`` (a finding
    kind the table lacks comes from the catalogue, ``continuity.kind.<kind>``)."""
    from aizac.text import known, t

    found = NAMES.get(lang(language), {}).get(word)
    if found is None and known(f"continuity.kind.{word}"):
        return t(f"continuity.kind.{word}", lang(language))
    return found if found is not None else word


def reason(message: str, language: str) -> str:
    """A pause reason (or another run message the workflow writes) in ``language``."""
    if lang(language) == "en":
        return message
    for pattern, table in _REASONS:
        if match := re.fullmatch(pattern, message.strip(), flags=re.S):
            values = dict(match.groupdict())
            if "node" in values:
                values["node"] = name(values["node"], language)
            return table[lang(language)].format(**values)
    return message


def status_line(run_id: str, status: str, message: str, gate: Mapping[str, Any] | None,
                error: str, language: str) -> str:
    """``**RUN**: <where it stands>`` with the state said once (pure)."""
    if status == "waiting" and gate:
        said = text("waiting", language, gate=name(str(gate.get("gate")), language),
                    episode=gate.get("episode"))
    elif status == "paused" and lang(language) == "en" and message.startswith("paused"):
        said = message  # "paused by the writer", not "paused: paused by the writer"
    elif status == "paused":
        said = text("paused", language, reason=reason(message or "stopped", language))
    elif status == "failed":
        said = text("failed", language, message=message)
    elif status in ("running", "finished"):
        said = text(status, language)
    else:
        said = status
    # literal: a failure or a steering note may quote the model or the writer
    return f"**{escape_markdown_cell(run_id)}**: {escape_markdown_cell(said)} " \
        f"{escape_markdown_cell(error)}".strip()


def event_note(node: str, kind: str, detail: Mapping[str, Any], language: str) -> str:
    """An event's note in ``language``: the check's counts, a verdict, a gate, a pause."""
    if node == "check" and kind == "end" and "findings" in detail:
        kinds = [name(k, language) for k in detail.get("kinds", [])]
        missed = ", ".join(str(m) for m in detail.get("missed", [])) or "-"
        return text("check_note", language, n=detail["findings"], missed=missed,
                    kinds=f" ({', '.join(kinds)})" if kinds else "")
    if node == "review" and kind == "end" and detail.get("decision"):
        reasons = "; ".join(str(r) for r in detail.get("reasons", []))
        return f"{name(str(detail['decision']), language)}: {reasons}"
    note = str(detail.get("text") or detail.get("decision") or "")
    if kind == "gate":
        return name(note, language)
    if kind in ("pause", "warn") or (kind == "end" and note):
        return reason(note, language)
    return note


def _cell(value: object) -> str:
    return escape_markdown_cell(str(value))


def event_table(events: Sequence[Any], language: str) -> str:
    """The events as a Markdown table with the headers in ``language`` (pure)."""
    if not events:
        return ""
    head = text("cols", language).split("|")
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for e in events:
        note = event_note(e.node, e.kind, e.detail, language)[:90]
        if e.detail.get("replayed"):
            note = f"({text('replayed', language)}) {note}"
        step = name(e.node, language)
        if e.kind not in ("end", e.node):  # an error, a warning, a gate: say which
            step = f"{step} ({name(e.kind, language)})"
        rows.append("| " + " | ".join(_cell(v) for v in (
            e.episode, step, f"{e.tokens} · {e.seconds:.2f}", note)) + " |")
    return "\n".join(rows)


_LABELED = re.compile(r"^(characters|emotions|conflicts|sets up|pays off): ")
_MEMORY = re.compile(r"^\[(\d+)\] (story|characters|relations|settings|summary): ")


def _beat_line(line: str, language: str) -> str:
    """A line of a beat: its label in ``language``, the model's text after it literal."""
    if match := _LABELED.match(line):
        return f"{name(match.group(1), language)}: {escape_markdown_cell(line[match.end():])}"
    return escape_markdown_cell(line)


def _memory_line(line: str, language: str) -> str:
    """A candidate memory: ``[n] tag:`` in ``language``, the model's text after it literal."""
    if match := _MEMORY.match(line):
        return (f"\\[{match.group(1)}\\] {name(match.group(2), language)}: "
                f"{escape_markdown_cell(line[match.end():])}")
    return escape_markdown_cell(line)


def gate_markdown(gate: Mapping[str, Any] | None, language: str = "en") -> str:
    """The gate's question as Markdown (pure)."""
    if not gate:
        return ""
    head = text("gate_head", language, gate=name(str(gate.get("gate")), language),
                episode=gate.get("episode"))
    out = [f"### {head}"]
    for beat in gate.get("beats", []) or []:
        out.append("\n".join(f"- {_beat_line(line, language)}" if n == 0
                             else f"  {_beat_line(line, language)}"
                             for n, line in enumerate(str(beat).splitlines())))
    if gate.get("memories"):
        out.append(f"**{text('memories', language)}**")
        out += [f"- {_memory_line(str(line), language)}" for line in gate["memories"]]
    if gate.get("verdict"):
        verdict = gate["verdict"]
        reasons = escape_markdown_cell("; ".join(str(r) for r in verdict.get("reasons", [])))
        decision = name(str(verdict.get("decision")), language)
        out.append(f"**{text('verdict', language)}**: {decision}: {reasons}")
    return "\n".join(out)


def _finding(f: Mapping[str, Any], language: str, quote: bool) -> str:
    message = escape_markdown_cell(str(f.get("message")))
    said = (f"> **{name(str(f.get('severity')), language)}** "
            f"({name(str(f.get('kind')), language)}): {message}")
    return f"{said} — “{escape_markdown_cell(str(f.get('quote', '')))}”" if quote else said


def prose_markdown(state: Mapping[str, Any], language: str = "en") -> str:
    """The open episode's drafted prose, each beat followed by the findings about it (pure)."""
    prose = state.get("prose") or {}
    if not prose:
        return ""
    findings = (state.get("report") or {}).get("findings", [])
    out = [f"### {text('episode', language, episode=state.get('episode'))}"]
    for key in sorted(prose, key=int):
        # the prose literal, paragraph by paragraph (its '# Episode 2' is no heading)
        out.append(f"**{text('beat', language, beat=key)}**\n\n"
                   f"{escape_markdown_lines(str(prose[key]))}")
        out += [_finding(f, language, True) for f in findings if str(f.get("beat")) == key]
    out += [_finding(f, language, False) for f in findings if f.get("beat") is None]
    return "\n\n".join(out)


__all__ = ["event_table", "gate_markdown", "name", "prose_markdown", "reason", "status_line",
           "text"]
