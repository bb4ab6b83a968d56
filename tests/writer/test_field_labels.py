"""The writer's words for the fields of a model's reply (aizac.writer.field_labels)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from aizac.text import known, render
from aizac.writer import combined, schemas
from aizac.writer.field_labels import FIELD_KEYS, field_label

# every schema a structured call returns, whose fields the quality check can point at
CHECKED = (schemas.NovelPlot, schemas.BeatDesign, schemas.StoryExtraction,
           schemas.CharacterExtraction, schemas.RelationExtraction, schemas.SettingExtraction,
           schemas.BeatSummary, schemas.CharacterProfile, combined.BeatDesignWithCast,
           combined.BeatExtraction)


def _field_names(model: type[BaseModel], seen: set[str]) -> set[str]:
    for name, info in model.model_fields.items():
        seen.add(name)
        for inner in _models(info.annotation):
            _field_names(inner, seen)
    return seen


def _models(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in getattr(annotation, "__args__", ()) for m in _models(arg)]


def test_every_field_a_check_can_name_has_korean_and_chinese_words() -> None:
    names = set().union(*(_field_names(m, set()) for m in CHECKED))
    assert "speaker" in names and "key_events" in names  # nested models were walked
    assert names - set(FIELD_KEYS) == set()
    assert all(known(key) for key in FIELD_KEYS.values())


@pytest.mark.parametrize(("path", "en", "ko", "zh"), [
    ("characters[0].name", "name of characters 1", "인물 1의 이름", "人物 1的名字"),
    ("acts[2].goal", "goal of acts 3", "막 3의 목표", "幕 3的目标"),
    ("location", "location", "장소", "地点"),
    ("*", "several fields", "여러 칸", "多个字段"),
    ("no such-path!", "no such-path!", "no such-path!", "no such-path!"),
])
def test_a_path_reads_in_the_writers_words(path: str, en: str, ko: str, zh: str) -> None:
    label = field_label(path)
    assert (render(label, "en"), render(label, "ko"), render(label, "zh")) == (en, ko, zh)


def test_an_autopilot_episodes_beats_read_as_beats() -> None:
    assert render(field_label("beat_2.characters[0]"), "ko") == "비트 2의 인물 1"
    assert render(field_label("beat_3.new_characters[1].name"), "zh") == "节拍 3的新人物 2的名字"
    assert render(field_label("beat_3.new_characters[1].name"), "en") == (
        "name of new characters 2 of beat 3")
