"""The one gate: every route the process serves (the API, the pages, Gradio's mounted routes)
is refused without an account unless it is on the public list; a state-changing request that
rides the session cookie must come from the server's own pages; every response carries the
security headers and no CORS grant; ``/docs`` needs nothing from outside."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from starlette.routing import Mount

from aizac.server.errors import flat_routes
from aizac.server.gate import (
    PUBLIC_EXACT,
    SECURITY_HEADERS,
    _redacted,
    content_policy,
    is_public,
    normal_origin,
)
from tests.server.conftest import PASSWORD, browser, signup, write_one_beat

pytestmark = pytest.mark.timeout(600)


@pytest.fixture
def ui_app(make_app: Callable[..., FastAPI]) -> FastAPI:
    return make_app(ui=True)


def _every_route(app: FastAPI) -> list[tuple[str, str]]:
    """(method, path with sample values) of every route of the app, the mount's included."""
    out = []
    for route in flat_routes(app.routes):
        if isinstance(route, Mount):
            for sub in flat_routes(route.routes):
                for method in sorted(getattr(sub, "methods", None) or {"GET"}):
                    out.append((method, route.path + getattr(sub, "path", "")))
            continue
        for method in sorted(getattr(route, "methods", None) or {"GET"}):
            out.append((method, route.path))  # type: ignore[attr-defined]
    filled = []
    for method, path in out:
        path = re.sub(r"\{[^}]*:path\}", "x/y", path)
        path = re.sub(r"\{[^}]+\}", "1", path)
        filled.append((method, path))
    return sorted(set(filled))


def test_every_route_is_refused_without_an_account_unless_public(ui_app: FastAPI) -> None:
    """Gradio's own routes included (about 90 of them): nothing that is not on the public
    list answers anything but 401 (or a redirect to the sign-in page)."""
    routes = _every_route(ui_app)
    assert len(routes) > 100
    public_assets = ("/ui/assets/", "/ui/static/", "/ui/svelte/", "/ui/theme.css",
                     "/ui/gradio_api/theme.css", "/ui/favicon.ico", "/ui/manifest.json",
                     "/ui/robots.txt", "/docs-assets/")
    answered = {}
    with TestClient(ui_app) as anonymous:
        for method, path in routes:
            if method == "HEAD" or is_public(method, path) or path.startswith(public_assets):
                continue
            reply = anonymous.request(method, path, follow_redirects=False, json={})
            answered[(method, path)] = reply.status_code
    assert answered, "no private route was tried"
    leaked = {k: v for k, v in answered.items() if v not in (401, 303)}
    assert leaked == {}
    assert answered[("GET", "/ui/")] == 303


def test_the_public_list_is_short() -> None:
    assert len(PUBLIC_EXACT) <= 12
    assert not is_public("GET", "/api/v1/projects")
    assert not is_public("POST", "/api/v1/auth/tokens")
    assert is_public("GET", "/docs-assets/swagger-ui.css")


def test_a_page_on_another_port_cannot_act_with_the_session(make_app: Callable[..., FastAPI]
                                                          ) -> None:
    """``beats/next``, ``undo``, ``redo`` (no body: a plain form POST would do) with the
    session cookie from a same-site page on another port: refused, nothing changed."""
    app = make_app()
    with browser(app) as mina:
        signup(mina, "mina")
        write_one_beat(mina, "novel")
        before = mina.get("/api/v1/projects/novel/beats").json()
        for origin in ("http://testserver:9999", "http://evil.testserver", "null"):
            for path in ("beats/next", "undo", "redo"):
                reply = mina.post(f"/api/v1/projects/novel/{path}", headers={"Origin": origin})
                assert reply.status_code == 403, (origin, path, reply.text)
                assert reply.json()["code"] == "error.server.origin_refused"
        referer = mina.post("/api/v1/projects/novel/undo",
                            headers={"Origin": "", "Referer": "http://testserver:9999/x"})
        assert referer.status_code == 403
        assert mina.get("/api/v1/projects/novel/beats").json() == before
        bare = TestClient(app, cookies=dict(mina.cookies))  # no Origin, no Referer, a cookie
        assert bare.post("/api/v1/projects/novel/undo").status_code == 403
        assert mina.post("/api/v1/projects/novel/undo").status_code == 200  # its own page


def test_bearer_requests_need_no_origin(make_app: Callable[..., FastAPI]) -> None:
    app = make_app()
    with browser(app) as mina:
        signup(mina, "mina")
        token = mina.post("/api/v1/auth/tokens", json={"label": "cron"}).json()["token"]
    with TestClient(app, headers={"Authorization": f"Bearer {token}"}) as script:
        made = script.post("/api/v1/projects", json={"name": "novel", "keywords": "ring"})
        assert made.status_code == 201
        other = script.post("/api/v1/projects", json={"name": "two", "keywords": "ring"},
                            headers={"Origin": "http://elsewhere:1"})
        assert other.status_code == 201  # a browser never adds the header across sites


def test_get_logout_never_ends_a_session(make_app: Callable[..., FastAPI]) -> None:
    app = make_app()
    with browser(app) as mina:
        signup(mina, "mina")
        page = mina.get("/logout")  # a cross-site link or <img src>
        assert page.status_code == 200 and 'method="post"' in page.text
        assert mina.get("/api/v1/auth/me").status_code == 200
        refused = mina.post("/logout", headers={"Origin": "http://testserver:9999"},
                            follow_redirects=False)
        assert refused.status_code == 403
        assert mina.get("/api/v1/auth/me").status_code == 200
        assert mina.post("/logout", follow_redirects=False).status_code == 303
        assert mina.get("/api/v1/auth/me").status_code == 401


def test_security_headers_on_every_response(ui_app: FastAPI) -> None:
    with browser(ui_app) as c:
        replies = [c.get("/login"), c.get("/api/v1/projects"), c.get("/no-such-page"),
                   c.post("/api/v1/auth/login", json={"name": "x"}), c.get("/docs"),
                   c.get("/openapi.json"), c.get("/ui/theme.css"), c.get("/healthz")]
        signup(c, "mina")
        replies += [c.get("/ui/"), c.get("/ui/config"), c.get("/api/v1/auth/me"),
                    c.post("/api/v1/projects", content=b"x" * 2_000_000)]
    for reply in replies:
        for name, value in SECURITY_HEADERS.items():
            if name == "Content-Security-Policy" and reply.url.path == "/ui/":
                continue  # the web app's page: its own nonce (below)
            assert reply.headers.get(name) == value, (reply.url, name)
        assert "frame-ancestors 'none'" in reply.headers["content-security-policy"]
        assert re.fullmatch(r"[0-9a-f]{32}", reply.headers["x-request-id"])
        assert "server" not in reply.headers
    assert replies[1].headers["cache-control"] == "no-store"
    nonce = re.search(r"'nonce-([^']+)'", replies[8].headers["content-security-policy"])
    assert nonce and replies[8].headers["content-security-policy"] == content_policy(
        nonce.group(1))


def test_no_inline_script_runs_but_the_pages_own(ui_app: FastAPI) -> None:
    """Issue 38 item 7: the policy allowed 'unsafe-inline' scripts. Now no page of the server
    has an inline script but the web app's, whose scripts carry a nonce made per response."""
    with browser(ui_app) as c:
        login = c.get("/login")
        signup(c, "mina")
        pages = [c.get("/ui/") for _ in range(2)]
    assert "'unsafe-inline'" not in login.headers["content-security-policy"]
    assert re.findall(r"<script[^>]*>", login.text) == ['<script src="/aizac-assets/login.js">']
    nonces = []
    for page in pages:
        policy = page.headers["content-security-policy"]
        scripts = re.search(r"script-src ([^;]*)", policy)
        assert scripts and "'unsafe-inline'" not in scripts.group(1), policy
        nonce = re.search(r"'nonce-([A-Za-z0-9_-]{20,})'", scripts.group(1))
        assert nonce, policy
        nonces.append(nonce.group(1))
        tags = re.findall(r"<script\b[^>]*>", page.text)
        assert len(tags) >= 4 and all(f'nonce="{nonce.group(1)}"' in tag for tag in tags), tags
        assert int(page.headers["content-length"]) == len(page.content)
    assert nonces[0] != nonces[1]  # one per response


def test_no_cors_grant_to_another_origin(ui_app: FastAPI) -> None:
    """Gradio's own middleware grants every localhost origin with credentials; the gate takes
    the grant away, so a page on another port cannot read the answers."""
    with browser(ui_app) as c:
        signup(c, "mina")
        for path in ("/ui/config", "/ui/", "/api/v1/projects", "/ui/gradio_api/queue/data"):
            reply = c.get(path, headers={"Origin": "http://127.0.0.1:9999",
                                         "Host": "127.0.0.1:7860"})
            assert "access-control-allow-origin" not in reply.headers, path
            assert "access-control-allow-credentials" not in reply.headers, path
        preflight = c.options("/ui/gradio_api/queue/join", headers={
            "Origin": "http://127.0.0.1:9999", "Access-Control-Request-Method": "POST",
            "Host": "127.0.0.1:7860"})
        assert "access-control-allow-origin" not in preflight.headers


def test_docs_load_nothing_from_outside(client: TestClient) -> None:
    page = client.get("/docs")
    assert page.status_code == 200
    sources = re.findall(r'(?:src|href)="([^"]+)"', page.text)
    assert sources and all(s.startswith("/docs-assets/") for s in sources), sources
    for source in sources:
        asset = client.get(source)
        assert asset.status_code == 200 and len(asset.content) > 20, source
    assert "http" not in page.text.replace("http-equiv", "")


def test_the_access_log_keeps_session_hashes_and_files_out(
        ui_app: FastAPI, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="aizac.server.access")
    with browser(ui_app) as c:
        user_id = signup(c, "mina")
        c.get("/ui/gradio_api/queue/data", params={"session_hash": "secret-hash-123"})
        c.get(f"/ui/gradio_api/file=/data/users/{user_id}/exports/secret-file.md")
        c.get(f"/ui/gradio_api/file/data/users/{user_id}/exports/secret-file.md")
    lines = [r for r in caplog.records if r.name == "aizac.server.access"]
    assert len(lines) >= 4
    text = " ".join(f"{r.getMessage()} {r.__dict__}" for r in lines)
    assert "secret-hash" not in text and "secret-file" not in text
    assert any(getattr(r, "user_id", "-") == user_id for r in lines)
    assert all(re.fullmatch(r"[0-9a-f]{32}", getattr(r, "request_id", "")) for r in lines)
    # the heartbeat is a stream that lasts as long as the page: its path, as logged
    assert _redacted("/ui/gradio_api/heartbeat/secret-hash-456") == "/ui/gradio_api/heartbeat/…"


def test_origins_compare_as_browsers_send_them() -> None:
    assert normal_origin("HTTP://Example.COM:80") == "http://example.com"
    assert normal_origin("https://example.com:443/path") == "https://example.com"
    assert normal_origin("http://127.0.0.1:7860") == "http://127.0.0.1:7860"
    assert normal_origin("null") == "" and normal_origin("javascript:x") == ""


def test_a_configured_origin_is_allowed(make_app: Callable[..., FastAPI]) -> None:
    app = make_app(allowed_origins=["https://aizac.example"])
    with browser(app, headers={"Origin": "https://aizac.example"}) as c:
        signup(c, "mina")
        assert c.post("/api/v1/projects", json={"name": "n", "keywords": "a"}).status_code == 201
        assert c.post("/api/v1/auth/login", json={"name": "mina", "password": PASSWORD},
                      headers={"Origin": "https://other.example"}).status_code == 403
