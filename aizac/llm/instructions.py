"""The fixed lines the LLM layer adds around a structured request, in the prompt's language (pure).

A structured call adds its own words to the writer's prompt: "reply with one JSON object only",
the schema's lead-in, and the repair follow-up after a rejected reply. In a Korean or Chinese
project those lines must be Korean or Chinese like the rest of the prompt (a small model answers
in the language it is addressed in). The LLM layer does not know the project, so the language is
read from the conversation the lines join: the script most of its system and user letters are
written in (:func:`prompt_language`). Prompts are rendered per project language, so this is the
project's language.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from langchain_core.messages import AIMessage, BaseMessage

LANGUAGES = ("en", "ko", "zh")
_HANGUL = re.compile(r"[\uac00-\ud7af\u1100-\u11ff\u3130-\u318f]")
_HAN = re.compile(r"[\u4e00-\u9fff\u3400-\u4dbf]")
_LETTER = re.compile(r"[^\W\d_]")
SCRIPT_SHARE = 0.3
"""A prompt is Korean (Chinese) when at least this share of its letters is Hangul (Han):
Korean and Chinese prompts carry English data too (names, the schema's field names)."""

TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "constrained": "Reply with one JSON object only.",
        "schema": "Reply with one JSON object only (no prose, no code fences) that validates "
        "against this JSON schema:\n",
        "repair": "Your previous reply was rejected because {error}\n"
        "Reply again with only the corrected JSON object that follows the schema.",
        "empty": "the reply is empty",
        "not_json": "the reply is not valid JSON ({msg} at line {line} column {column})",
        "mismatch": "the JSON does not match the schema:\n",
        "rejected": "its content was rejected: ",
    },
    "ko": {
        "constrained": "JSON 객체 하나로만 답하세요.",
        "schema": "다음 JSON 스키마에 맞는 JSON 객체 하나로만 답하세요(설명 글이나 코드 블록 "
        "없이):\n",
        "repair": "앞의 답은 받아들일 수 없습니다. 이유: {error}\n"
        "스키마에 맞게 고친 JSON 객체 하나로만 다시 답하세요.",
        "empty": "답이 비어 있습니다",
        "not_json": "답이 올바른 JSON이 아닙니다({line}행 {column}열: {msg})",
        "mismatch": "JSON이 스키마와 맞지 않습니다:\n",
        "rejected": "내용을 쓸 수 없습니다: ",
    },
    "zh": {
        "constrained": "只用一个 JSON 对象回答。",
        "schema": "只用一个符合以下 JSON 模式的 JSON 对象回答（不要写说明文字，也不要用"
        "代码块）：\n",
        "repair": "上一个回答未被接受，原因：{error}\n请只用一个按模式修正后的 JSON 对象重新回答。",
        "empty": "回答是空的",
        "not_json": "回答不是有效的 JSON（第 {line} 行第 {column} 列：{msg}）",
        "mismatch": "JSON 与模式不符：\n",
        "rejected": "内容无法使用：",
    },
}
"""Every fixed line of a structured request, by language."""


def text(key: str, language: str) -> str:
    """The fixed line ``key`` in ``language`` (English for any other language)."""
    return TEXTS.get(language, TEXTS["en"])[key]


def prompt_language(messages: Sequence[BaseMessage]) -> str:
    """The language the writer's part of ``messages`` is written in: ``ko``, ``zh`` or ``en``.

    Only system and user turns count (a model's own replies may be in the wrong language)."""
    letters = hangul = han = 0
    for message in messages:
        if isinstance(message, AIMessage):
            continue
        body = message.text
        letters += len(_LETTER.findall(body))
        hangul += len(_HANGUL.findall(body))
        han += len(_HAN.findall(body))
    if not letters:
        return "en"
    if hangul >= SCRIPT_SHARE * letters:
        return "ko"
    if han >= SCRIPT_SHARE * letters:
        return "zh"
    return "en"
