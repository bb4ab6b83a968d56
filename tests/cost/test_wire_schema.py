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
    assert sent["schema"] == compact_schema(Holder.model_json_schema())
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
