"""Anthropic over real HTTP (Messages API wire format) against a 127.0.0.1 server."""

from __future__ import annotations

import json
from typing import Any

import pytest
from llm_wire import Reply, WireServer, assert_backoff, json_reply, sse_reply
from pydantic import BaseModel, ConfigDict, Field

from aizac.errors import ModelError
from aizac.llm.router import ModelRouter
from aizac.settings import Settings

KEY = "sk-ant-test-0123456789abcdef"


class Place(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(max_length=40)
    kind: str = Field(max_length=20)


def message(content: list[dict[str, Any]], stop: str = "end_turn") -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 13, "output_tokens": 6},
    }


def text_stream(pieces: list[str]) -> Reply:
    start = message([], stop="")
    start["stop_reason"] = None
    start["usage"] = {"input_tokens": 9, "output_tokens": 1}
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": start},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    ]
    events += [
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": p}}
        for p in pieces
    ]
    events += [
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn", "stop_sequence": None},
            "usage": {"input_tokens": 9, "output_tokens": 4},  # cumulative, as the API sends
        },
        {"type": "message_stop"},
    ]
    return sse_reply(events, named=True)


def error(status: int, kind: str = "overloaded_error") -> Reply:
    return json_reply({"type": "error", "error": {"type": kind, "message": "busy"}}, status)


def router_for(wire: WireServer, delays: list[float]) -> ModelRouter:
    settings = Settings(
        reviewer_model="anthropic:claude-test",
        anthropic_api_key=KEY,
        anthropic_base_url=wire.url,
        transient_retries=2,
    )
    return ModelRouter(settings, backoff_base=0.01, sleep=delays.append)


def test_plain_call(wire: WireServer) -> None:
    wire.script(json_reply(message([{"type": "text", "text": "Fine prose."}])))
    router = router_for(wire, [])
    assert router.model("reviewer").invoke("Review.").text == "Fine prose."
    seen = wire.requests[0]
    assert seen.path == "/v1/messages"
    assert KEY in (seen.headers.get("x-api-key", ""), seen.headers.get("authorization", "")[7:])
    assert seen.body["model"] == "claude-test"
    assert seen.body["messages"][0]["role"] == "user"
    [record] = router.usage.records
    assert (record.role, record.model) == ("reviewer", "anthropic:claude-test")
    assert (record.prompt_tokens, record.completion_tokens, record.estimated) == (13, 6, False)


def test_cache_read_tokens_reach_the_usage_log(wire: WireServer) -> None:
    reply = message([{"type": "text", "text": "Fine prose."}])
    reply["usage"] = {"input_tokens": 40, "output_tokens": 6, "cache_read_input_tokens": 1200,
                      "cache_creation_input_tokens": 0}
    wire.script(json_reply(reply))
    router = router_for(wire, [])
    router.model("reviewer").invoke("Review.")
    [record] = router.usage.records
    # LangChain counts the cached part in the input tokens, as the bill does (at a discount).
    assert (record.prompt_tokens, record.cached_tokens) == (1240, 1200)


def test_streaming(wire: WireServer) -> None:
    wire.script(text_stream(["Good", " job"]))
    router = router_for(wire, [])
    assert list(router.stream("reviewer", "x")) == ["Good", " job"]
    assert wire.requests[0].body["stream"] is True
    [record] = router.usage.records
    assert (record.prompt_tokens, record.completion_tokens) == (9, 4)
    assert not record.estimated


@pytest.mark.parametrize("status", [429, 503, 529])
def test_transient_errors_are_retried(wire: WireServer, status: int) -> None:
    wire.script(error(status), json_reply(message([{"type": "text", "text": "ok"}])))
    delays: list[float] = []
    router = router_for(wire, delays)
    assert router.model("reviewer").invoke("x").text == "ok"
    assert_backoff(delays, 0.01, 1)


def test_persistent_5xx_is_a_model_error(wire: WireServer) -> None:
    wire.script(error(500, "api_error"), error(500, "api_error"), error(500, "api_error"))
    router = router_for(wire, [])
    with pytest.raises(ModelError, match="anthropic:claude-test failed after 3 attempts"):
        router.model("reviewer").invoke("x")
    assert len(wire.requests) == 3


def test_malformed_json_body(wire: WireServer) -> None:
    wire.script(Reply(200, b"<html>gateway</html>"))
    router = router_for(wire, [])
    with pytest.raises(ModelError, match="malformed") as info:
        router.model("reviewer").invoke("x")
    assert KEY not in str(info.value)


def test_structured_output_uses_a_forced_tool(wire: WireServer) -> None:
    call = {
        "type": "tool_use",
        "id": "toolu_1",
        "name": "Place",
        "input": {"name": "Seoul", "kind": "city"},
    }
    wire.script(json_reply(message([call], stop="tool_use")))
    router = router_for(wire, [])
    assert router.structured("reviewer", Place, "A place.") == Place(name="Seoul", kind="city")
    body = wire.requests[0].body
    assert body["tool_choice"] == {"type": "tool", "name": "Place"}
    assert body["tools"][0]["name"] == "Place"
    assert body["tools"][0]["input_schema"]["properties"]["name"]["maxLength"] == 40


def test_the_stable_prefix_carries_a_cache_breakpoint(wire: WireServer) -> None:
    """Issue 26: the request marks ``cache_control`` on the last system block, so Anthropic
    caches tools (the schema) and the system prompt; the changing user turn comes after it,
    unmarked. A repair keeps the same marked prefix."""
    from langchain_core.messages import HumanMessage, SystemMessage

    bad = {"type": "tool_use", "id": "t1", "name": "Place", "input": {"name": "Seoul"}}
    good = {"type": "tool_use", "id": "t2", "name": "Place",
            "input": {"name": "Seoul", "kind": "city"}}
    wire.script(json_reply(message([bad], "tool_use")), json_reply(message([good], "tool_use")),
                json_reply(message([{"type": "text", "text": "ok"}])))
    router = router_for(wire, [])
    ask = [SystemMessage("You name places in one word."), HumanMessage("A place in Korea.")]
    assert router.structured("reviewer", Place, ask) == Place(name="Seoul", kind="city")
    first, repair = (r.body for r in wire.requests[:2])
    for body in (first, repair):
        assert body["system"][-1]["cache_control"] == {"type": "ephemeral"}
        assert "You name places in one word." in "".join(b["text"] for b in body["system"])
        assert body["tools"][0]["name"] == "Place"
        assert "cache_control" not in json.dumps(body["messages"])
    assert repair["system"] == first["system"]
    router.model("reviewer").invoke("No system prompt here.")
    assert "cache_control" not in json.dumps(wire.requests[2].body)


def test_structured_tool_output_is_repaired(wire: WireServer) -> None:
    bad = {"type": "tool_use", "id": "t1", "name": "Place", "input": {"name": "Seoul"}}
    good = {
        "type": "tool_use",
        "id": "t2",
        "name": "Place",
        "input": {"name": "Seoul", "kind": "city"},
    }
    wire.script(json_reply(message([bad], "tool_use")), json_reply(message([good], "tool_use")))
    router = router_for(wire, [])
    assert router.structured("reviewer", Place, "A place.").kind == "city"
    follow_up = wire.requests[1].body["messages"][-1]
    assert "kind" in str(follow_up["content"])
