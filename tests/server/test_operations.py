"""What an operator watches: ``/healthz``, ``/readyz`` (and what it says while something is not
ready), the JSON log lines with request and user ids."""

from __future__ import annotations

import json
import logging
import socket
import time
from collections.abc import Callable

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from aizac.server.logs import JsonFormatter
from tests.server.conftest import browser, signup

pytestmark = pytest.mark.timeout(600)


def _ready(c: TestClient, within: float = 60.0) -> dict[str, object]:
    deadline = time.monotonic() + within
    while True:
        reply = c.get("/readyz")
        if reply.status_code == 200 or time.monotonic() > deadline:
            return {**reply.json(), "http": reply.status_code}
        time.sleep(0.1)


def test_health_and_readiness(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
    ready = _ready(client)
    assert ready["http"] == 200 and ready["status"] == "ready"
    assert ready["checks"] == {"data_dir": "ok", "accounts": "ok", "memory": "ok",
                               "trope_index": "ok"}


def test_not_ready_while_the_memory_server_is_down(make_app: Callable[..., FastAPI],
                                                  server_settings: object) -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app = make_app()
    app.state.aizac.sandboxes.settings = app.state.aizac.sandboxes.settings.model_copy(
        update={"chroma_host": "127.0.0.1", "chroma_port": port})
    with TestClient(app) as c:
        reply = c.get("/readyz")
        assert reply.status_code == 503 and int(reply.headers["retry-after"]) >= 1
        body = reply.json()
        assert set(body) == {"code", "message", "hint"}
        assert body["code"] == "error.server.not_ready" and "memory" in body["message"]
        assert c.get("/healthz").status_code == 200  # the process itself is fine


def test_log_lines_are_json_with_request_and_user(
        app: FastAPI, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    with browser(app) as c:
        user_id = signup(c, "mina")
        reply = c.get("/api/v1/projects", headers={"X-Request-ID": "req-from-proxy-1"})
    assert reply.headers["x-request-id"] == "req-from-proxy-1"
    formatter = JsonFormatter()
    lines = [json.loads(formatter.format(r)) for r in caplog.records
             if r.name == "aizac.server.access"]
    mine = [x for x in lines if x["request_id"] == "req-from-proxy-1"]
    assert mine and mine[0]["user_id"] == user_id and mine[0]["status"] == 200
    assert mine[0]["path"] == "/api/v1/projects" and mine[0]["method"] == "GET"
    assert {"ts", "level", "logger", "event", "ms"} <= set(mine[0])
