"""Test helpers for the model layer: a scripted HTTP server on 127.0.0.1 and wire payloads.

The server replays a queue of replies (status + JSON body, an SSE stream, NDJSON or raw bytes)
and records every request, so provider adapters are exercised over real HTTP in each provider's
own wire format without any network beyond loopback.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


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


@dataclass
class Seen:
    """A request the server received."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any


class WireServer:
    """A threaded HTTP server on 127.0.0.1 replaying scripted replies (FIFO, any path)."""

    def __init__(self) -> None:
        self.replies: list[Reply] = []
        self.requests: list[Seen] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else None
                except json.JSONDecodeError:
                    body = raw.decode(errors="replace")
                with server._lock:
                    server.requests.append(
                        Seen(
                            "POST", self.path, {k.lower(): v for k, v in self.headers.items()}, body
                        )
                    )
                    reply = (
                        server.replies.pop(0)
                        if server.replies
                        else Reply(500, b'{"error": {"message": "no scripted reply left"}}')
                    )
                self.send_response(reply.status)
                self.send_header("Content-Type", reply.content_type)
                for key, value in reply.headers.items():
                    self.send_header(key, value)
                if reply.chunks is None:
                    self.send_header("Content-Length", str(len(reply.body)))
                    self.end_headers()
                    self.wfile.write(reply.body)
                    return
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for piece in reply.chunks:
                    self.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
                    self.wfile.flush()
                self.wfile.write(b"0\r\n\r\n")

            do_GET = do_POST

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self._thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)

    def script(self, *replies: Reply) -> None:
        with self._lock:
            self.replies.extend(replies)

    def start(self) -> WireServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


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


def openai_stream(pieces: list[str], prompt: int = 5, out: int = 3) -> Reply:
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
    events.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
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
