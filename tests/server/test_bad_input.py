"""Bad input at the server's edge: no session (401), forged, foreign, expired or logged-out
cookies, path separators and traversal in every name parameter, oversized bodies and uploads
(413), login flooding (429), per-user limits."""

from __future__ import annotations

import base64
import json
import time
import urllib.parse
from collections.abc import Callable

import itsdangerous
from fastapi import FastAPI
from fastapi.testclient import TestClient

from aizac.server.app import SESSION_COOKIE
from tests.server.conftest import PASSWORD, browser, new_client, signup, write_one_beat

BAD_NAMES = ["../x", "a/b", "a\\b", "..", ".hidden", "a\x00b", "a\nb", "%2e%2e", "~root",
             "x" * 65]


def _routes(app: FastAPI) -> list[tuple[str, str]]:
    """Every (method, path) of the API but sign-up/login, from its OpenAPI document."""
    paths = app.openapi()["paths"]
    return [(m.upper(), p) for p, item in paths.items() for m in item
            if p.startswith("/api/v1") and not p.startswith("/api/v1/auth/")]


def _fill(path: str, name: str = "novel") -> str:
    return (path.replace("{name}", urllib.parse.quote(name, safe="")).replace("{beat_id}", "1")
            .replace("{run_id}", "abc").replace("{filename}", "a.txt"))


def test_every_api_route_needs_a_user(client: TestClient, app: FastAPI) -> None:
    routes = _routes(app)
    assert len(routes) >= 25
    for method, path in routes:
        reply = client.request(method, _fill(path), json={})
        assert reply.status_code == 401, (method, path, reply.status_code)
    assert client.get("/api/v1/auth/me").status_code == 401
    assert client.post("/api/v1/auth/tokens", json={}).status_code == 401


def test_forged_foreign_and_logged_out_cookies_are_refused(app: FastAPI) -> None:
    c = new_client(app, "mina")
    good = c.cookies[SESSION_COOKIE]
    assert c.get("/api/v1/projects").status_code == 200
    payload, _, _ = good.partition(".")
    forged_sid = base64.b64encode(json.dumps({"sid": "made-up"}).encode()).decode()
    foreign = itsdangerous.TimestampSigner("another-secret").sign(
        base64.b64encode(json.dumps({"sid": "x"}).encode())).decode()
    for cookie in (good[:-3] + "abc", forged_sid + good[len(payload):], foreign, "garbage"):
        with browser(app, cookies={SESSION_COOKIE: cookie}) as other:
            assert other.get("/api/v1/projects").status_code == 401
    copied = browser(app, cookies={SESSION_COOKIE: good})
    assert copied.get("/api/v1/projects").status_code == 200
    assert c.post("/api/v1/auth/logout").status_code == 204
    assert copied.get("/api/v1/projects").status_code == 401  # the session ended server-side
    c.__exit__(None, None, None)


def test_an_expired_cookie_is_refused(make_app: Callable[..., FastAPI]) -> None:
    app = make_app(session_days=1.5 / 86400)  # 1.5 seconds
    with browser(app) as c:
        signup(c, "mina")
        assert c.get("/api/v1/projects").status_code == 200
        time.sleep(2.6)
        assert c.get("/api/v1/projects").status_code == 401


def test_separators_and_traversal_in_every_name_parameter(client: TestClient,
                                                           app: FastAPI) -> None:
    signup(client, "mina")
    write_one_beat(client, "novel")
    refused = 0
    for method, path in _routes(app):
        if "{name}" not in path:
            continue
        for bad in BAD_NAMES:
            reply = client.request(method, _fill(path, bad), json={})
            assert reply.status_code in (400, 404, 405, 422), (method, path, bad, reply.text)
            refused += 1
    assert refused > 200
    assert client.post("/api/v1/projects", json={"name": "../escape", "keywords": "a"}
                       ).status_code == 422
    for bad in ("..%2F..%2Fsecret_key.txt", "a%5Cb.txt", ".env.txt", "x.exe", "noext"):
        reply = client.get(f"/api/v1/projects/novel/exports/{bad}")
        assert reply.status_code in (404, 422), (bad, reply.status_code)
    made = client.post("/api/v1/projects/novel/exports",
                       json={"format": "txt", "filename": "../../escape"})
    assert made.status_code == 422


def test_oversized_bodies_are_413(make_app: Callable[..., FastAPI]) -> None:
    app = make_app(max_body_bytes=4096)
    with browser(app) as c:
        signup(c, "mina")
        big = {"name": "novel", "keywords": "a", "genre": "x" * 10_000}
        assert c.post("/api/v1/projects", json=big).status_code == 413

        def chunks():  # no Content-Length: counted as it streams
            for _ in range(10):
                yield b"x" * 1000

        streamed = c.post("/api/v1/projects", content=chunks(),
                          headers={"Content-Type": "application/json"})
        assert streamed.status_code == 413
        assert c.get("/api/v1/projects").json() == []  # nothing was created


def test_login_attempts_are_limited(make_app: Callable[..., FastAPI]) -> None:
    app = make_app(login_attempts=3, login_window_s=60, signup_attempts=3)
    with browser(app) as c:
        signup(c, "mina")
        c.post("/api/v1/auth/logout")
        for _ in range(3):
            wrong = c.post("/api/v1/auth/login", json={"name": "mina", "password": "nope nope"})
            assert wrong.status_code == 401
        blocked = c.post("/api/v1/auth/login", json={"name": "mina", "password": PASSWORD})
        assert blocked.status_code == 429 and int(blocked.headers["Retry-After"]) > 0
        for name in ("jun", "kim"):  # mina was the first sign-up from this address
            assert c.post("/api/v1/auth/signup", json={"name": name, "password": PASSWORD}
                          ).status_code == 201
        flood = c.post("/api/v1/auth/signup", json={"name": "lee", "password": PASSWORD})
        assert flood.status_code == 429


def test_per_user_project_limit(make_app: Callable[..., FastAPI]) -> None:
    app = make_app(max_projects=2)
    with browser(app) as c:
        signup(c, "mina")
        for name in ("one", "two"):
            assert c.post("/api/v1/projects", json={"name": name, "keywords": "a"}
                          ).status_code == 201
        third = c.post("/api/v1/projects", json={"name": "three", "keywords": "a"})
        assert third.status_code == 429 and "limit" in third.json()["message"]
        other = new_client(app, "jun")  # the limit is per user
        assert other.post("/api/v1/projects", json={"name": "one", "keywords": "a"}
                          ).status_code == 201
        other.__exit__(None, None, None)


def test_per_user_storage_limit(make_app: Callable[..., FastAPI]) -> None:
    app = make_app(max_storage_mb=0.05)
    with browser(app) as c:
        signup(c, "mina")
        assert c.post("/api/v1/projects", json={"name": "one", "keywords": "a"}
                      ).status_code == 201  # a project's files are over 50 kB at once
        second = c.post("/api/v1/projects", json={"name": "two", "keywords": "a"})
        assert second.status_code == 429 and "MB" in second.json()["message"]


def test_unknown_fields_are_refused(client: TestClient) -> None:
    signup(client, "mina")
    reply = client.post("/api/v1/projects", json={"name": "n", "keywords": "a", "owner": "x"})
    assert reply.status_code == 422
    signup_extra = client.post("/api/v1/auth/signup",
                               json={"name": "jun", "password": PASSWORD, "admin": True})
    assert signup_extra.status_code == 422


def test_secure_cookie_behind_https(make_app: Callable[..., FastAPI]) -> None:
    with browser(make_app(https_only=True), base_url="https://testserver") as c:
        reply = c.post("/api/v1/auth/signup", json={"name": "mina", "password": PASSWORD})
        cookie = reply.headers["set-cookie"].lower()
        assert "secure" in cookie and "httponly" in cookie and "samesite=lax" in cookie


def test_errors_do_not_show_the_servers_folders(client: TestClient, app: FastAPI) -> None:
    user_id = signup(client, "mina")
    reply = client.get("/api/v1/projects/nothing-here/beats")
    assert reply.status_code == 404 and "nothing-here" in reply.json()["message"]
    data_dir = str(app.state.aizac.sandboxes.settings.data_dir.resolve())
    assert data_dir not in reply.text and user_id not in reply.text
