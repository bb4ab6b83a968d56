"""Loopback HTTP machinery shared by the wire-format test servers.

A threaded HTTP/1.1 server on 127.0.0.1 (port 0) that keeps connections alive like a real API
(clients reuse pooled connections across calls), records every request, and offers reply
writers for JSON, streamed bodies (SSE / NDJSON, chunked or until close) and dropped connections.
``tests/llm/llm_wire.py`` (a scripted FIFO replay) and :mod:`acceptance.openai_server` (the
OpenAI wire format with faults) are built on it.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Seen:
    """A request the server received (headers lower-cased; body parsed as JSON when it is)."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    peer: str = ""  # client host:port: one per connection, so keep-alive reuse is visible


class Handler(BaseHTTPRequestHandler):
    """Reads and records a request, hands it to the server, and offers the reply writers."""

    protocol_version = "HTTP/1.1"  # keep-alive, as real APIs: clients reuse pooled connections
    server: _HTTPServer

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body: Any = json.loads(raw) if raw else None
        except json.JSONDecodeError:
            body = raw.decode(errors="replace")
        headers = {k.lower(): v for k, v in self.headers.items()}
        host, port = self.client_address[:2]
        peer = f"{host}:{port}"
        seen = Seen(self.command, self.path, headers, body, peer)
        owner = self.server.owner
        with owner.lock:
            owner.requests.append(seen)
        owner.handle(self, seen)

    do_GET = do_POST

    def send_body(
        self, status: int, body: bytes, content_type: str = "application/json", **headers: str
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        for key, value in headers.items():
            self.send_header(key.replace("_", "-"), value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def send_json(self, payload: Any, status: int = 200, **headers: str) -> None:
        self.send_body(status, json.dumps(payload, ensure_ascii=False).encode(), **headers)

    def send_chunks(
        self,
        pieces: list[bytes],
        content_type: str = "text/event-stream",
        *,
        complete: bool = True,
        chunked: bool = True,
        delay: float = 0.0,
        status: int = 200,
        **headers: str,
    ) -> None:
        """Stream ``pieces``. ``complete=False`` ends without the closing zero chunk (a dropped
        connection); ``chunked=False`` streams until the connection closes (a clean end)."""
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        for key, value in headers.items():
            self.send_header(key.replace("_", "-"), value)
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Connection", "close")
        self.end_headers()
        for piece in pieces:
            if delay:
                time.sleep(delay)
            self.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n" if chunked else piece)
            self.wfile.flush()
        if chunked and complete:
            self.wfile.write(b"0\r\n\r\n")
        if not (chunked and complete):
            self.close_connection = True


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    owner: LoopbackServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that drops its connection is normal here (cut streams, closed loops)."""
        import sys

        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class LoopbackServer:
    """A threaded HTTP server on 127.0.0.1 (port 0); subclasses implement :meth:`handle`."""

    def __init__(self) -> None:
        self.requests: list[Seen] = []
        self.lock = threading.Lock()
        self.httpd = _HTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.owner = self
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self._thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)

    def handle(self, handler: Handler, seen: Seen) -> None:
        raise NotImplementedError

    def start(self) -> LoopbackServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> Any:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
