"""HyperCLOVA X (CLOVA Studio) through langchain-naver against a 127.0.0.1 server.

CLOVA Studio serves an OpenAI-compatible chat-completions API under ``/v1/openai``; the server
here speaks that format and checks CLOVA's request-id header.
"""

from __future__ import annotations

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

from aizac.errors import ConfigError, ModelError
from aizac.llm.router import ModelRouter
from aizac.settings import Settings

KEY = "nv-test-0123456789abcdef"


class Line(BaseModel):
    model_config = ConfigDict(extra="forbid")
    speaker: str = Field(max_length=20)
    text: str = Field(max_length=200)


def router_for(wire: WireServer, delays: list[float]) -> ModelRouter:
    settings = Settings(
        writer_model="clova:HCX-005",
        clova_api_key=KEY,
        clova_base_url=wire.url,
        transient_retries=2,
    )
    return ModelRouter(settings, backoff_base=0.01, sleep=delays.append)


def test_plain_call_reaches_the_openai_compatible_endpoint(wire: WireServer) -> None:
    wire.script(json_reply(openai_completion("안녕하세요.", prompt=4, out=3)))
    router = router_for(wire, [])
    assert router.model("writer").invoke("인사해 줘").text == "안녕하세요."
    seen = wire.requests[0]
    assert seen.path == "/v1/openai/chat/completions"
    assert seen.headers["authorization"] == f"Bearer {KEY}"
    assert seen.headers["x-ncp-clovastudio-request-id"]
    assert seen.body["model"] == "HCX-005"
    [record] = router.usage.records
    assert (record.model, record.prompt_tokens, record.completion_tokens) == ("clova:HCX-005", 4, 3)


def test_streaming(wire: WireServer) -> None:
    wire.script(openai_stream(["옛날 ", "옛적에"]))
    router = router_for(wire, [])
    assert list(router.stream("writer", "x")) == ["옛날 ", "옛적에"]
    assert wire.requests[0].body["stream"] is True


@pytest.mark.parametrize("status", [429, 503])
def test_transient_errors_are_retried(wire: WireServer, status: int) -> None:
    wire.script(openai_error(status), json_reply(openai_completion("ok")))
    delays: list[float] = []
    assert router_for(wire, delays).model("writer").invoke("x").text == "ok"
    assert_backoff(delays, 0.01, 1)


def test_persistent_5xx_and_malformed_bodies_are_model_errors(wire: WireServer) -> None:
    wire.script(openai_error(500), openai_error(500), openai_error(500))
    router = router_for(wire, [])
    with pytest.raises(ModelError, match="clova:HCX-005 failed after 3 attempts: HTTP 500"):
        router.model("writer").invoke("x")
    wire.script(Reply(200, b"not json"))
    with pytest.raises(ModelError, match="malformed") as info:
        router.model("writer").invoke("x")
    assert KEY not in str(info.value)


def test_structured_output_uses_json_schema(wire: WireServer) -> None:
    wire.script(json_reply(openai_completion('{"speaker": "서연", "text": "가자."}')))
    router = router_for(wire, [])
    assert router.structured("writer", Line, "대사 하나").speaker == "서연"
    assert wire.requests[0].body["response_format"]["json_schema"]["name"] == "Line"


def test_missing_key_names_the_variable() -> None:
    router = ModelRouter(Settings(writer_model="clova:HCX-005"))
    with pytest.raises(ConfigError, match=r"CLOVASTUDIO_API_KEY is not set.*AIZAC_WRITER_MODEL"):
        router.model("writer")
