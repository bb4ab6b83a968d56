"""The words the pipeline puts around data in a prompt, per language (pure).

Prompt templates are per language (``prompts/<lang>/*.txt``), but some values arrive already
rendered with English scaffolding: the context pack's headings (``## Characters present``),
its header lines (``Act goal:``), a beat's field labels (``characters:``, ``sets up:``), a
character profile's ``Goal:``, the act's stage slug and the default genre. :func:`localize`
rewrites that scaffolding into the project's language when a template is rendered, so a Korean
project's prompt is Korean from its first line to its last; data (names, events, the writer's
own text) is left as it is.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from aizac.cliches.render import stage_name

DEFAULT_GENRE = "web novel"
GENRES: dict[str, str] = {"en": DEFAULT_GENRE, "ko": "웹소설", "zh": "网络小说"}
"""The genre a prompt names when the project has none."""

SECTION_HEADINGS: dict[str, dict[str, str]] = {
    "ko": {
        "characters": "## 지금 등장하는 인물",
        "relations": "## 인물 사이의 관계",
        "settings": "## 관련된 세계관 설정",
        "summary": "## 최근 줄거리",
        "foreshadowing": "## 아직 회수하지 않은 복선",
        "core": "## 작가가 고정한 핵심 설정",
        "story": "## 관련된 지난 사건",
    },
    "zh": {
        "characters": "## 在场人物",
        "relations": "## 人物关系",
        "settings": "## 相关世界设定",
        "summary": "## 近期梗概",
        "foreshadowing": "## 尚未回收的伏笔",
        "core": "## 作者锁定的核心设定",
        "story": "## 相关往事",
    },
}
"""Context-pack section headings by language, keyed like :data:`aizac.retrieval.pack.HEADINGS`."""

LINE_LABELS: dict[str, dict[str, str]] = {
    "ko": {
        "Act goal:": "이번 막의 목표:",
        "Location:": "장소:",
        "characters:": "등장인물:",
        "emotions:": "감정:",
        "conflicts:": "갈등:",
        "sets up:": "심어 둘 복선:",
        "pays off:": "회수할 복선:",
        "Writer's instruction:": "작가의 지시:",
    },
    "zh": {
        "Act goal:": "本幕目标：",
        "Location:": "地点：",
        "characters:": "人物：",
        "emotions:": "情绪：",
        "conflicts:": "冲突：",
        "sets up:": "埋下伏笔：",
        "pays off:": "回收伏笔：",
        "Writer's instruction:": "作者的指示：",
    },
}
"""English labels that open a line of a rendered value, by language."""

INLINE_LABELS: dict[str, dict[str, str]] = {
    "ko": {" Goal: ": " 목표: "},
    "zh": {" Goal: ": " 目标："},
}
"""English labels inside a line (a character profile's goal), by language."""


def _heading_map(language: str) -> dict[str, str]:
    from aizac.retrieval.pack import HEADINGS

    own = SECTION_HEADINGS.get(language, {})
    return {HEADINGS[k]: v for k, v in own.items() if k in HEADINGS}


def localize_text(text: str, language: str) -> str:
    """``text`` with the pipeline's English scaffolding in ``language`` (``ko``, ``zh``).

    Only whole headings and labels at the start of a line (and a profile's `` Goal: ``) are
    replaced; everything else is data and stays as written. Other languages are unchanged.
    """
    if language not in LINE_LABELS or not text:
        return text
    headings = _heading_map(language)
    labels = LINE_LABELS[language]
    lines = []
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped in headings:
            line = line.replace(stripped, headings[stripped])
        else:
            for english, own in labels.items():
                if stripped.startswith(english):
                    indent = line[: len(line) - len(line.lstrip())]
                    sep = "" if own.endswith("：") else " "
                    line = indent + own + sep + stripped[len(english) :].lstrip()
                    break
        for english, own in INLINE_LABELS[language].items():
            line = line.replace(english, own)
        lines.append(line)
    return "\n".join(lines)


_STAGE = re.compile(r"^(exposition|development|crisis|climax|resolution)$")


def localize(values: Mapping[str, object], language: str) -> dict[str, str]:
    """Template values with their scaffolding in ``language`` (see :func:`localize_text`).

    ``stage`` becomes the stage's name (``crisis`` -> ``위기``) and the default genre the
    language's word for a web novel.
    """
    out: dict[str, str] = {}
    for name, value in values.items():
        text = str(value)
        if name == "stage" and _STAGE.match(text):
            text = stage_name(text, language)
        elif name == "genre" and text == DEFAULT_GENRE:
            text = GENRES.get(language, text)
        else:
            text = localize_text(text, language)
        out[name] = text
    return out
