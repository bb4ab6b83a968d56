"""The server under uvicorn on loopback, where streams really stream and requests really run
at once: an open prose stream ends with an error event within two seconds once its session or
token ends, and its model stops (issue 38 item 3); one whole-account export per user at a time,
spooled in the user's sandbox (counted in their storage) and removed after its download or its
time limit (item 5)."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from aizac.server.lifecycle import SPOOL, ExportSpool
from tests.server.conftest import PASSWORD, Models, live, write_one_beat

pytestmark = pytest.mark.timeout(600)
NEW = "another long passphrase"


def _client(base: str, **options: Any) -> httpx.Client:
    return httpx.Client(base_url=base, headers={"Origin": base, **options.pop("headers", {})},
                        timeout=120, **options)


def _signed_up(base: str, name: str) -> tuple[httpx.Client, str]:
    c = _client(base)
    reply = c.post("/api/v1/auth/signup", json={"name": name, "password": PASSWORD})
    assert reply.status_code == 201, reply.text
    return c, str(reply.json()["id"])


class Stream:
    """A prose stream read in a thread: each line with the time it came."""

    def __init__(self, c: httpx.Client, path: str) -> None:
        self.lines: list[tuple[float, str]] = []
        self.chunked = threading.Event()
        self.ended = 0.0

        def read() -> None:
            with c.stream("POST", path) as reply:
                for line in reply.iter_lines():
                    self.lines.append((time.monotonic(), line))
                    if line.startswith("event: chunk"):
                        self.chunked.set()
            self.ended = time.monotonic()

        self.thread = threading.Thread(target=read, daemon=True)
        self.thread.start()

    def events(self, since: float = 0.0) -> list[tuple[str, dict[str, Any]]]:
        out, kind = [], ""
        for at, line in self.lines:
            if line.startswith("event:"):
                kind = line[6:].strip()
            elif line.startswith("data:") and kind:
                if at >= since:
                    out.append((kind, json.loads(line[5:])))
                kind = ""
        return out


def _end(how: str, app: FastAPI, base: str, mina: httpx.Client, mina_id: str,
         other: httpx.Client) -> None:
    """End the stream's credential the way ``how`` says."""
    if how == "log out everywhere":
        assert mina.delete("/api/v1/auth/sessions").status_code == 200
    elif how == "password changed elsewhere":
        assert other.post("/api/v1/auth/password", json={"current": PASSWORD, "new": NEW}
                          ).status_code == 204
    elif how == "disabled by an admin":
        app.state.aizac.accounts.add_user("boss", PASSWORD, role="admin")
        with _client(base) as admin:
            admin.post("/api/v1/auth/login", json={"name": "boss", "password": PASSWORD})
            assert admin.patch(f"/api/v1/admin/users/{mina_id}", json={"disabled": True}
                               ).status_code == 200
    elif how == "token revoked":
        assert mina.delete("/api/v1/auth/tokens").json() == {"count": 1}
    else:
        raise AssertionError(how)


@pytest.mark.parametrize("how", ["log out everywhere", "password changed elsewhere",
                                 "disabled by an admin", "token revoked"])
def test_a_prose_stream_ends_when_its_credential_ends(
        make_app: Callable[..., FastAPI], models: Models, how: str) -> None:
    """The issue: after "log out everywhere" 33-36 more chunks came, and after an admin
    disabled the account the stream finished, the model working for a disabled user. Now the
    stream ends with an error event within two seconds and its model stops; a stream of the
    session that changed the password runs on to its end."""
    app = make_app()
    with live(app) as base:
        mina, mina_id = _signed_up(base, "mina")
        beat = write_one_beat(mina, "novel")  # type: ignore[arg-type]
        model = models.of(mina_id)
        model.slow(0.25)  # about 6 s of prose
        reader = mina
        if how == "token revoked":
            token = mina.post("/api/v1/auth/tokens", json={}).json()["token"]
            reader = _client(base, headers={"Authorization": f"Bearer {token}"})
        other = _client(base)
        kept = None
        if how == "password changed elsewhere":  # the owner, in another browser
            assert other.post("/api/v1/auth/login", json={"name": "mina", "password": PASSWORD}
                              ).status_code == 200
            second = write_one_beat(other, "second")  # type: ignore[arg-type]
            kept = Stream(other, f"/api/v1/projects/second/beats/{second['id']}/prose")
        stream = Stream(reader, f"/api/v1/projects/novel/beats/{beat['id']}/prose")
        assert stream.chunked.wait(60), stream.lines
        ended = time.monotonic()
        _end(how, app, base, mina, mina_id, other)
        stream.thread.join(30)
        assert not stream.thread.is_alive(), "the stream never ended"
        assert stream.ended - ended < 2.5, stream.ended - ended
        after = stream.events(since=ended)
        kinds = [kind for kind, _ in after]
        assert kinds[-1] == "error" and "done" not in kinds, kinds
        assert kinds.count("chunk") <= 10, kinds
        assert after[-1][1]["code"] == "error.auth.credential_ended"
        assert set(after[-1][1]) == {"code", "message", "hint"}
        service = app.state.aizac.sandboxes.cached(mina_id).service
        deadline = time.monotonic() + 5
        while service.running("novel"):  # its model call stopped, its operation ended
            assert time.monotonic() < deadline
            time.sleep(0.05)
        if kept is None:
            streamed = model.streamed
            time.sleep(1.5)
            assert model.streamed - streamed <= 1  # nothing runs for the user any more
        else:
            assert service.running("second")
            kept.thread.join(60)
            assert [kind for kind, _ in kept.events()][-1] == "done"


# -------------------------------------------------------------------------------- exports
def _big_export_dir(app: FastAPI, user_id: str, megabytes: int) -> None:
    """A file the zip cannot shrink in the user's export folder: the download outlasts the
    socket's buffers, so a first export is still being downloaded while the test asks again."""
    box = app.state.aizac.sandboxes.cached(user_id)
    folder = box.export_dir / "novel"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "scans.bin").write_bytes(os.urandom(megabytes * 1_000_000))


def test_one_export_per_user_at_a_time(make_app: Callable[..., FastAPI]) -> None:
    """The issue: six exports at once all answered 200, each a whole-account zip in a shared
    spool. Now the second of a user's is 429 while the first is written or downloaded; the zip
    sits in the user's own sandbox (counted in their storage) and goes once downloaded."""
    app = make_app()
    with live(app) as base:
        mina, mina_id = _signed_up(base, "mina")
        write_one_beat(mina, "novel", accept=False)  # type: ignore[arg-type]
        _big_export_dir(app, mina_id, 24)
        jun, _ = _signed_up(base, "jun")
        spool = app.state.aizac.sandboxes.cached(mina_id).root / SPOOL
        with mina.stream("GET", "/api/v1/auth/export") as first:
            assert first.status_code == 200
            again = [mina.get("/api/v1/auth/export") for _ in range(5)]
            assert {r.status_code for r in again} == {429}, [r.status_code for r in again]
            assert {r.json()["code"] for r in again} == {"error.server.export_running"}
            assert all(1 <= int(r.headers["retry-after"]) <= 10 for r in again)
            assert [p.name for p in spool.iterdir()] == ["account.zip"]
            assert mina.get("/api/v1/auth/me").json()["storage_mb"] >= 48  # the zip counts
            assert jun.get("/api/v1/auth/export").status_code == 200  # per user
            body = first.read()
        assert len(body) > 24_000_000
        deadline = time.monotonic() + 10
        while list(spool.iterdir()):  # removed once sent
            assert time.monotonic() < deadline, list(spool.iterdir())
            time.sleep(0.05)
        assert mina.get("/api/v1/auth/export").status_code == 200  # the slot is free again


def test_an_export_never_downloaded_goes_after_its_time_limit(
        make_app: Callable[..., FastAPI], tmp_path: Path) -> None:
    """A download that never finished (a client gone, a process killed) holds the slot and
    the space only until ``EXPORT_KEEP_S``: the server's sweep removes it."""
    app = make_app(export_keep_s=10)
    with live(app) as base:
        mina, mina_id = _signed_up(base, "mina")
        root = app.state.aizac.sandboxes.of(app.state.aizac.accounts.user(mina_id)).root
        held = ExportSpool(root, 10).claim()  # as if a download had stopped half way
        held.write_bytes(b"x" * 1000)
        assert mina.get("/api/v1/auth/export").status_code == 429
        old = time.time() - 60
        os.utime(held, (old, old))
        leftover = root / SPOOL / "rows-of-a-killed-export"
        leftover.mkdir()
        os.utime(leftover, (old, old))
        deadline = time.monotonic() + 30  # the periodic sweep, without any request
        while held.exists() or leftover.exists():
            assert time.monotonic() < deadline, "the stale export was never removed"
            time.sleep(0.2)
        assert mina.get("/api/v1/auth/export").status_code == 200
