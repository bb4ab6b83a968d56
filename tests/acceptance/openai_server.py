"""A loopback OpenAI-compatible server for tests that run aizac as a user would.

:class:`LoopbackServer` is the shared machinery (a threaded HTTP/1.1 server on 127.0.0.1, port 0,
keep-alive like a real API, every request recorded); ``tests/llm/llm_wire.py`` builds its
scripted-replay server on it. :class:`OpenAIServer` speaks the real wire format of

- ``POST /v1/chat/completions``: JSON, or SSE when ``"stream": true`` (role chunk, content or
  tool-call chunks, a chunk carrying ``finish_reason``, a usage chunk when
  ``stream_options.include_usage`` asks for it, then ``data: [DONE]``);
- ``POST /v1/embeddings``: deterministic vectors (``float`` lists, or ``base64`` as the SDK asks);
- ``GET /v1/models``.

What the "model" says is scripted per call: a queue (:meth:`OpenAIServer.script`) of answers,
each a string (prose), a JSON value (structured output: sent as content for ``response_format``
requests, as a tool call when the request forces a tool), a :class:`ChatReply`, or a callable
``(request_json) -> answer``; when the queue is empty the ``responder`` callable answers (by
default: a minimal valid instance of the requested JSON schema, else a short sentence).

Faults are switched on per call (:meth:`OpenAIServer.fault`), consumed in order by the next
request to their path, and never consume a scripted answer (a retry gets the same answer):
:func:`rate_limited` (429 + ``Retry-After``), :func:`unavailable` (503), :func:`malformed`,
:func:`cut` (stream ends without ``finish_reason`` and without ``[DONE]``; ``abrupt=True`` drops
the connection mid chunked body), :func:`truncated` (``finish_reason: "length"``),
:func:`slow` (added latency).

Usage::

    with OpenAIServer() as server:
        server.script({"name": "Ari"}, "Once upon a time.")
        server.fault(rate_limited(retry_after=0))
        spec = f"openai-compatible:{server.base_url}:{server.model}"
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import struct
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from acceptance.loopback import Handler, LoopbackServer, Seen
from acceptance.outline import outline_schema

__all__ = [
    "CHAT",
    "EMBEDDINGS",
    "MODELS",
    "ChatReply",
    "Fault",
    "OpenAIServer",
    "Seen",
    "cut",
    "malformed",
    "openai_server",
    "rate_limited",
    "slow",
    "truncated",
    "unavailable",
]

CHAT = "/v1/chat/completions"
EMBEDDINGS = "/v1/embeddings"
MODELS = "/v1/models"


# ---------------------------------------------------------------------------------- scripting
@dataclass
class ChatReply:
    """One answer. ``value`` (a JSON value) becomes JSON content, or a tool call's arguments when
    the request forces a tool or ``tool`` names one (a call the model chose); ``content`` is
    sent as it stands."""

    content: str | None = None
    value: Any = None
    finish_reason: str = "stop"
    tool: str | None = None


@dataclass
class Fault:
    """What goes wrong with one request (see the module docstring for the helpers)."""

    path: str = CHAT
    status: int | None = None
    retry_after: float | None = None
    malformed: bool = False
    cut_after: int | None = None  # content chunks sent before the stream stops
    abrupt: bool = False  # cut: drop the connection inside the chunked body (a transport error)
    length: bool = False  # finish_reason "length" after about half the answer
    delay: float = 0.0


def rate_limited(retry_after: float | None = 1, path: str = CHAT) -> Fault:
    return Fault(path, status=429, retry_after=retry_after)


def unavailable(status: int = 503, path: str = CHAT) -> Fault:
    return Fault(path, status=status)


def malformed(path: str = CHAT) -> Fault:
    return Fault(path, malformed=True)


def cut(after: int = 2, *, abrupt: bool = False) -> Fault:
    return Fault(CHAT, cut_after=after, abrupt=abrupt)


def truncated() -> Fault:
    return Fault(CHAT, length=True)


def slow(seconds: float, path: str = CHAT) -> Fault:
    return Fault(path, delay=seconds)


Answer = Any  # str | JSON value | ChatReply | Callable[[dict], Answer]


def example_for(schema: dict[str, Any], root: dict[str, Any] | None = None) -> Any:
    """A small value that validates against ``schema`` (enough for default answers)."""
    root = root if root is not None else schema
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return example_for(root.get("$defs", {}).get(name, {}), root)
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            options = [s for s in schema[key] if s.get("type") != "null"] or schema[key]
            return example_for(options[0], root)
    if "enum" in schema:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    if "default" in schema:
        return schema["default"]
    kind = schema.get("type", "object")
    if kind == "object":
        props = schema.get("properties", {})
        return {k: example_for(props[k], root) for k in schema.get("required", props)}
    if kind == "array":
        return [example_for(schema.get("items", {}), root)] * max(1, schema.get("minItems", 1))
    if kind == "string":
        return "가" * max(2, schema.get("minLength", 0))
    if kind in ("integer", "number"):
        return max(1, schema.get("minimum", 1))
    if kind == "boolean":
        return True
    return None


def requested_schema(body: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON schema a chat request asks for (response_format or a forced tool), if any."""
    fmt = body.get("response_format") or {}
    if fmt.get("type") == "json_schema":
        schema: dict[str, Any] = fmt["json_schema"].get("schema", {})
        return schema
    if fmt.get("type") == "json_object" and "schema" in fmt:
        return dict(fmt["schema"])
    outlined = outline_schema(body)
    if outlined is not None:
        return outlined
    tool = forced_tool(body)
    if tool is not None:
        for item in body.get("tools", []):
            if item.get("function", {}).get("name") == tool:
                return dict(item["function"].get("parameters", {}))
    return None


def forced_tool(body: dict[str, Any]) -> str | None:
    """The function name a request forces (``tool_choice`` naming one, or ``required``)."""
    choice, tools = body.get("tool_choice"), body.get("tools") or []
    if isinstance(choice, dict):
        return str(choice.get("function", {}).get("name"))
    if choice in ("required", "any") and tools:
        return str(tools[0]["function"]["name"])
    return None


def default_responder(body: dict[str, Any]) -> Answer:
    """A minimal valid instance of the requested schema, else a short sentence."""
    schema = requested_schema(body)
    if schema is not None:
        return example_for(schema)
    return "그는 조용히 문을 열었다. The door opened."


def prompt_text(body: dict[str, Any]) -> str:
    """Every message's text of a chat request, joined (content parts flattened)."""
    parts = []
    for message in body.get("messages", []):
        content = message.get("content")
        if isinstance(content, list):
            content = "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
        parts.append(str(content or ""))
    return "\n".join(parts)


def tokens(text: str) -> int:
    """A rough token count (4 characters a token), as usage figures."""
    return max(1, len(text) // 4)


def _normalise(answer: Answer, body: dict[str, Any]) -> ChatReply:
    while callable(answer):
        answer = answer(body)
    if isinstance(answer, ChatReply):
        return answer
    if isinstance(answer, str):
        return ChatReply(content=answer)
    return ChatReply(value=answer)


def _embedding(text: str, dims: int) -> list[float]:
    digest = hashlib.sha256(text.encode()).digest()
    raw = [(digest[i % len(digest)] + i) % 251 / 125.0 - 1.0 for i in range(dims)]
    norm = math.sqrt(sum(v * v for v in raw)) or 1.0
    return [v / norm for v in raw]


class OpenAIServer(LoopbackServer):
    """An OpenAI-compatible API on 127.0.0.1 with scripted answers and switchable faults.

    Args:
        responder: answers chat calls when the script queue is empty.
        model: the model id it lists (any id is accepted in requests).
        dims: embedding size.
        chunk_chars: characters per streamed content chunk.
    """

    def __init__(
        self,
        responder: Callable[[dict[str, Any]], Answer] = default_responder,
        *,
        model: str = "test-model",
        dims: int = 16,
        chunk_chars: int = 8,
    ) -> None:
        super().__init__()
        self.responder = responder
        self.model = model
        self.dims = dims
        self.chunk_chars = chunk_chars
        self.base_url = self.url + "/v1"
        self.answers: deque[Answer] = deque()
        self.faults: list[Fault] = []
        self.cached_tokens: Callable[[dict[str, Any]], int] | None = None
        """When set: the prompt tokens of a request the provider's cache served, reported as
        OpenAI does (``usage.prompt_tokens_details.cached_tokens``)."""

    # ----------------------------------------------------------------------------- scripting
    def script(self, *answers: Answer) -> None:
        """Queue answers for the next chat calls (faults do not consume them)."""
        with self.lock:
            self.answers.extend(answers)

    def fault(self, *faults: Fault) -> None:
        """Queue faults; each hits the next request to its path."""
        with self.lock:
            self.faults.extend(faults)

    def requests_to(self, path: str) -> list[Seen]:
        with self.lock:
            return [r for r in self.requests if r.path == path]

    @property
    def chat_requests(self) -> list[Seen]:
        return self.requests_to(CHAT)

    def _take_fault(self, path: str) -> Fault | None:
        with self.lock:
            for i, fault in enumerate(self.faults):
                if fault.path == path:
                    return self.faults.pop(i)
        return None

    def _answer(self, body: dict[str, Any], consume: bool) -> ChatReply:
        with self.lock:
            queued = bool(self.answers)
            answer = (self.answers.popleft() if consume else self.answers[0]) if queued else None
        return _normalise(answer if queued else self.responder, body)

    # ----------------------------------------------------------------------------- serving
    def handle(self, handler: Handler, seen: Seen) -> None:
        path = seen.path.split("?", 1)[0]
        fault = self._take_fault(path) or Fault(path)
        if fault.delay:
            time.sleep(fault.delay)
        if fault.status is not None:
            headers = {}
            if fault.retry_after is not None:
                headers["Retry-After"] = f"{fault.retry_after:g}"
            kind = "rate_limit_exceeded" if fault.status == 429 else "server_error"
            error = {"message": f"scripted HTTP {fault.status}", "type": kind, "code": kind}
            handler.send_json({"error": error}, fault.status, **headers)
            return
        if path == MODELS:
            handler.send_json(
                {
                    "object": "list",
                    "data": [{"id": self.model, "object": "model", "created": 0, "owned_by": "t"}],
                }
            )
        elif path == EMBEDDINGS and isinstance(seen.body, dict):
            self._embeddings(handler, seen.body, fault)
        elif path == CHAT and isinstance(seen.body, dict):
            self._chat(handler, seen.body, fault)
        else:
            error = {"message": f"no route {seen.method} {path}", "type": "invalid_request_error"}
            handler.send_json({"error": error}, 404)

    def _embeddings(self, handler: Handler, body: dict[str, Any], fault: Fault) -> None:
        if fault.malformed:
            handler.send_body(200, b'{"object": "list", "data": [')
            return
        raw = body.get("input")
        items = [raw] if isinstance(raw, str) or (raw and isinstance(raw[0], int)) else raw
        data = []
        for i, item in enumerate(items or []):
            vector = _embedding(item if isinstance(item, str) else repr(item), self.dims)
            encoded: Any = vector
            if body.get("encoding_format") == "base64":
                encoded = base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode()
            data.append({"object": "embedding", "index": i, "embedding": encoded})
        used = sum(tokens(str(t)) for t in items or [])
        handler.send_json(
            {
                "object": "list",
                "data": data,
                "model": body.get("model", self.model),
                "usage": {"prompt_tokens": used, "total_tokens": used},
            }
        )

    def _chat(self, handler: Handler, body: dict[str, Any], fault: Fault) -> None:
        streaming = bool(body.get("stream"))
        if fault.malformed:
            if streaming:
                handler.send_chunks([b"data: {oops\n\n"])
            else:
                handler.send_body(200, b"{not json at all")
            return
        spent = fault.cut_after is None and not fault.length
        reply = self._answer(body, consume=spent)
        turn = _Turn(body, reply, self.model)
        if self.cached_tokens is not None:
            turn.cached = self.cached_tokens(body)
        if fault.length:
            turn.text = turn.text[: max(1, len(turn.text) // 2)]
            turn.finish = "length"
        if streaming:
            self._stream(handler, body, turn, fault)
        else:
            handler.send_json(turn.completion())

    def _stream(self, handler: Handler, body: dict[str, Any], turn: _Turn, fault: Fault) -> None:
        pieces = [
            turn.text[i : i + self.chunk_chars] for i in range(0, len(turn.text), self.chunk_chars)
        ]
        events = [turn.chunk(turn.opening())]
        events += [turn.chunk(turn.delta(p)) for p in pieces]
        if fault.cut_after is not None:
            kept = [_sse(e) for e in events[: fault.cut_after + 1]]
            handler.send_chunks(kept, complete=not fault.abrupt, chunked=fault.abrupt)
            return
        events.append(turn.chunk({}, finish=turn.finish))
        if (body.get("stream_options") or {}).get("include_usage"):
            events.append({**turn.chunk({}), "choices": [], "usage": turn.usage()})
        handler.send_chunks([*map(_sse, events), b"data: [DONE]\n\n"])


def _sse(event: dict[str, Any]) -> bytes:
    return f"data: {json.dumps(event, ensure_ascii=False)}\n\n".encode()


class _Turn:
    """One chat answer laid out in the OpenAI wire format."""

    def __init__(self, body: dict[str, Any], reply: ChatReply, model: str) -> None:
        self.body = body
        self.model = str(body.get("model") or model)
        self.tool = reply.tool or (
            forced_tool(body) if reply.value is not None or reply.content else None)
        if reply.content is not None:
            self.text = reply.content
        else:
            self.text = json.dumps(reply.value, ensure_ascii=False)
        # A forced named function ends with "stop" on the real API; "required" with "tool_calls".
        forced_by_name = isinstance(body.get("tool_choice"), dict)
        default = "stop" if self.tool is None or forced_by_name else "tool_calls"
        self.finish = reply.finish_reason if reply.finish_reason != "stop" else default
        self.id = "chatcmpl-" + hashlib.sha1(json.dumps(body).encode()).hexdigest()[:12]
        self.cached: int | None = None

    def usage(self) -> dict[str, Any]:
        prompt = sum(tokens(str(m.get("content") or "")) for m in self.body.get("messages", []))
        out = tokens(self.text)
        usage: dict[str, Any] = {"prompt_tokens": prompt, "completion_tokens": out,
                                 "total_tokens": prompt + out}
        if self.cached is not None:
            usage["prompt_tokens_details"] = {"cached_tokens": min(self.cached, prompt)}
        return usage

    def _tool_call(self, arguments: str, *, first: bool) -> dict[str, Any]:
        call: dict[str, Any] = {"index": 0, "function": {"arguments": arguments}}
        if first:
            call.update(id="call_" + self.id[-8:], type="function")
            call["function"]["name"] = self.tool
        return call

    def completion(self) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": self.text, "refusal": None}
        if self.tool is not None:
            call = self._tool_call(self.text, first=True)
            del call["index"]
            message.update(content=None, tool_calls=[call])
        return {
            "id": self.id,
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.model,
            "choices": [
                {"index": 0, "message": message, "logprobs": None, "finish_reason": self.finish}
            ],
            "usage": self.usage(),
        }

    def opening(self) -> dict[str, Any]:
        if self.tool is None:
            return {"role": "assistant", "content": ""}
        return {
            "role": "assistant",
            "content": None,
            "tool_calls": [self._tool_call("", first=True)],
        }

    def delta(self, piece: str) -> dict[str, Any]:
        if self.tool is None:
            return {"content": piece}
        return {"tool_calls": [self._tool_call(piece, first=False)]}

    def chunk(self, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": self.model,
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        }


@pytest.fixture
def openai_server() -> Iterator[OpenAIServer]:
    """A started :class:`OpenAIServer` (import this fixture into a conftest to share it)."""
    server = OpenAIServer()
    server.start()
    yield server
    server.stop()
