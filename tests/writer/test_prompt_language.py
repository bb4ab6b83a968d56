"""A Korean (or Chinese) project's prompts are Korean (or Chinese) from first line to last.

Every prompt kind is rendered per language with realistic values made by the real producers
(the context pack, a beat, a character profile, trope arcs, the instruction line), each taking
its words from ``prompts/<lang>/words.toml``; any Latin word left outside the JSON vocabulary
(schema field names, enum values, ``JSON``) is English scaffolding and fails the test.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from pydantic import BaseModel

from aizac.cliches import TropeArc, load_beats, render_tropes_for_prompt
from aizac.dialogue import plan as dialogue_plan
from aizac.memory.references import WORDS
from aizac.retrieval.pack import SECTIONS, ContextPack, PackItem
from aizac.writer import combined, schemas
from aizac.writer.context import scene_brief
from aizac.writer.locks import render_request
from aizac.writer.prompt_words import instruction_line, prompt_words
from aizac.writer.prompts import KINDS, PromptLibrary
from aizac.writer.schemas import CharacterProfile, NovelBeat

LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
ACRONYM = re.compile(r"^[A-Z]{1,6}$")  # IMF, VIP, NPC: how Korean and Chinese writers spell them
PLACEHOLDER = re.compile(r"\$(?:\{([_A-Za-z][_A-Za-z0-9]*)\}|([_A-Za-z][_A-Za-z0-9]*))")

SAMPLES: dict[str, dict[str, str]] = {
    "ko": {
        "hero": "진도준",
        "elder": "진양철",
        "place": "순양그룹 회장실",
        "time": "1987년 겨울 밤",
        "event": "진도준이 할아버지 앞에서 주가 폭락을 예언한다",
        "line": "네가 그걸 어떻게 아느냐.",
        "feeling": "긴장",
        "conflict": "아이의 말을 믿을 것인가",
        "setup": "할아버지의 서재 열쇠",
        "payoff": "벼랑길의 기억",
        "role": "순양그룹 창업주",
        "profile": "냉정하지만 손자의 재능을 알아본다",
        "goal": "그룹을 지킬 후계자를 찾는다",
        "prose": '도준은 숨을 골랐다. "할아버지, 내일 주가가 떨어집니다."',
        "fact": "진도준은 회귀 사실을 숨기고 있다",
        "instruction": "대사를 더 짧게",
        "keywords": "회귀, 복수, 재벌",
        "genre": "현대 판타지",
        "plan": "주주총회에서 경영권을 되찾는다",
    },
    "zh": {
        "hero": "林晚",
        "elder": "林老爷子",
        "place": "林氏集团顶楼",
        "time": "一九八七年冬夜",
        "event": "林晚在祖父面前预言股市暴跌",
        "line": "你怎么会知道这个？",
        "feeling": "紧张",
        "conflict": "要不要相信孩子的话",
        "setup": "祖父书房的钥匙",
        "payoff": "悬崖边的记忆",
        "role": "林氏集团创始人",
        "profile": "冷酷却看出孙女的天赋",
        "goal": "找到守住集团的继承人",
        "prose": "林晚深吸一口气。“爷爷，明天股价会跌。”",
        "fact": "林晚隐瞒了重生的事实",
        "instruction": "对白再短一些",
        "keywords": "重生, 复仇, 豪门",
        "genre": "都市异能",
        "plan": "在股东大会上夺回经营权",
    },
}


def json_vocabulary() -> set[str]:
    """Field names and enum values of every model-facing schema, JSON literals, and the word
    a reply refers with (``new``, ``id``)."""
    words = {"JSON", "json", "true", "false", "null", *WORDS}
    for obj in [*vars(schemas).values(), *vars(combined).values(),
                *vars(dialogue_plan).values()]:
        if isinstance(obj, type) and issubclass(obj, BaseModel) and obj is not BaseModel:
            words |= _schema_words(obj.model_json_schema())
    return words


def _schema_words(node: Any) -> set[str]:
    out: set[str] = set()
    if isinstance(node, dict):
        out |= set(node.get("properties", {}))
        out |= {v for v in node.get("enum", []) if isinstance(v, str)}
        for v in node.values():
            out |= _schema_words(v)
    elif isinstance(node, list):
        for v in node:
            out |= _schema_words(v)
    return out


def sample_beat(s: dict[str, str]) -> NovelBeat:
    return NovelBeat(
        episode=3,
        index=2,
        location=s["place"],
        time=s["time"],
        characters=[s["hero"], s["elder"]],
        events=[s["event"]],
        dialogue=[{"speaker": s["elder"], "line": s["line"]}],
        emotions=[s["feeling"]],
        conflicts=[s["conflict"]],
        sets_up=[s["setup"]],
        pays_off=[s["payoff"]],
    )


def sample_context(s: dict[str, str], words_of: str) -> str:
    words = prompt_words(words_of)
    profile = CharacterProfile(
        name=s["elder"], aliases=[], role=s["role"], profile=s["profile"], goal=s["goal"]
    )
    items = [PackItem(section=sec, text=f"{s['hero']} — {s['fact']}") for sec in SECTIONS]
    items.append(PackItem(section="characters", text=profile.render(words.labels)))
    return ContextPack(
        budget_tokens=900, act_goal=s["plan"], location=s["place"], items=items,
        words=words.pack,
    ).render()


def sample_tropes(language: str, s: dict[str, str], words_of: str) -> tuple[str, str]:
    rows = [r for r in load_beats() if r.trope == "chaebol-regression"]
    if language != "ko":  # the database has no Chinese columns: stand-in Chinese data
        rows = [
            r.model_copy(update={f: s["event"] for f in ("summary", "conflict", "hook")})
            for r in rows
        ]
    words = ("회귀", "재벌") if language == "ko" else ("重生", "豪门")
    arc = TropeArc(rows[0].trope, rows[0].genre, words, tuple(rows))
    words = prompt_words(words_of)
    text = render_tropes_for_prompt([arc], max_tokens=100_000, language=language,
                                    labels=words.cliches, stages=words.stages)
    hits = [r.localized(language) for r in rows[:3]]
    return text, "\n".join(f"- {h.summary} ({h.hook})" for h in hits)


def values_for(language: str, words_of: str | None = None) -> dict[str, object]:
    """Sample values for a ``language`` project, made with the prompt words of ``words_of``
    (the project's language unless a test asks for another's)."""
    s = SAMPLES[language]
    words = prompt_words(words_of or language)
    beat = sample_beat(s)
    tropes, suggestions = sample_tropes(language, s, words.language)
    return {
        "genre": words.genre,
        "keywords": s["keywords"],
        "tropes": tropes,
        "stage": words.stage("crisis"),
        "act_goal": s["plan"],
        "episode": 3,
        "index": 2,
        "episode_plan": s["event"],
        "context": sample_context(s, words.language),
        "suggestions": suggestions,
        "instruction": instruction_line(s["instruction"], words),
        "request": render_request(s["instruction"], {"location": s["place"]}, words),
        "name": s["elder"],
        "known": s["hero"],
        "beat": beat.render(labels=words.labels),
        "characters": f"{s['hero']}, {s['elder']}",
        "previous": s["prose"],
        "scene": scene_brief(beat),
        "length": 300,
    }


@pytest.mark.parametrize("language", ["ko", "zh"])
@pytest.mark.parametrize("kind", KINDS)
def test_every_prompt_has_no_english_outside_json_words(language: str, kind: str) -> None:
    library = PromptLibrary()
    template = library.get(kind, language)
    wanted = {a or b for a, b in PLACEHOLDER.findall(template.system + template.user)}
    base = values_for(language)
    filler = SAMPLES[language]["fact"]  # any other placeholder is data: fill it with data
    values = {name: base.get(name, filler) for name in wanted if name != "language_name"}
    text = "\n".join(str(m.content) for m in library.render(kind, language, **values))
    words = set(LATIN_WORD.findall(text)) - json_vocabulary()
    english = sorted(w for w in words if not ACRONYM.match(w))
    assert not english, f"{language}/{kind}: English words {english} in:\n{text}"


def test_the_check_would_catch_english_scaffolding() -> None:
    # Korean data made with the English prompt words carries the labels the test looks for.
    raw = values_for("ko", words_of="en")
    assert "## Characters present" in str(raw["context"])
    assert "characters:" in str(raw["beat"]) and "Goal:" in str(raw["context"])
    own = values_for("ko")
    assert "## 지금 등장하는 인물" in str(own["context"])
    assert "이번 막의 목표:" in str(own["context"]) and "등장인물:" in str(own["beat"])
    assert "작가의 요청" in str(own["request"]) and "작가의 지시:" in str(own["instruction"])
    text = "\n".join(str(m.content) for m in PromptLibrary().render("beat", "ko", **raw))
    assert "Characters" in set(LATIN_WORD.findall(text)) - json_vocabulary()


def test_english_scaffolding_stays_for_english_projects() -> None:
    raw = values_for("ko", words_of="en")
    messages = PromptLibrary().render("beat", "en", **raw)
    text = "\n".join(str(m.content) for m in messages)
    assert "web novel" in text and "(crisis)" in text


@pytest.mark.parametrize("language", ["ko", "zh"])
@pytest.mark.parametrize("kind", ["beat", "episode_beats", "plot"])
def test_design_prompts_offer_no_stage_name_to_copy(language: str, kind: str) -> None:
    """A stage name as a whole value is template echo to the quality check ("repeats the
    prompt's wording"); the Korean and Chinese design prompts showed it in English
    ("현재 막(crisis)의 목표"), and the embedded model copied it into the beat's fields."""
    from aizac.writer.quality import SCHEMA_WORDS, is_echo
    from aizac.writer.schemas import STAGES

    library = PromptLibrary()
    template = library.get(kind, language)
    wanted = {a or b for a, b in PLACEHOLDER.findall(template.system + template.user)}
    base = values_for(language)
    values = {name: base.get(name, "-") for name in wanted if name != "language_name"}
    text = "\n".join(str(m.content) for m in library.render(kind, language, **values))
    assert not [s for s in STAGES if s in text]
    assert all(s in SCHEMA_WORDS and is_echo(s) for s in STAGES)  # the copy would be refused
