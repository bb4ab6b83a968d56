"""Test helpers for the model layer: a scripted HTTP server on 127.0.0.1 and wire payloads.

The server (built on :mod:`acceptance.loopback`, shared with the OpenAI acceptance server)
replays a queue of replies (status + JSON body, an SSE stream, NDJSON or raw bytes)
and records every request, so provider adapters are exercised over real HTTP in each provider's
own wire format without any network beyond loopback.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from acceptance.loopback import Handler, LoopbackServer, Seen

__all__ = ["Reply", "Seen", "WireServer", "assert_backoff"]


@dataclass
class Reply:
    """One scripted reply."""

    status: int = 200
    body: bytes = b""
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)
    chunks: list[bytes] | None = None  # streamed pieces (SSE / NDJSON)


def json_reply(payload: Any, status: int = 200, **headers: str) -> Reply:
    return Reply(status, json.dumps(payload).encode(), headers=dict(headers))


def sse_reply(events: list[Any], *, named: bool = False, done: bool = False) -> Reply:
    """Server-sent events; ``named`` adds ``event: <type>`` lines (Anthropic style)."""
    chunks = []
    for event in events:
        head = f"event: {event['type']}\n" if named else ""
        chunks.append(f"{head}data: {json.dumps(event)}\n\n".encode())
    if done:
        chunks.append(b"data: [DONE]\n\n")
    return Reply(200, b"", "text/event-stream", chunks=chunks)


class WireServer(LoopbackServer):
    """Replays scripted replies in order (FIFO, any path) on the shared loopback machinery."""

    def __init__(self) -> None:
        super().__init__()
        self.replies: list[Reply] = []

    def script(self, *replies: Reply) -> None:
        with self.lock:
            self.replies.extend(replies)

    def handle(self, handler: Handler, seen: Seen) -> None:
        with self.lock:
            reply = (
                self.replies.pop(0)
                if self.replies
                else Reply(500, b'{"error": {"message": "no scripted reply left"}}')
            )
        if reply.chunks is None:
            handler.send_body(reply.status, reply.body, reply.content_type, **reply.headers)
        else:
            handler.send_chunks(
                reply.chunks, reply.content_type, status=reply.status, **reply.headers
            )

    def start(self) -> WireServer:
        super().start()
        return self


# OpenAI chat-completions payloads (also CLOVA Studio's /v1/openai and Ollama's /v1).
def openai_completion(content: str, prompt: int = 11, out: int = 7) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1700000000,
        "model": "gpt-test",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": prompt, "completion_tokens": out, "total_tokens": prompt + out},
    }


def openai_stream(pieces: list[str], prompt: int = 5, out: int = 3, finish: str = "stop") -> Reply:
    base = {
        "id": "chatcmpl-2",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "gpt-test",
    }
    events: list[Any] = [
        {**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}
    ]
    events += [
        {**base, "choices": [{"index": 0, "delta": {"content": p}, "finish_reason": None}]}
        for p in pieces
    ]
    events.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
    events.append(
        {
            **base,
            "choices": [],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": out,
                "total_tokens": prompt + out,
            },
        }
    )
    return sse_reply(events, done=True)


def openai_error(status: int, message: str = "try later") -> Reply:
    return json_reply({"error": {"message": message, "type": "server_error"}}, status)


def assert_backoff(delays: list[float], base: float, count: int) -> None:
    """Exponential backoff with up to half a base of jitter: base * 2**n + [0, base / 2]."""
    assert len(delays) == count
    for n, delay in enumerate(delays):
        assert base * 2**n <= delay <= base * 2**n + base / 2
