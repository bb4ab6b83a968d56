"""The Gradio beat editor inside the server: only signed-in users reach it, each event runs as
the session's user (the project list a page loads is its user's), files of another user's
sandbox are never served, uploads over the limit are 413."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from tests.server.conftest import browser, signup


@pytest.fixture
def ui_app(make_app: Callable[..., FastAPI]) -> FastAPI:
    return make_app(ui=True, max_body_bytes=200_000)


@pytest.fixture
def ui_client(ui_app: FastAPI) -> Iterator[TestClient]:
    with browser(ui_app) as c:
        yield c


def _blocks(app: FastAPI) -> Any:
    mount = next(r for r in app.routes if getattr(r, "path", "") == "/ui")
    return mount.app.get_blocks()  # type: ignore[attr-defined]


def _run_event(c: TestClient, app: FastAPI, fn_name: str, data: list[Any]) -> Any:
    """Run the app's event ``fn_name`` through Gradio's queue over HTTP; its output."""
    blocks = _blocks(app)
    index = next(i for i, fn in blocks.fns.items() if fn.fn and fn.fn.__name__ == fn_name)
    joined = c.post("/ui/gradio_api/queue/join",
                    json={"data": data, "fn_index": index, "session_hash": "s1", "event_data": None,
                          "trigger_id": None})
    assert joined.status_code == 200, joined.text
    with c.stream("GET", "/ui/gradio_api/queue/data", params={"session_hash": "s1"}) as events:
        for line in events.iter_lines():
            if not line.startswith("data:"):
                continue
            message = json.loads(line[5:])
            if message.get("msg") == "process_completed":
                assert message.get("success"), message
                return message["output"]["data"]
    raise AssertionError("the event never completed")


def test_the_editor_needs_a_session(ui_client: TestClient) -> None:
    page = ui_client.get("/ui/", follow_redirects=False)
    assert page.status_code == 303 and page.headers["location"] == "/login"
    assert ui_client.get("/ui/config").status_code == 401
    assert ui_client.post("/ui/gradio_api/queue/join", json={}).status_code == 401
    assert ui_client.get("/", follow_redirects=False).headers["location"] == "/login"
    signup(ui_client, "mina")
    assert ui_client.get("/ui/config").status_code == 200
    assert ui_client.get("/", follow_redirects=False).headers["location"] == "/ui/"
    assert ui_client.get("/ui/").status_code == 200
    assert ui_client.get("/logout").status_code == 200  # a link only shows the button
    assert ui_client.get("/ui/config").status_code == 200
    assert ui_client.post("/logout", follow_redirects=False).status_code == 303
    assert ui_client.get("/ui/config").status_code == 401


def test_each_page_sees_its_own_users_projects(ui_app: FastAPI) -> None:
    with browser(ui_app) as mina, browser(ui_app) as jun:
        signup(mina, "mina")
        signup(jun, "jun")
        mina.post("/api/v1/projects", json={"name": "Novel", "keywords": "ring"})
        jun.post("/api/v1/projects", json={"name": "novel", "keywords": "sea"})
        seen_by_mina = _run_event(mina, ui_app, "on_load", [None])
        seen_by_jun = _run_event(jun, ui_app, "on_load", [None])
        assert [c[0] for c in seen_by_mina[0]["choices"]] == ["Novel"]
        assert [c[0] for c in seen_by_jun[0]["choices"]] == ["novel"]


def test_another_users_files_are_not_served(ui_app: FastAPI) -> None:
    with browser(ui_app) as mina, browser(ui_app) as jun:
        mina_id, jun_id = signup(mina, "mina"), signup(jun, "jun")
        root = Path(ui_app.state.aizac.sandboxes.users_root)
        secret = root / mina_id / "exports" / "Novel" / "secret.md"
        secret.parent.mkdir(parents=True)
        secret.write_text("MINA'S EXPORT", encoding="utf-8")
        assert mina.get(f"/ui/gradio_api/file={secret}").text == "MINA'S EXPORT"
        for path in (str(secret), f"{root}/{jun_id}/../{mina_id}/exports/Novel/secret.md",
                     str(secret).replace("/", "//")):
            reply = jun.get(f"/ui/gradio_api/file={path}")
            assert reply.status_code == 404 and "MINA" not in reply.text, path


def test_uploads_over_the_limit_are_413(ui_client: TestClient) -> None:
    signup(ui_client, "mina")
    reply = ui_client.post("/ui/gradio_api/upload",
                           files={"files": ("big.txt", b"x" * 300_000, "text/plain")})
    assert reply.status_code == 413
