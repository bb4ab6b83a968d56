"""Gradio's own routes under ``/ui`` as an attacker would use them: another user's files by
any form of the file route, the export links of the web app, uploads, and another page's
event stream by its session hash. Every event runs through Gradio's real queue over HTTP."""

from __future__ import annotations

import json
import os
import urllib.parse
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from tests.server.conftest import browser, signup, write_one_beat
from tests.server.test_api import sse_events

pytestmark = pytest.mark.timeout(600)
SECRET = "MINA PROSE: the ring sleeps under the well."


@pytest.fixture
def ui_app(make_app: Callable[..., FastAPI]) -> FastAPI:
    return make_app(ui=True)


def _blocks(app: FastAPI) -> Any:
    return app.state.aizac_blocks if hasattr(app.state, "aizac_blocks") else next(
        r for r in app.routes if getattr(r, "path", "") == "/ui").app.get_blocks()


def _index(app: FastAPI, *, output: str | None = None, name: str | None = None) -> int:
    """The event whose outputs include the component ``output`` (or whose function is
    ``name``)."""
    for i, fn in _blocks(app).fns.items():
        if name is not None and fn.fn is not None and fn.fn.__name__ == name:
            return int(i)
        if output is not None and any(getattr(c, "elem_id", None) == output for c in fn.outputs):
            return int(i)
    raise AssertionError(f"no event for {output or name}")


def _join(c: TestClient, index: int, data: list[Any], session_hash: str) -> str:
    joined = c.post("/ui/gradio_api/queue/join", json={
        "data": data, "fn_index": index, "session_hash": session_hash, "event_data": None,
        "trigger_id": None})
    assert joined.status_code == 200, joined.text
    return str(joined.json()["event_id"])


def _completed(c: TestClient, session_hash: str) -> list[dict[str, Any]]:
    """Every message of the session's stream until its events complete."""
    seen = []
    with c.stream("GET", "/ui/gradio_api/queue/data",
                  params={"session_hash": session_hash}) as events:
        assert events.status_code == 200
        for line in events.iter_lines():
            if line.startswith("data:"):
                message = json.loads(line[5:])
                seen.append(message)
                if message.get("msg") in ("close_stream", "unexpected_error"):
                    break
    return seen


def _output(messages: list[dict[str, Any]]) -> Any:
    done = [m for m in messages if m.get("msg") == "process_completed"]
    assert done and done[-1].get("success"), messages
    return done[-1]["output"]["data"]


def _mina_with_an_export(app: FastAPI) -> tuple[TestClient, str, Path]:
    """Mina, a beat with prose, and an export made by the web app's own Export event; the
    export's link as the page receives it."""
    mina = browser(app)
    mina.__enter__()
    signup(mina, "mina")
    beat = write_one_beat(mina, "Novel")
    sse_events(mina.post(f"/api/v1/projects/Novel/beats/{beat['id']}/prose").text)
    mina.put(f"/api/v1/projects/Novel/beats/{beat['id']}/prose", json={"text": SECRET})
    _join(mina, _index(app, name="on_load"), [None], "mina-page")  # loads (no project kept yet)
    _output(_completed(mina, "mina-page"))
    index = _index(app, output="aizac-exported")
    _join(mina, index, ["Novel", "md", 0, 0, "mina-secret"], "mina-page")
    data = _output(_completed(mina, "mina-page"))
    file = data[0][0] if isinstance(data[0], list) else data[0]
    return mina, urllib.parse.urlsplit(file["url"]).path, Path(file["path"])


def test_export_links_point_into_the_owners_sandbox_and_only_the_owner_reads_them(
        ui_app: FastAPI) -> None:
    mina, link, path = _mina_with_an_export(ui_app)
    root = Path(ui_app.state.aizac.sandboxes.users_root)
    mina_id = mina.get("/api/v1/auth/me").json()["id"]
    assert path.resolve().is_relative_to(root / mina_id / "exports"), path  # not Gradio's cache
    got = mina.get(link)
    assert got.status_code == 200 and SECRET in got.text
    assert got.headers["content-disposition"].startswith("attachment")
    with browser(ui_app) as jun:
        signup(jun, "jun")
        refused = jun.get(link)
        assert refused.status_code == 404 and SECRET not in refused.text
        assert refused.json()["code"] == "error.server.file_not_found"
    mina.__exit__(None, None, None)


def test_no_form_of_the_file_route_serves_another_users_files(ui_app: FastAPI) -> None:
    """The issue's attack: ``/ui/gradio_api/file/<absolute path>`` served user A's
    ``project.sqlite3`` and ``chroma.sqlite3`` to user B."""
    mina, _, export = _mina_with_an_export(ui_app)
    root = Path(ui_app.state.aizac.sandboxes.users_root)
    mina_id = mina.get("/api/v1/auth/me").json()["id"]
    project = root / mina_id / "projects" / "Novel"
    # On PostgreSQL (AIZAC_DATABASE_URL) the project's rows and the accounts are no files: what
    # is left on disk is the memory and the export.
    accounts = ui_app.state.aizac.accounts.path
    targets = [project / "memory" / "chroma.sqlite3", export,
               *([project / "project.sqlite3", Path(accounts)] if accounts is not None else [])]
    assert all(t.is_file() for t in targets)
    with browser(ui_app) as jun:
        jun_id = signup(jun, "jun")
        own = root / jun_id / "exports"
        own.mkdir(parents=True, exist_ok=True)
        os.symlink(export, own / "link-to-mina.md")  # a symlink in Jun's own folder
        attempts = 0
        for target in [*targets, own / "link-to-mina.md"]:
            text = str(target)
            for path in (f"/ui/gradio_api/file/{text}", f"/ui/gradio_api/file={text}",
                         f"/ui/gradio_api/file={urllib.parse.quote(text)}",
                         f"/ui/gradio_api/file/{text.replace('/', '//')}",
                         f"/ui/gradio_api/file={own}/../../{mina_id}/exports/Novel/{export.name}"):
                for method in ("GET", "HEAD"):
                    reply = jun.request(method, path)
                    attempts += 1
                    assert reply.status_code == 404, (method, path, reply.status_code)
                    assert b"SQLite" not in reply.content and SECRET not in reply.text
        assert attempts == 10 * (len(targets) + 1) >= 30
    # Mina's own project files are not offered for download either: only her exports are.
    assert mina.get(f"/ui/gradio_api/file/{targets[0]}").status_code == 404
    mina.__exit__(None, None, None)


def test_uploads_are_refused(ui_app: FastAPI) -> None:
    mount = next(r for r in ui_app.routes if getattr(r, "path", "") == "/ui")
    upload_dir = Path(mount.app.uploaded_file_dir)  # type: ignore[attr-defined]
    before = sorted(upload_dir.rglob("*")) if upload_dir.exists() else []
    with browser(ui_app) as mina:
        signup(mina, "mina")
        for _ in range(3):
            reply = mina.post("/ui/gradio_api/upload",
                              files={"files": ("a.txt", b"x" * (900_000 // 30), "text/plain")})
            assert reply.status_code == 403
            assert reply.json()["code"] == "error.server.upload_refused"
    after = sorted(upload_dir.rglob("*")) if upload_dir.exists() else []
    assert after == before


def test_event_streams_are_bound_to_the_account(ui_app: FastAPI) -> None:
    """Jun reads the queue with Mina's session hash: nothing of Mina's; Mina still gets her
    own output; Jun's cancel of Mina's event does nothing; the same hash from Jun's page is a
    session of Jun's."""
    index = _index(ui_app, name="on_load")
    with browser(ui_app) as mina, browser(ui_app) as jun:
        signup(mina, "mina")
        signup(jun, "jun")
        mina.post("/api/v1/projects", json={"name": "Mina-only", "keywords": "ring"})
        jun.post("/api/v1/projects", json={"name": "Jun-only", "keywords": "sea"})
        event = _join(mina, index, [None], "shared-hash")  # the page sends its kept project
        stolen = jun.get("/ui/gradio_api/queue/data", params={"session_hash": "shared-hash"})
        assert stolen.status_code == 404 and "Mina-only" not in stolen.text
        cancel = jun.post("/ui/gradio_api/cancel", json={
            "session_hash": "shared-hash", "fn_index": index, "event_id": event})
        assert cancel.status_code == 200
        seen = _output(_completed(mina, "shared-hash"))
        assert [c[0] for c in seen[0]["choices"]] == ["Mina-only"]
        _join(jun, index, [None], "shared-hash")  # the very same hash from Jun's page
        his = _output(_completed(jun, "shared-hash"))
        assert [c[0] for c in his[0]["choices"]] == ["Jun-only"]


def test_only_the_routes_the_page_needs_are_reachable(ui_app: FastAPI) -> None:
    with browser(ui_app) as mina:
        signup(mina, "mina")
        for method, path in [("GET", "/ui/gradio_api/info"), ("GET", "/ui/gradio_api/token"),
                             ("POST", "/ui/gradio_api/run/predict"),
                             ("POST", "/ui/gradio_api/call/on_load"),
                             ("GET", "/ui/gradio_api/proxy=http://127.0.0.1:1/x"),
                             ("GET", "/ui/monitoring"), ("POST", "/ui/gradio_api/component_server"),
                             ("GET", "/ui/gradio_api/upload_progress?upload_id=x"),
                             ("GET", "/ui/gradio_api/openapi.json")]:
            reply = mina.request(method, path, json={})
            assert reply.status_code in (403, 404), (method, path, reply.status_code)
            assert set(reply.json()) == {"code", "message", "hint"}


def test_a_picture_in_gradios_cache_goes_only_to_the_account_it_was_sent_to(
        ui_app: FastAPI) -> None:
    """The gallery's pictures are PIL images Gradio writes into its cache: the gate serves
    such a file only to the account whose event stream carried it."""
    import asyncio

    gate = ui_app.state.ui_slot.gate
    folder = Path(gate.cache) / f"test-{os.getpid()}"
    folder.mkdir(parents=True, exist_ok=True)
    picture = folder / "picture.png"
    picture.write_bytes(b"\x89PNG mina's picture")
    with browser(ui_app) as mina, browser(ui_app) as jun:
        mina_id = signup(mina, "mina")
        signup(jun, "jun")
        url = f"/ui/gradio_api/file={picture}"
        assert mina.get(url).status_code == 404  # not sent to anyone yet
        sent: list[Any] = []

        async def sink(message: Any) -> None:
            sent.append(message)

        event = json.dumps({"msg": "process_completed", "output": {"data": [
            {"path": str(picture), "url": url}]}}).encode()
        noting = gate._noting(sink, mina_id)
        asyncio.run(noting({"type": "http.response.body",
                            "body": b"data: " + event[:40], "more_body": True}))
        asyncio.run(noting({"type": "http.response.body", "body": event[40:] + b"\n\n"}))
        assert len(sent) == 2  # the stream itself goes on unchanged
        assert mina.get(url).content == b"\x89PNG mina's picture"
        assert jun.get(url).status_code == 404
    picture.unlink()
