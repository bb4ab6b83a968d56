"""The writer's words for the fields of a model's reply (pure).

A refused reply names the field it found wanting by its JSON path (``acts[2].goal``); that path
is right for the model, which answers in JSON, but a Korean or Chinese writer reads it as
English noise. :func:`field_label` turns it into the interface's words (``막 3의 목표``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

# key: (Korean, Chinese); every field of the schemas in aizac.writer.schemas that a quality
# problem can point at (a key missing here is shown as it is)
_LABELS: dict[str, tuple[str, str]] = {
    "title": ("제목", "标题"),
    "logline": ("로그라인", "一句话梗概"),
    "genre": ("장르", "类型"),
    "keywords": ("키워드", "关键词"),
    "keyword": ("키워드", "关键词"),
    "characters": ("인물", "人物"),
    "character_name": ("인물 이름", "人物名字"),
    "character1": ("인물 1", "人物一"),
    "character2": ("인물 2", "人物二"),
    "name": ("이름", "名字"),
    "aliases": ("별칭", "别名"),
    "role": ("역할", "角色"),
    "profile": ("소개", "简介"),
    "goal": ("목표", "目标"),
    "settings": ("배경", "设定"),
    "description": ("설명", "描述"),
    "acts": ("막", "幕"),
    "stage": ("단계", "阶段"),
    "episodes": ("화 수", "集数"),
    "key_events": ("주요 사건", "关键事件"),
    "location": ("장소", "地点"),
    "time": ("시간", "时间"),
    "events": ("사건", "事件"),
    "dialogue": ("대사", "对白"),
    "speaker": ("화자", "说话人"),
    "line": ("대사", "台词"),
    "emotions": ("감정", "情感"),
    "conflicts": ("갈등", "冲突"),
    "sets_up": ("복선", "伏笔"),
    "pays_off": ("복선 회수", "伏笔回收"),
    "paid_off": ("회수한 복선", "已回收的伏笔"),
    "facts": ("사실", "事实"),
    "text": ("내용", "内容"),
    "aspect": ("측면", "方面"),
    "summary": ("요약", "摘要"),
    "foreshadow": ("복선", "伏笔"),
    "rule": ("규칙", "规则"),
    "new_characters": ("새 인물", "新人物"),
    "story": ("사건 기억", "情节记忆"),
    "relations": ("관계 기억", "关系记忆"),
    "voices": ("말투 기억", "说话方式记忆"),
    "manner": ("말투", "说话方式"),
    "tics": ("버릇", "习惯"),
    "catchphrases": ("입버릇", "口头禅"),
    "dialect": ("사투리", "方言"),
    "speech": ("말씨 기억", "称呼记忆"),
    "listener": ("듣는 이", "听话人"),
    "speech_level": ("말투 단계", "说话等级"),
    "address": ("호칭", "称呼"),
}
_BEAT_N = re.compile(r"beat_(\d+)")  # an autopilot episode's beats, each its own field
_BEAT_WORD = {"ko": "비트", "zh": "节拍"}
_STEP = re.compile(r"([A-Za-z_]\w*)(?:\[(\d+)\])?")
_JOIN = {"ko": "의 ", "zh": "的"}
_ALL = {"ko": "여러 칸", "zh": "多个字段"}


def field_label(path: str, language: str) -> str:
    """``path`` (``characters[0].name``) in the words of ``language`` (``인물 1의 이름`` in
    Korean, ``人物 1的名字`` in Chinese); English and unknown languages keep the path."""
    if language not in _JOIN:
        return path
    if path == "*":
        return _ALL[language]
    column = 0 if language == "ko" else 1
    steps = []
    for part in path.split("."):
        match = _STEP.fullmatch(part)
        if match is None:
            return path  # not a path this module knows: shown as it is, never guessed
        key, index = match[1], match[2]
        beat = _BEAT_N.fullmatch(key)
        if beat is not None:
            word = f"{_BEAT_WORD[language]} {beat[1]}"
        else:
            word = _LABELS[key][column] if key in _LABELS else key
        steps.append(f"{word} {int(index) + 1}" if index is not None else word)
    return _JOIN[language].join(steps)


# what a validator found wrong with a field the writer filled in (pydantic's error types)
_WRONG = {
    "ko": {"missing": "이(가) 없습니다", "too_short": "이(가) 비어 있습니다",
           "string_too_short": "이(가) 비어 있습니다", "too_long": "이(가) 너무 깁니다",
           "string_too_long": "이(가) 너무 깁니다", "": "이(가) 올바르지 않습니다"},
    "zh": {"missing": "缺失", "too_short": "为空", "string_too_short": "为空",
           "too_long": "太长", "string_too_long": "太长", "": "无效"},
}


def invalid_fields(errors: Sequence[Mapping[str, Any]], language: str, *, limit: int = 3) -> str:
    """What a validator found wrong (pydantic's ``errors()``), in the writer's words:
    ``'배경 1의 이름'이(가) 비어 있습니다`` (pure); English and unknown languages get ""."""
    wrong = _WRONG.get(language)
    if wrong is None:
        return ""
    parts = []
    for err in list(errors)[:limit]:
        path = "".join(f"[{x}]" if isinstance(x, int) else f".{x}" for x in err.get("loc", ()))
        label = field_label(path.lstrip(".") or "*", language)
        parts.append(f"'{label}'{wrong.get(str(err.get('type', '')), wrong[''])}")
    return "; ".join(parts)
