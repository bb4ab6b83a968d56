"""What PostgreSQL cannot store is refused at the boundary, before any SQL, on both engines
alike: a NUL character (U+0000) in a name or a text, an integer outside 32 bits in a path or a
body. Schemathesis found both on PostgreSQL as 500s; here each is a catalogue-keyed 422."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.testclient import TestClient

from tests.server.conftest import browser, new_client, write_one_beat

NUL = "error.server.nul_character"
RANGE = "error.server.number_range"


def _refused(reply: object, code: str) -> None:
    status, body = reply.status_code, reply.json()  # type: ignore[attr-defined]
    assert (status, body["code"]) == (422, code), body
    assert "U+0000" in body["message"] if code == NUL else "2147483647" in body["message"]


def test_a_nul_character_is_refused_before_sql(app: FastAPI) -> None:
    mina = new_client(app, "mina")
    beat = write_one_beat(mina, "novel", accept=False)
    base = "/api/v1/projects/novel"
    _refused(mina.post("/api/v1/projects", json={"name": "two", "keywords": "sea",
                                                 "genre": "fan\x00tasy"}), NUL)
    _refused(mina.post("/api/v1/projects", json={"name": "two", "keywords": "se\x00a"}), NUL)
    _refused(mina.post("/api/v1/projects", json={"name": "two", "keywords": ["se\x00a"]}), NUL)
    _refused(mina.patch(base, json={"keywords": "sea", "genre": "\x00"}), NUL)
    _refused(mina.post(f"{base}/beats/{beat['id']}/regenerate",
                       json={"instruction": "darker\x00"}), NUL)
    _refused(mina.put(f"{base}/beats/{beat['id']}/written", json={"fields": ["goal\x00"]}), NUL)
    _refused(mina.put(f"{base}/beats/{beat['id']}/prose", json={"text": "She ran.\x00"}), NUL)
    _refused(mina.post(f"{base}/switch", json={"node_id": "a\x00"}), NUL)
    _refused(mina.post(f"{base}/beats/plan", json={"instruction": "faster\x00"}), NUL)
    _refused(mina.post(f"{base}/memories/pin", json={"ids": ["m\x00"]}), NUL)
    _refused(mina.post(f"{base}/memories/ask", json={"question": "who?\x00"}), NUL)
    _refused(mina.post("/api/v1/auth/tokens", json={"label": "ci\x00"}), NUL)
    _refused(mina.delete("/api/v1/auth/tokens/ab%00cd"), NUL)
    _refused(mina.get("/api/v1/runs/ab%00cd"), NUL)
    _refused(mina.get(f"{base}/exports/draft%00.txt"), NUL)
    with browser(app) as stranger:
        _refused(stranger.post("/api/v1/auth/login", json={"name": "mi\x00na",
                                                           "password": "whatever"}), NUL)
        _refused(stranger.post("/api/v1/auth/signup", json={
            "name": "jun", "password": "correct\x00horse battery"}), NUL)
    # nothing was stored, and the project still works
    assert [p["name"] for p in mina.get("/api/v1/projects").json()] == ["novel"]
    assert mina.get(f"{base}/beats/{beat['id']}").json()["prose"] is None
    assert mina.post("/api/v1/projects", json={"name": "two", "keywords": "sea",
                                               "genre": "fantasy"}).status_code == 201


def test_every_request_body_refuses_a_nul_whatever_its_fields() -> None:
    """A body added later cannot forget the check: the base model refuses U+0000 anywhere in
    what was sent (the plan-episode body had come without its field's pattern)."""
    import pytest
    from pydantic import ValidationError

    from aizac.server import models

    def bodies(cls: type) -> list[type]:
        return [cls, *(b for sub in cls.__subclasses__() for b in bodies(sub))]

    found = bodies(models.Body)[1:]
    assert len(found) > 10
    for body in found:
        with pytest.raises(ValidationError) as refused:
            body.model_validate({"any": ["text\x00"]})
        assert refused.value.errors()[0]["type"] == "nul_character", body


def test_a_number_outside_32_bits_is_refused_before_sql(app: FastAPI) -> None:
    mina = new_client(app, "mina")
    beat = write_one_beat(mina, "novel", accept=False)
    base = "/api/v1/projects/novel"
    for too_big in (2**31, 2**53, 10**30):
        _refused(mina.get(f"{base}/beats/{too_big}"), RANGE)
        _refused(mina.post(f"{base}/beats/{beat['id']}/accept", json={"version": too_big}),
                 RANGE)
    _refused(mina.post(f"{base}/beats/{beat['id']}/accept", json={"version": -(2**31) - 1}),
             RANGE)
    _refused(mina.put(f"{base}/beats/{beat['id']}/written",
                      json={"version": float(2**40), "fields": []}), RANGE)
    # the largest id is an ordinary miss; a stale version an ordinary conflict
    assert mina.get(f"{base}/beats/{2**31 - 1}").status_code == 404
    stale = mina.post(f"{base}/beats/{beat['id']}/accept", json={"version": 2**31 - 1})
    assert stale.status_code == 409
    accepted = mina.post(f"{base}/beats/{beat['id']}/accept", json={"version": beat["version"]})
    assert accepted.status_code == 200


def test_the_schema_says_what_is_refused(client: TestClient) -> None:
    """So a client (and Schemathesis) never sends, as valid, what the server refuses."""
    document = client.get("/openapi.json").json()
    schemas = document["components"]["schemas"]
    assert schemas["ProseIn"]["properties"]["text"]["pattern"] == "^[^\\x00]*$"
    character = schemas["PlotCharacter"]["properties"]["name"]
    assert "\\x00" in character["pattern"]
    assert "pattern" not in schemas["Error"]["properties"]["message"]
    version = schemas["VersionIn"]["properties"]["version"]["anyOf"][0]
    assert (version["minimum"], version["maximum"]) == (-(2**31), 2**31 - 1)
    beat = next(p for p in document["paths"]["/api/v1/projects/{name}/beats/{beat_id}"]["get"]
                ["parameters"] if p["name"] == "beat_id")
    assert beat["schema"]["maximum"] == 2**31 - 1


def test_a_nul_inside_a_plot_or_a_beat_is_refused_too(app: FastAPI) -> None:
    """A plot's and a beat's fields reach the key index's text columns (a character's name):
    on PostgreSQL that was a 507 after the plot was half taken in, on SQLite a 200."""
    mina = new_client(app, "mina")
    beat = write_one_beat(mina, "novel", accept=False)
    base = "/api/v1/projects/novel"
    plot = mina.get(f"{base}/plot").json()
    changed = {**plot["plot"], "characters": [{**plot["plot"]["characters"][0],
                                               "name": "Ar\x00en"}]}
    _refused(mina.put(f"{base}/plot", json={"plot": changed, "version": plot["version"]}), NUL)
    body = mina.get(f"{base}/beats/{beat['id']}").json()
    edited = {**body["beat"], "dialogue": [{"speaker": "Mira", "line": "Go\x00"}]}
    _refused(mina.put(f"{base}/beats/{beat['id']}", json={"beat": edited,
                                                          "version": body["version"]}), NUL)
    assert mina.get(f"{base}/plot").json() == plot  # nothing was taken in
    assert mina.get(f"{base}/beats/{beat['id']}").json()["version"] == body["version"]
