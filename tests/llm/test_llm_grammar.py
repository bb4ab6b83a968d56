"""The small embedded model's grammar: names are names and no string echoes a label, by
construction; other models get the schema without the marks. The patterns are read with Python's
``re`` here (the same regular-expression subset llama.cpp turns into grammar rules); the real
model decoding against them is in ``test_llm_local.py``."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from aizac.llm.grammar import KIND, language_patterns, patterns, wire_strings
from aizac.llm.methods import plan_structured
from aizac.llm.profiles import attach
from aizac.llm.registry import row
from aizac.llm.wire_schema import compact_schema, small_bounds, tighten_schema
from aizac.writer.schemas import BeatDesign, CharacterProfile, NovelPlot


def strings(node: Any, path: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every string node of a schema with its path."""
    if isinstance(node, dict):
        if node.get("type") == "string":
            yield path, node
        for key, value in node.items():
            yield from strings(value, f"{path}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from strings(value, f"{path}[{i}]")


def small_wire(schema: type[Any], language: str) -> dict[str, Any]:
    share, items = small_bounds(language)
    tight = tighten_schema(compact_schema(schema.model_json_schema()), length_share=share,
                           max_items=items)
    return wire_strings(tight, language, small=True)


def pattern_at(schema: dict[str, Any], suffix: str) -> re.Pattern[str]:
    found = [node["pattern"] for path, node in strings(schema) if path.endswith(suffix)]
    assert found, suffix
    return re.compile(found[0])


def test_every_language_of_the_table_has_every_kind() -> None:
    assert set(patterns()) == {"en", "ko", "zh"}
    assert language_patterns("fr") == language_patterns("en")


@pytest.mark.parametrize("refused", ["57694", "She was born", "an alien ship arrives, and",
                                     "Mara Jin Dojun Baek", "Episode 1", "", "X"])
def test_an_english_name_is_one_to_three_capitalised_words(refused: str) -> None:
    name = pattern_at(small_wire(BeatDesign, "en"), "characters.items")
    assert name.fullmatch(refused) is None
    for good in ("Mara", "Lena Blackwood", "Baek Seo Ah"):
        assert name.fullmatch(good), good


def test_a_korean_or_chinese_name_is_in_its_script() -> None:
    ko = pattern_at(small_wire(BeatDesign, "ko"), "characters.items")
    assert ko.fullmatch("강준") and ko.fullmatch("백 서아")
    for refused in ("Mara", "57694", "강준이 복수를 다짐한다 그리고 떠난다", "1화"):
        assert ko.fullmatch(refused) is None, refused
    zh = pattern_at(small_wire(BeatDesign, "zh"), "characters.items")
    assert zh.fullmatch("李明") and not zh.fullmatch("Li Ming") and not zh.fullmatch("12")


@pytest.mark.parametrize("echo", ["Episode 1", "1234567890", "Genre: modern fantasy",
                                  "## Recent summary", "Title", "$goal of the act",
                                  "The {name} returns", 'He said "no" twice'])
def test_no_text_field_can_hold_a_label_a_number_or_template_marks(echo: str) -> None:
    plot = small_wire(NovelPlot, "en")
    for suffix in (".logline", ".goal", "key_events.items", ".profile"):
        assert pattern_at(plot, suffix).fullmatch(echo) is None, (suffix, echo)
    assert pattern_at(plot, ".logline").fullmatch("A hunter returns ten years to take revenge")


def test_korean_text_is_refused_a_label_colon_and_a_number() -> None:
    plot = small_wire(NovelPlot, "ko")
    logline = pattern_at(plot, ".logline")
    assert logline.fullmatch("십 년 전으로 돌아온 헌터의 복수")
    for echo in ("장르: 현대판타지", "1화 제목", "제1화", "## 요약"):
        assert logline.fullmatch(echo) is None, echo


def test_places_times_and_setting_names_have_their_own_kind() -> None:
    beat = small_wire(BeatDesign, "en")
    place, time = pattern_at(beat, ".location"), pattern_at(beat, ".time")
    assert place.fullmatch("The old library") and time.fullmatch("the next morning")
    assert place.fullmatch("Room 101") is None and time.fullmatch("3 AM") is None
    setting = pattern_at(small_wire(NovelPlot, "en"), "PlotSetting.properties.name")
    assert setting.fullmatch("the gate") and not setting.fullmatch("The gate, which opens")


def test_every_string_of_a_small_schema_has_a_pattern_and_fits_its_full_schema() -> None:
    """Nothing the grammar allows is refused by the full schema (lengths), and every string
    but an enum gets a pattern."""
    for schema in (NovelPlot, BeatDesign, CharacterProfile):
        full = dict(strings(schema.model_json_schema()))
        for path, node in strings(small_wire(schema, "en")):
            if "enum" in node:
                continue
            assert "pattern" in node and KIND not in node, path
            longest = _longest(node["pattern"])
            assert longest <= full[path]["maxLength"], (path, longest)


def _longest(pattern: str) -> int:
    """The longest value the table's pattern shapes allow: ``^F R{m,n}$`` (text) or
    ``^W( W){0,k}$`` with ``W`` made of classes, some with ``{m,n}`` (words)."""
    body = pattern.strip("^$")
    repeat = re.search(r"\)\{0,(\d+)\}$", body)
    word = body.split("( ")[0] if repeat else body
    classes = re.findall(r"\[(?:\\.|[^\]])*\](?:\{\d+,(\d+)\})?", word)
    one = sum(int(most) if most else 1 for most in classes)
    more = int(repeat.group(1)) if repeat else 0
    return one * (more + 1) + more


def test_only_the_small_model_gets_patterns_and_no_model_gets_the_marks() -> None:
    local, openai = row("local"), row("openai")
    assert local is not None and openai is not None
    small = attach(FakeListChatModel(responses=["{}"]), local.profile)
    real = attach(FakeListChatModel(responses=["{}"]), openai.profile)
    schema = BeatDesign.model_json_schema()
    small_plan = plan_structured(small, schema, language="en")
    sent = json.dumps(small_plan.kwargs["response_format"]["schema"])
    assert '"pattern"' in sent and KIND not in sent
    real_plan = plan_structured(real, schema, language="en")
    assert real_plan.kwargs["response_format"] == {"type": "json_object"}
    sent = real_plan.note("en") or ""  # the outline in the system message
    assert "pattern" not in sent and KIND not in sent and "location: string" in sent
    prompt_plan = plan_structured(FakeListChatModel(responses=["{}"]), schema, "prompt")
    assert KIND not in (prompt_plan.note("en") or "")  # the schema shown in a prompt


def test_an_optional_text_may_stay_empty_and_a_verbatim_one_has_no_pattern() -> None:
    from aizac.continuity.model_check import ModelReview
    from aizac.retrieval.question import MemoryQuestion

    keyword = pattern_at(small_wire(MemoryQuestion, "ko"), ".keyword")
    assert keyword.fullmatch("") and keyword.fullmatch("검")  # no keyword: no filter
    review = small_wire(ModelReview, "en")
    finding = dict(strings(review))
    quoted = [p for p in finding if p.endswith((".quote", ".memory_id"))]
    assert len(quoted) == 2 and all("pattern" not in finding[p] for p in quoted)
    assert "pattern" in next(v for p, v in finding.items() if p.endswith(".message"))
