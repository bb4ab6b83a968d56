"""OpenAI (and openai-compatible / Ollama /v1) over real HTTP against a 127.0.0.1 server."""

from __future__ import annotations

from typing import Any

import pytest
from llm_wire import (
    Reply,
    WireServer,
    assert_backoff,
    json_reply,
    openai_completion,
    openai_error,
    openai_stream,
)
from pydantic import BaseModel, ConfigDict, Field

from aizac.errors import ModelError
from aizac.llm.router import ModelRouter
from aizac.settings import Settings

KEY = "sk-test-0123456789abcdef"


class Hero(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(max_length=40)
    age: int


def router_for(wire: WireServer, delays: list[float], **extra: Any) -> ModelRouter:
    settings = Settings(
        planner_model="openai:gpt-test",
        openai_api_key=KEY,
        openai_base_url=wire.url + "/v1",
        transient_retries=2,
        **extra,
    )
    return ModelRouter(settings, backoff_base=0.01, sleep=delays.append)


def test_plain_call_sends_key_and_records_usage(wire: WireServer) -> None:
    wire.script(json_reply(openai_completion("Once upon a time.")))
    router = router_for(wire, [])
    reply = router.model("planner").invoke("Begin.")
    assert reply.text == "Once upon a time."
    seen = wire.requests[0]
    assert seen.path == "/v1/chat/completions"
    assert seen.headers["authorization"] == f"Bearer {KEY}"
    assert seen.body["model"] == "gpt-test"
    assert seen.body["messages"] == [{"role": "user", "content": "Begin."}]
    [record] = router.usage.records
    assert (record.role, record.model) == ("planner", "openai:gpt-test")
    assert (record.prompt_tokens, record.completion_tokens, record.estimated) == (11, 7, False)


def test_cached_prompt_tokens_reach_the_usage_log(wire: WireServer) -> None:
    # OpenAI reports the part of the prompt its cache served (billed at a discount).
    body = openai_completion("Again.", prompt=2048, out=5)
    body["usage"]["prompt_tokens_details"] = {"cached_tokens": 1536}
    wire.script(json_reply(body), json_reply(openai_completion("Fresh.")))
    router = router_for(wire, [])
    router.model("planner").invoke("Begin.")
    router.model("planner").invoke("Begin.")
    first, second = router.usage.records
    assert (first.prompt_tokens, first.cached_tokens) == (2048, 1536)
    assert second.cached_tokens == 0  # none reported: none counted
    assert router.usage.totals().cached_tokens == 1536


def test_streaming_yields_pieces_and_usage(wire: WireServer) -> None:
    wire.script(openai_stream(["Hel", "lo", "!"]))
    router = router_for(wire, [])
    assert list(router.stream("planner", "Hi")) == ["Hel", "lo", "!"]
    assert wire.requests[0].body["stream"] is True
    [record] = router.usage.records
    assert (record.prompt_tokens, record.completion_tokens, record.estimated) == (5, 3, False)


@pytest.mark.parametrize("status", [429, 503])
def test_transient_status_is_retried_with_backoff(wire: WireServer, status: int) -> None:
    wire.script(openai_error(status), json_reply(openai_completion("ok")))
    delays: list[float] = []
    router = router_for(wire, delays)
    assert router.model("planner").invoke("x").text == "ok"
    assert len(wire.requests) == 2
    assert_backoff(delays, 0.01, 1)


def test_streaming_429_before_first_token_is_retried(wire: WireServer) -> None:
    wire.script(openai_error(429), openai_stream(["a", "b"]))
    delays: list[float] = []
    router = router_for(wire, delays)
    assert "".join(router.stream("planner", "x")) == "ab"
    assert_backoff(delays, 0.01, 1)


def test_persistent_5xx_becomes_model_error_after_retries(wire: WireServer) -> None:
    wire.script(openai_error(502), openai_error(503), openai_error(500))
    delays: list[float] = []
    router = router_for(wire, delays)
    with pytest.raises(ModelError) as info:
        router.model("planner").invoke("x")
    assert len(wire.requests) == 3
    assert_backoff(delays, 0.01, 2)  # exponential, with jitter
    message = str(info.value)
    assert "planner" in message and "openai:gpt-test" in message and "HTTP 500" in message
    assert "AIZAC_PLANNER_FALLBACK" in message
    assert KEY not in message


def test_auth_error_is_not_retried_and_hides_the_key(wire: WireServer) -> None:
    wire.script(json_reply({"error": {"message": f"Incorrect API key provided: {KEY}"}}, 401))
    router = router_for(wire, [])
    with pytest.raises(ModelError, match="key was rejected") as info:
        router.model("planner").invoke("x")
    assert len(wire.requests) == 1
    assert KEY not in str(info.value)


def test_malformed_json_body_is_a_clear_error(wire: WireServer) -> None:
    wire.script(Reply(200, b"{not json at all"))
    router = router_for(wire, [])
    with pytest.raises(ModelError, match="malformed"):
        router.model("planner").invoke("x")
    assert len(wire.requests) == 1  # not retried: the server is not speaking the API


def test_structured_output_asks_for_a_json_object_of_the_outline(wire: WireServer) -> None:
    wire.script(json_reply(openai_completion('{"name": "Ari", "age": 17}')))
    router = router_for(wire, [])
    hero = router.structured("planner", Hero, "Make a hero.")
    assert hero == Hero(name="Ari", age=17)
    body = wire.requests[0].body
    assert body["response_format"] == {"type": "json_object"}
    system = body["messages"][0]
    assert system["role"] == "system" and "JSON" in system["content"]  # json_object's rule
    assert system["content"].endswith("type Hero = {name: string≤40, age: integer}")


def test_structured_output_repairs_over_http(wire: WireServer) -> None:
    wire.script(
        json_reply(openai_completion('{"name": "Ari"}')),
        json_reply(openai_completion('{"name": "Ari", "age": 17}')),
    )
    router = router_for(wire, [])
    assert router.structured("planner", Hero, "Make a hero.").age == 17
    second = wire.requests[1].body["messages"]
    assert second[-2] == {"role": "assistant", "content": '{"name": "Ari"}'}
    assert "age" in second[-1]["content"] and "Field required" in second[-1]["content"]
    assert len(router.usage.records) == 2


def test_openai_compatible_spec_uses_its_own_url_and_never_the_openai_key(
    wire: WireServer,
) -> None:
    wire.script(json_reply(openai_completion("hi")))
    settings = Settings(
        writer_model=f"openai-compatible:{wire.url}/v1:qwen2.5:7b", openai_api_key=KEY
    )
    router = ModelRouter(settings)
    assert router.model("writer").invoke("x").text == "hi"
    seen = wire.requests[0]
    assert seen.path == "/v1/chat/completions"
    assert seen.body["model"] == "qwen2.5:7b"
    assert KEY not in seen.headers["authorization"]


def test_ollama_spec_goes_through_its_v1_endpoint(wire: WireServer) -> None:
    wire.script(openai_stream(["to", "ken"]))
    router = ModelRouter(Settings(extractor_model="ollama:qwen2.5:7b", ollama_base_url=wire.url))
    assert "".join(router.stream("extractor", "x")) == "token"
    assert wire.requests[0].path == "/v1/chat/completions"
    assert wire.requests[0].body["model"] == "qwen2.5:7b"


def test_malformed_stream_is_a_clear_error(wire: WireServer) -> None:
    wire.script(Reply(200, b"", "text/event-stream", chunks=[b"data: {oops\n\n"]))
    router = router_for(wire, [])
    with pytest.raises(ModelError, match="failed: the provider returned a malformed"):
        list(router.stream("planner", "x"))
    assert len(wire.requests) == 1


def test_persistent_503_while_streaming_becomes_model_error(wire: WireServer) -> None:
    wire.script(openai_error(503), openai_error(503), openai_error(503))
    delays: list[float] = []
    router = router_for(wire, delays)
    with pytest.raises(ModelError, match="failed after 3 attempts: HTTP 503"):
        list(router.stream("planner", "x"))
    assert_backoff(delays, 0.01, 2)


def test_async_streaming_and_structured(wire: WireServer) -> None:
    import asyncio

    wire.script(
        openai_stream(["a", "b"]), json_reply(openai_completion('{"name": "Bo", "age": 3}'))
    )
    router = router_for(wire, [])

    async def main() -> tuple[list[str], Hero]:
        pieces = [p async for p in router.astream("planner", "x")]
        return pieces, await router.astructured("planner", Hero, "y")

    pieces, hero = asyncio.run(main())
    assert pieces == ["a", "b"] and hero.age == 3
    assert [r.ok for r in router.usage.records] == [True, True]
