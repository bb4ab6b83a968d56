from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from aizac.errors import ConfigError
from aizac.writer.prompts import KINDS, LANGUAGES, PromptLibrary, parse_template
from aizac.writer.schemas import (
    EXTRACTION_SCHEMAS,
    BeatDesign,
    BeatSummary,
    CharacterProfile,
    NovelPlot,
)
from tests.fakes import plot_json

MODEL_FACING = [NovelPlot, BeatDesign, BeatSummary, CharacterProfile, *EXTRACTION_SCHEMAS.values()]


def _unbounded(schema: dict[str, Any], defs: dict[str, Any], path: str = "") -> list[str]:
    """Paths of strings without maxLength and arrays without maxItems (constrained decoding
    would not terminate on them)."""
    if "$ref" in schema:
        return _unbounded(defs[schema["$ref"].split("/")[-1]], defs, path)
    out: list[str] = []
    kind = schema.get("type")
    if kind == "string" and "maxLength" not in schema and "enum" not in schema:
        out.append(path)
    if kind == "array":
        if "maxItems" not in schema:
            out.append(path)
        out += _unbounded(schema["items"], defs, path + "[]")
    for name, sub in schema.get("properties", {}).items():
        out += _unbounded(sub, defs, f"{path}.{name}")
    for sub in schema.get("anyOf", []):
        out += _unbounded(sub, defs, path)
    return out


@pytest.mark.parametrize("schema", MODEL_FACING, ids=lambda s: s.__name__)
def test_model_facing_schemas_are_closed_and_bounded(schema: Any) -> None:
    js = schema.model_json_schema()
    assert _unbounded(js, js.get("$defs", {})) == []
    assert js.get("additionalProperties") is False
    with pytest.raises(ValidationError):
        schema.model_validate({**json.loads('{"unexpected": 1}')})


def test_plot_acts_follow_the_five_stages_and_map_episodes() -> None:
    data = json.loads(plot_json(episodes_per_act=2))
    data["acts"][0]["stage"] = "climax"  # small models mislabel; position decides
    data["acts"][1]["episodes"] = 4
    plot = NovelPlot.model_validate(data)
    assert [a.stage for a in plot.acts] == [
        "exposition", "development", "crisis", "climax", "resolution"
    ]
    assert plot.planned_episodes == 12
    assert [plot.act_index(e) for e in (1, 2, 3, 6, 7, 12, 99)] == [0, 0, 1, 1, 2, 4, 4]
    # development spans episodes 3-6 with two key events: 3-4 -> event 1, 5-6 -> event 2
    assert [plot.episode_plan(e) for e in (3, 4, 5, 6)] == [
        "development event 1", "development event 1",
        "development event 2", "development event 2",
    ]
    assert plot.episode_plan(99) == "resolution event 2"
    with pytest.raises(ValidationError):
        NovelPlot.model_validate({**data, "acts": data["acts"][:4]})
    # Integer bounds are not enforced by constrained decoding: out-of-range counts are clamped.
    data["acts"][2]["episodes"] = 10**30
    data["acts"][3]["episodes"] = -4
    data["acts"][4]["episodes"] = 2.6
    plot = NovelPlot.model_validate(data)
    assert [a.episodes for a in plot.acts][2:] == [500, 1, 3]


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("kind", KINDS)
def test_every_template_exists_and_renders(language: str, kind: str) -> None:
    values = dict.fromkeys(
        ["genre", "keywords", "tropes", "stage", "act_goal", "episode", "index",
         "episode_plan", "context", "suggestions", "instruction", "beat", "scene", "previous",
         "length", "characters", "name", "known", "first", "last", "count", "beats", "style",
         "dialogue", "speakers", "voices", "turns", "memory", "scenes", "offer", "story",
         "prose"], "VALUE",
    )
    messages = PromptLibrary().render(kind, language, **values)
    assert messages[-1].type == "human"
    assert "$" not in "".join(str(m.content) for m in messages)


def test_override_directory_wins_and_errors_are_clear(tmp_path: Path) -> None:
    (tmp_path / "en").mkdir()
    (tmp_path / "en" / "summary.txt").write_text("### user\nShort: $beat", encoding="utf-8")
    lib = PromptLibrary(tmp_path)
    assert lib.render("summary", "en", beat="B")[0].content == "Short: B"
    assert "요약" in str(lib.render("summary", "ko", beat="B")[-1].content)  # package data
    with pytest.raises(ConfigError, match="uses \\$beat"):
        lib.render("summary", "en")
    with pytest.raises(ConfigError, match="no '### user'"):
        parse_template("plot", "en", "just text")
    with pytest.raises(ConfigError):
        lib.get("nope", "en")


def test_repetition_guard_trims_degenerate_loops_only() -> None:
    from aizac.writer.context import repetition_start, tail_tokens

    looped = "He said hi. " + "1." * 40
    assert looped[: repetition_start(looped)] == "He said hi. 1."
    words = "He ran. " + "and ran again " * 8
    assert words[: repetition_start(words)] == "He ran. and ran again "
    echo = "Intro.\n" + "Write this beat as prose (about 300 words):\nplace / time\n\n" * 3
    assert echo[: repetition_start(echo)] == (
        "Intro.\nWrite this beat as prose (about 300 words):\nplace / time\n\n"
    )
    for fine in ("ㅋㅋㅋㅋㅋㅋㅋㅋ", "Wait......", "A normal ending.", "", "ab ab ab"):
        assert repetition_start(fine) is None
    assert tail_tokens("first\nsecond\nthird", 4) == "second\nthird"


def test_repeated_names_from_a_weak_model_are_collapsed() -> None:
    data = json.loads(plot_json())
    data["characters"].append({"name": "kang jun", "role": "x", "profile": "dup"})
    plot = NovelPlot.model_validate(data)
    assert [c.name for c in plot.characters] == ["Kang Jun", "Seo Yuna"]
    beat = BeatDesign.model_validate(
        {"location": "l", "time": "t", "characters": ["A", "A", "B"], "events": ["e"]}
    )
    assert beat.characters == ["A", "B"]


def test_a_keyword_written_too_long_is_cut_not_the_reason_an_extraction_is_refused() -> None:
    """A blind extractor's keyword of 40 characters refused the whole beat's extraction three
    times, and the accept failed with every fact of the beat."""
    from aizac.writer.schemas import KEYWORD_LENGTH, SettingFact, StoryFact

    long = "the sword that was broken and then mended again"
    fact = StoryFact.model_validate({"text": "검이 다시 이어졌다", "keyword": long})
    assert fact.keyword == long[:KEYWORD_LENGTH].strip() and len(fact.keyword) <= KEYWORD_LENGTH
    rule = SettingFact.model_validate({"keyword": "  두   칸  ", "text": "규칙", "rule": True})
    assert rule.keyword == "두 칸"
