"""The loopback OpenAI-compatible server, driven by the real ``openai`` SDK and ``ChatOpenAI``."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import openai
import pytest
from langchain_openai import ChatOpenAI, OpenAIEmbeddings
from pydantic import BaseModel, ConfigDict

from acceptance.openai_server import (
    ChatReply,
    OpenAIServer,
    cut,
    malformed,
    rate_limited,
    slow,
    truncated,
    unavailable,
)


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer() as started:
        yield started


class Hero(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    age: int


def client(server: OpenAIServer) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.base_url, api_key="sk-test", max_retries=0)


def chat(server: OpenAIServer, **kwargs: object) -> ChatOpenAI:
    return ChatOpenAI(
        model="test-model",
        base_url=server.base_url,
        api_key="sk-test",  # type: ignore[arg-type]
        max_retries=0,
        **kwargs,  # type: ignore[arg-type]
    )


def test_plain_completion_and_recorded_request(server: OpenAIServer) -> None:
    server.script("첫 문장.")
    reply = chat(server).invoke("시작해.")
    assert reply.text == "첫 문장."
    assert reply.response_metadata["finish_reason"] == "stop"
    assert reply.usage_metadata and reply.usage_metadata["output_tokens"] >= 1
    [seen] = server.chat_requests
    assert seen.headers["authorization"] == "Bearer sk-test"
    assert seen.body["messages"] == [{"role": "user", "content": "시작해."}]


def test_streaming_chunks_finish_reason_usage_and_done(server: OpenAIServer) -> None:
    server.script("Once upon a time, far away.")
    pieces = list(chat(server, stream_usage=True).stream("Go"))
    assert "".join(p.text for p in pieces) == "Once upon a time, far away."
    assert len([p for p in pieces if p.text]) > 2  # really streamed in pieces
    finish = [p.response_metadata.get("finish_reason") for p in pieces]
    assert "stop" in finish
    assert any(p.usage_metadata for p in pieces)
    assert server.chat_requests[0].body["stream_options"] == {"include_usage": True}


def test_raw_sse_ends_with_done(server: OpenAIServer) -> None:
    import httpx

    server.script("abc")
    body = {"model": "m", "messages": [{"role": "user", "content": "x"}], "stream": True}
    raw = httpx.post(server.base_url + "/chat/completions", json=body).text
    events = [line[6:] for line in raw.splitlines() if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    assert json.loads(events[-2])["choices"][0]["finish_reason"] == "stop"


def test_json_schema_request_gets_json_content(server: OpenAIServer) -> None:
    server.script({"name": "진도준", "age": 19})
    hero = chat(server).with_structured_output(Hero, method="json_schema").invoke("x")
    assert hero == Hero(name="진도준", age=19)
    assert server.chat_requests[0].body["response_format"]["type"] == "json_schema"


def test_default_responder_fills_the_requested_schema(server: OpenAIServer) -> None:
    hero = chat(server).with_structured_output(Hero, method="json_schema").invoke("x")
    assert isinstance(hero, Hero)


@pytest.mark.parametrize("stream", [False, True])
def test_forced_tool_gets_a_tool_call(server: OpenAIServer, stream: bool) -> None:
    server.script({"name": "Ari", "age": 3})
    model = chat(server).bind_tools([Hero], tool_choice="Hero")
    if stream:
        message = None
        for part in model.stream("x"):
            message = part if message is None else message + part
    else:
        message = model.invoke("x")
    assert message is not None
    assert message.tool_calls[0]["name"] == "Hero"  # type: ignore[attr-defined]
    assert message.tool_calls[0]["args"] == {"name": "Ari", "age": 3}  # type: ignore[attr-defined]
    assert server.chat_requests[0].body["tool_choice"]["function"]["name"] == "Hero"


def test_callable_answers_see_the_request(server: OpenAIServer) -> None:
    server.script(lambda body: body["messages"][-1]["content"].upper())
    assert chat(server).invoke("echo").text == "ECHO"


def test_rate_limit_carries_retry_after_and_keeps_the_answer(server: OpenAIServer) -> None:
    server.script("after the wait")
    server.fault(rate_limited(retry_after=2))
    with pytest.raises(openai.RateLimitError) as info:
        client(server).chat.completions.create(
            model="m", messages=[{"role": "user", "content": "x"}]
        )
    assert info.value.response.headers["retry-after"] == "2"
    assert chat(server).invoke("x").text == "after the wait"


def test_unavailable_and_malformed(server: OpenAIServer) -> None:
    server.fault(unavailable(), malformed())
    with pytest.raises(openai.InternalServerError):
        chat(server).invoke("x")
    with pytest.raises(Exception, match=r"Expecting|JSON|json"):
        chat(server).invoke("x")


def test_cut_stream_has_no_finish_reason_and_no_done(server: OpenAIServer) -> None:
    server.script("The quick brown fox jumps over the lazy dog.")
    server.fault(cut(after=2))
    pieces = list(chat(server).stream("x"))
    text = "".join(p.text for p in pieces)
    assert text == "The quick brown "
    assert not any(p.response_metadata.get("finish_reason") for p in pieces)
    # the cut did not consume the answer: the next call gets all of it
    assert chat(server).invoke("x").text.endswith("lazy dog.")


def test_abrupt_cut_is_a_transport_error(server: OpenAIServer) -> None:
    server.script("The quick brown fox jumps over the lazy dog.")
    server.fault(cut(after=1, abrupt=True))
    seen: list[str] = []
    with pytest.raises(openai.APIConnectionError):
        for part in chat(server).stream("x"):
            seen.append(part.text)
    assert "".join(seen) == "The quic"


@pytest.mark.parametrize("stream", [False, True])
def test_truncated_reply_says_length(server: OpenAIServer, stream: bool) -> None:
    server.script(ChatReply(content="0123456789abcdef"))
    server.fault(truncated())
    model = chat(server)
    if stream:
        parts = list(model.stream("x"))
        text = "".join(p.text for p in parts)
        finish = [p.response_metadata.get("finish_reason") for p in parts]
        assert "length" in finish
    else:
        reply = model.invoke("x")
        text = reply.text
        assert reply.response_metadata["finish_reason"] == "length"
    assert text == "01234567"


def test_latency(server: OpenAIServer) -> None:
    server.fault(slow(0.3))
    start = time.monotonic()
    chat(server).invoke("x")
    assert time.monotonic() - start >= 0.3


def test_embeddings_float_and_base64_and_models(server: OpenAIServer) -> None:
    sdk = client(server)
    floats = sdk.embeddings.create(model="e", input=["가", "나"], encoding_format="float")
    b64 = sdk.embeddings.create(model="e", input=["가", "나"])  # the SDK asks for base64
    for plain, packed in zip(floats.data, b64.data, strict=True):
        assert plain.embedding == pytest.approx(packed.embedding, abs=1e-6)
    assert len(floats.data[0].embedding) == server.dims
    assert floats.data[0].embedding != floats.data[1].embedding
    lc = OpenAIEmbeddings(
        model="e",
        base_url=server.base_url,
        api_key="sk-test",  # type: ignore[arg-type]
        check_embedding_ctx_length=False,
    )
    assert lc.embed_documents(["가"])[0] == pytest.approx(floats.data[0].embedding, abs=1e-6)
    assert [m.id for m in sdk.models.list()] == ["test-model"]


def test_connections_are_kept_alive(server: OpenAIServer) -> None:
    """Clients reuse pooled connections across calls, as with a real API."""
    model = chat(server)
    for _ in range(3):
        model.invoke("x")
    assert len({seen.peer for seen in server.chat_requests}) == 1
