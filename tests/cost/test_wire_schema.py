"""The compact schema sent on the wire: smaller, same shape, replies validated on the full one."""

from __future__ import annotations

import json
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage
from pydantic import BaseModel, ConfigDict, Field

from aizac.llm.methods import plan_structured
from aizac.llm.structured import generate_structured
from aizac.llm.wire_schema import compact_schema
from aizac.writer.schemas import BeatDesign, NovelPlot


class Item(BaseModel):
    """A class docstring the model does not need."""

    model_config = ConfigDict(extra="forbid")
    title: str = Field(max_length=20, description="the item's own title")
    description: str = ""
    default: int = Field(default=3, ge=0)


class Holder(BaseModel):
    model_config = ConfigDict(extra="forbid")
    items: list[Item] = Field(default_factory=list, max_length=2)
    note: str | None = None


def _keys(node: Any) -> set[str]:
    out: set[str] = set()
    if isinstance(node, dict):
        for key, value in node.items():
            out.add(key)
            out |= _keys(value)
    elif isinstance(node, list):
        for value in node:
            out |= _keys(value)
    return out


def test_titles_defaults_and_class_docs_go_field_names_and_hints_stay() -> None:
    full = Holder.model_json_schema()
    wire = compact_schema(full)
    item = wire["$defs"]["Item"]
    # Fields named like the dropped keywords survive; so do bounds, required, closedness.
    assert set(item["properties"]) == {"title", "description", "default"}
    assert item["properties"]["title"] == {
        "type": "string", "maxLength": 20, "description": "the item's own title"
    }
    assert item["properties"]["default"] == {"type": "integer", "minimum": 0}
    assert item["required"] == ["title"] and item["additionalProperties"] is False
    assert "description" not in item  # the class docstring
    assert wire["title"] == "Holder" and "title" not in item  # the root keeps its name
    assert "default" not in wire["properties"]["items"]
    assert wire["properties"]["note"] == {"anyOf": [{"type": "string"}, {"type": "null"}]}
    assert wire["properties"]["items"]["items"] == {"$ref": "#/$defs/Item"}
    assert full["$defs"]["Item"]["properties"]["title"]["title"] == "Title"  # input untouched


def test_real_schemas_shrink() -> None:
    for schema in (NovelPlot, BeatDesign):
        full = json.dumps(schema.model_json_schema(), separators=(",", ":"))
        wire = json.dumps(compact_schema(schema.model_json_schema()), separators=(",", ":"))
        # Only the root's name and the plot's own "title" field are left.
        assert wire.count('"title":') == 1 + (schema is NovelPlot)
        assert len(wire) <= 0.85 * len(full), (schema.__name__, len(wire), len(full))


def test_plan_sends_the_compact_schema_under_the_model_name() -> None:
    model = GenericFakeChatModel(messages=iter([]))
    plan = plan_structured(model, Holder.model_json_schema(), "json_schema")
    sent = plan.kwargs["response_format"]["json_schema"]
    assert sent["name"] == "Holder"
    from aizac.llm.wire_schema import share_definitions

    assert sent["schema"] == share_definitions(compact_schema(Holder.model_json_schema()))
    note = plan_structured(model, Holder.model_json_schema(), "prompt").system_note
    assert note is not None and '"title":"Item"' not in note and "maxLength" in note


def test_reply_is_still_validated_against_the_full_model() -> None:
    # The wire copy has no defaults; the defaults still fill in on our side, and a
    # constraint the model broke is still caught and repaired.
    model = GenericFakeChatModel(messages=iter([
        AIMessage('{"items": [{"title": "' + "x" * 30 + '"}]}'),
        AIMessage('{"items": [{"title": "열쇠"}]}'),
    ]))
    out = generate_structured(model, Holder, [HumanMessage("go")], retries=1)
    assert out.items[0].title == "열쇠" and out.items[0].default == 3 and out.note is None


# ------------------------------------------------------------------ shared definitions (issue 26)
def _instances() -> list[tuple[type[BaseModel], dict[str, Any], bool]]:
    from aizac.writer.combined import BeatExtraction

    fact = {"text": "单行", "keyword": "钥匙"}
    good = {"story": {"facts": [fact]}, "summary": "一句话。",
            "relations": {"facts": [{"a": "c1", "b": "c2", "text": "结盟"}]}}
    return [
        (BeatExtraction, good, True),
        (BeatExtraction, {**good, "summary": "x" * 241}, False),  # a shared leaf's bound
        (BeatExtraction, {**good, "story": {"facts": [{"text": ""}]}}, False),  # minLength
        (BeatExtraction, {**good, "extra": 1}, False),  # still closed
        (BeatExtraction, {"story": {"facts": [fact]}}, False),  # required kept
        (BeatDesign, {"location": "港口", "time": "夜", "characters": ["甲"],
                      "events": ["相遇"]}, True),
        (BeatDesign, {"location": "港口", "time": "夜", "characters": ["甲" * 41],
                      "events": ["相遇"]}, False),
    ]


def test_shared_definitions_accept_and_refuse_what_the_full_schema_does() -> None:
    import jsonschema

    from aizac.llm.wire_schema import share_definitions

    for model, instance, valid in _instances():
        full = compact_schema(model.model_json_schema())
        shared = share_definitions(full)
        for schema in (full, shared):
            errors = list(jsonschema.Draft202012Validator(schema).iter_errors(instance))
            assert (not errors) is valid, (model.__name__, instance, errors)


def test_shared_definitions_cut_the_extraction_schema_by_a_fifth() -> None:
    from aizac.llm.wire_schema import share_definitions
    from aizac.tokens import count_tokens
    from aizac.writer.combined import BeatDesignWithCast, BeatExtraction

    def text(s: dict[str, Any]) -> str:
        return json.dumps(s, ensure_ascii=False, separators=(",", ":"))

    for model, share in ((BeatExtraction, 0.8), (BeatDesignWithCast, 0.9)):
        before = compact_schema(model.model_json_schema())
        after = share_definitions(before)
        assert len(text(after)) <= share * len(text(before)), model.__name__
        assert count_tokens(text(after)) < count_tokens(text(before))
        assert before == compact_schema(model.model_json_schema())  # input untouched
    # A definition used once is put in place; nothing repeated: nothing changes.
    assert share_definitions(compact_schema(Holder.model_json_schema())) == {
        **{k: v for k, v in compact_schema(Holder.model_json_schema()).items() if k != "$defs"},
        "properties": {
            **compact_schema(Holder.model_json_schema())["properties"],
            "items": {**compact_schema(Holder.model_json_schema())["properties"]["items"],
                      "items": compact_schema(Holder.model_json_schema())["$defs"]["Item"]},
        },
    }


def test_api_models_get_the_shared_schema_the_small_model_the_plain_one() -> None:
    from aizac.llm.grammar import wire_strings
    from aizac.llm.profiles import ModelProfile, attach
    from aizac.llm.wire_schema import share_definitions
    from aizac.writer.combined import BeatExtraction

    full = BeatExtraction.model_json_schema()
    # what an API model is sent: the kind marks dropped (aizac.llm.grammar), then shared
    wire = share_definitions(wire_strings(compact_schema(full), "en", small=False))
    api = GenericFakeChatModel(messages=iter([]))
    sent = plan_structured(api, full, "json_schema").kwargs["response_format"]["json_schema"]
    assert sent["schema"] == wire
    assert '"$defs":{"t1"' in json.dumps(sent["schema"], separators=(",", ":"))
    claude = attach(GenericFakeChatModel(messages=iter([])), ModelProfile("anthropic"))
    tool = plan_structured(claude, full, "tool").kwargs["tools"][0]["input_schema"]
    assert tool == wire
    small = attach(GenericFakeChatModel(messages=iter([])), ModelProfile("local", small_local=True))
    grammar = plan_structured(small, full, "constrained").kwargs["response_format"]["schema"]
    assert "t1" not in grammar.get("$defs", {})  # llama.cpp's grammar: unchanged
