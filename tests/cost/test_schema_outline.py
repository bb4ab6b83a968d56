"""The type outline an API model gets instead of the JSON schema (issue 26): complete enough
that a reader of the outline alone writes replies aizac accepts, and a fraction of the cost."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from acceptance.openai_server import example_for
from acceptance.outline import outline_schema, parse_outline
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel

from aizac.llm.grammar import wire_strings
from aizac.llm.methods import apply_plan, plan_structured
from aizac.llm.profiles import ModelProfile, attach
from aizac.llm.schema_shape import schema_shape
from aizac.llm.wire_schema import compact_schema, share_definitions
from aizac.tokens import count_tokens


def _schemas() -> list[type[BaseModel]]:
    from aizac.autopilot.episode_extract import extraction_schema
    from aizac.autopilot.outline import ArcOutline
    from aizac.autopilot.review import EpisodeReview, Verdict
    from aizac.autopilot.steering import SteeringPlan
    from aizac.continuity.model_check import ModelReview
    from aizac.dialogue.plan import DialoguePlan
    from aizac.retrieval.question import MemoryQuestion
    from aizac.writer import schemas
    from aizac.writer.combined import BeatDesignWithCast, BeatExtraction
    from aizac.writer.episode_design import episode_schema

    return [
        schemas.NovelPlot, schemas.BeatDesign, BeatDesignWithCast, BeatExtraction,
        schemas.StoryExtraction, schemas.CharacterExtraction, schemas.RelationExtraction,
        schemas.SettingExtraction, schemas.BeatSummary, schemas.CharacterProfile,
        DialoguePlan, episode_schema(4), extraction_schema(3), ArcOutline,
        EpisodeReview, Verdict, SteeringPlan, ModelReview, MemoryQuestion,
    ]


def _wire(model: type[BaseModel], language: str = "zh") -> dict[str, Any]:
    return wire_strings(compact_schema(model.model_json_schema()), language, small=False)


def _openai() -> GenericFakeChatModel:
    return attach(GenericFakeChatModel(messages=iter([])),
                  ModelProfile("openai", "json_object", accepts_seed=True))


@pytest.mark.parametrize("model", _schemas(), ids=lambda m: m.__name__)
def test_a_reply_written_from_the_outline_alone_validates(model: type[BaseModel]) -> None:
    read = parse_outline(schema_shape(_wire(model), model.__name__))
    reply = example_for(read)
    model.model_validate(reply)  # what aizac checks every reply against
    # and the outline says what the schema says: a reply the schema refuses, it refuses too
    wire = _wire(model)
    for key, value in read.get("properties", {}).items():
        full = wire["properties"][key]
        assert (key in read.get("required", [])) == (key in wire.get("required", [])), key
        for bound in ("maxLength", "maxItems", "minItems", "enum"):
            if bound in full:
                assert value.get(bound) == full[bound], (model.__name__, key, bound)


def test_the_outline_refuses_what_the_schema_refuses() -> None:
    from aizac.writer.combined import BeatExtraction
    from aizac.writer.schemas import BeatDesign

    fact = {"text": "单行", "keyword": "钥匙"}
    good = {"story": {"facts": [fact]}, "summary": "一句话。"}
    cases = [
        (BeatExtraction, good, True),
        (BeatExtraction, {**good, "summary": "x" * 241}, False),
        (BeatExtraction, {"story": {"facts": [fact]}}, False),  # summary is required
        (BeatExtraction, {**good, "speech": [{"speaker": "甲", "listener": "乙",
                                              "speech_level": "rude"}]}, False),
        (BeatExtraction, {**good, "story": {"facts": [fact] * 5}}, False),
        (BeatDesign, {"location": "港口", "time": "夜", "characters": ["甲" * 41],
                      "events": ["相遇"]}, False),
        (BeatDesign, {"location": "港口", "time": "夜", "characters": [],
                      "events": ["相遇"]}, False),
    ]
    for model, instance, valid in cases:
        read = parse_outline(schema_shape(_wire(model), model.__name__))
        errors = list(jsonschema.Draft202012Validator(read).iter_errors(instance))
        assert (not errors) is valid, (model.__name__, instance, errors)


def test_the_outline_costs_under_a_third_of_the_shared_schema() -> None:
    from aizac.autopilot.episode_extract import extraction_schema
    from aizac.writer.combined import BeatDesignWithCast, BeatExtraction
    from aizac.writer.episode_design import episode_schema

    for model in (BeatExtraction, BeatDesignWithCast, episode_schema(4), extraction_schema(4)):
        shared = json.dumps(share_definitions(_wire(model)), ensure_ascii=False,
                            separators=(",", ":"))
        outline = schema_shape(_wire(model), model.__name__)
        assert count_tokens(outline) < count_tokens(shared) / 3, model.__name__


def test_a_definition_used_four_times_is_written_once() -> None:
    from aizac.writer.episode_design import episode_schema

    outline = schema_shape(_wire(episode_schema(4)), "EpisodeDesign")
    assert outline.count("type BeatDesignWithCast = ") == 1
    assert outline.count("location:") == 1
    assert outline.splitlines()[-6:] == [
        "type EpisodeDesign = {", "  beat_1: BeatDesignWithCast", "  beat_2: BeatDesignWithCast",
        "  beat_3: BeatDesignWithCast", "  beat_4: BeatDesignWithCast", "}"]
    read = parse_outline(outline)
    assert read["properties"]["beat_4"] == {"$ref": "#/$defs/BeatDesignWithCast"}


@pytest.mark.parametrize("language", ["ko", "en", "zh"])
def test_openai_models_are_asked_for_a_json_object_of_the_outline(language: str) -> None:
    from aizac.writer.combined import BeatExtraction

    plan = plan_structured(_openai(), BeatExtraction.model_json_schema(), language=language)
    assert plan.method == "json_object"
    assert plan.kwargs == {"response_format": {"type": "json_object"}}  # no schema billed
    sent = apply_plan([SystemMessage(content="system"), HumanMessage(content="beat")], plan,
                      language)
    system = sent[0].text
    assert system.startswith("system\n\n") and "JSON" in system  # OpenAI's json_object rule
    body = {"response_format": plan.kwargs["response_format"],
            "messages": [{"role": "system", "content": system}]}
    read = outline_schema(body)
    assert read is not None and read["title"] == "BeatExtraction"
    BeatExtraction.model_validate(example_for(read))


def test_the_registry_gives_openai_compatible_servers_the_outline_and_clova_the_schema() -> None:
    from aizac.llm.registry import ROWS

    methods = {row.name: row.profile.structured_method for row in ROWS}
    assert methods["openai"] == methods["openai-compatible"] == methods["ollama"] == "json_object"
    assert methods["clova"] == "json_schema" and methods["anthropic"] == "tool"
    assert methods["local"] == "constrained"
