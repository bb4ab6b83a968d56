"""One error shape for every refusal, ``{code, message, hint}``, in the caller's language (the
account's setting, else Accept-Language), with statuses that fit and no large echo."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from aizac.server.errors import fields_of, negotiate
from tests.server.conftest import PASSWORD, browser, signup, write_one_beat

pytestmark = pytest.mark.timeout(600)
HANGUL = re.compile(r"[\uac00-\ud7a3]")
HAN = re.compile(r"[\u4e00-\u9fff]")


def _shape(reply: object) -> dict[str, str]:
    body = reply.json()  # type: ignore[attr-defined]
    assert set(body) == {"code", "message", "hint"}, body
    assert re.fullmatch(r"error\.[a-z_.]+", body["code"]), body
    return dict(body)


def test_every_kind_of_refusal_has_the_one_shape(make_app: Callable[..., FastAPI]) -> None:
    app = make_app(max_body_bytes=4096, login_attempts=1)
    with browser(app) as c:
        seen = {}
        seen[401] = c.get("/api/v1/projects")
        signup(c, "mina")
        write_one_beat(c, "novel", accept=False)
        draft = c.get("/api/v1/projects/novel/beats").json()["draft"]
        seen[403] = c.post("/api/v1/projects/novel/undo", headers={"Origin": "http://x:1"})
        seen[404] = c.get("/api/v1/projects/nothing-here")
        seen[405] = c.put("/api/v1/projects/novel/beats/next")
        seen[409] = c.put(f"/api/v1/projects/novel/beats/{draft['id']}",
                          json={"version": draft["version"] - 1, "beat": draft["beat"]})
        seen[413] = c.post("/api/v1/projects", content=b"{" + b" " * 10_000 + b"}",
                           headers={"Content-Type": "application/json"})
        seen[422] = c.post("/api/v1/projects", json={"name": "../x", "keywords": "a"})
        c.post("/api/v1/auth/logout")
        c.post("/api/v1/auth/login", json={"name": "mina", "password": "wrong one"})
        seen[429] = c.post("/api/v1/auth/login", json={"name": "mina", "password": PASSWORD})
    for status, reply in seen.items():
        assert reply.status_code == status, (status, reply.text)
        _shape(reply)
    assert seen[405].headers["allow"] == "POST"
    assert int(seen[429].headers["retry-after"]) > 0
    assert seen[401].headers["www-authenticate"].startswith("Bearer")
    assert "/api/v1/" in seen[404].json()["hint"]  # an API call, not a command
    assert "aizac " not in seen[404].json()["hint"]


def test_the_language_is_the_accounts_else_the_browsers(client: TestClient) -> None:
    korean = client.get("/api/v1/projects", headers={"Accept-Language": "ko-KR,ko;q=0.9"})
    assert HANGUL.search(korean.json()["message"]) and korean.json()["code"] == (
        "error.server.not_signed_in")
    signup(client, "mina")
    chinese = client.get("/api/v1/projects/none", headers={"Accept-Language": "zh-CN"})
    assert HAN.search(chinese.json()["message"]) or HAN.search(chinese.json()["hint"])
    assert client.patch("/api/v1/auth/me", json={"language": "ko"}).json()["language"] == "ko"
    chosen = client.get("/api/v1/projects/none", headers={"Accept-Language": "en"})
    assert HANGUL.search(chosen.json()["hint"])
    assert chosen.json()["code"] == korean.json()["code"] or chosen.status_code == 404


def test_a_large_bad_input_is_not_echoed(client: TestClient) -> None:
    """The issue: a 900 KB id came back as a 900 KB error."""
    signup(client, "mina")
    write_one_beat(client, "novel")
    huge = "x" * 900_000
    for reply in (client.post("/api/v1/projects/novel/memories/pin", json={"ids": [huge]}),
                  client.get(f"/api/v1/runs/{huge[:60_000]}"),
                  client.get(f"/no-such/{huge[:60_000]}"),
                  client.post("/api/v1/projects", json={"name": huge[:500_000], "keywords": "a"})):
        assert 400 <= reply.status_code < 500
        _shape(reply)
        assert len(reply.content) < 2000, len(reply.content)


def test_the_servers_folders_never_show(client: TestClient, app: FastAPI) -> None:
    user_id = signup(client, "mina")
    reply = client.get("/api/v1/projects/nothing-here/beats")
    data_dir = str(app.state.aizac.sandboxes.settings.data_dir.resolve())
    assert reply.status_code == 404 and data_dir not in reply.text and user_id not in reply.text


def test_accept_language_is_negotiated() -> None:
    assert negotiate("ko-KR,ko;q=0.9,en;q=0.8") == "ko"
    assert negotiate("fr-FR,zh;q=0.5,en;q=0.4") == "zh"
    assert negotiate("en;q=0.2,ko;q=0.8") == "ko"
    assert negotiate("*") == "en" and negotiate(None, "ko") == "ko"
    assert negotiate("zh-Hant-TW") == "zh"


def test_schema_errors_name_fields_not_values() -> None:
    said = fields_of([{"loc": ("body", "name"), "type": "string_too_long", "input": "secret"}])
    assert said == "body.name (string_too_long)" and "secret" not in said
