"""The REST API end to end through TestClient: accounts, projects, plot, beats, prose over
SSE, memory, export, runs."""

from __future__ import annotations

import json

from fastapi import FastAPI
from fastapi.testclient import TestClient

from aizac.settings import Settings
from tests.server.conftest import PASSWORD, new_client, signup, write_one_beat


def sse_events(text: str) -> list[tuple[str, dict[str, object]]]:
    out = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        lines = [line for line in block.split("\n") if line and not line.startswith(":")]
        kind = next((line[6:].strip() for line in lines if line.startswith("event:")), "")
        data = "\n".join(line[5:].strip() for line in lines if line.startswith("data:"))
        if kind:
            out.append((kind, json.loads(data) if data else {}))
    return out


def test_signup_login_logout_me(client: TestClient) -> None:
    user_id = signup(client, "mina")
    me = client.get("/api/v1/auth/me").json()
    assert me["id"] == user_id and me["name"] == "mina" and me["projects"] == 0
    assert client.post("/api/v1/auth/logout").status_code == 204
    assert client.get("/api/v1/auth/me").status_code == 401
    bad = client.post("/api/v1/auth/login", json={"name": "mina", "password": "wrong pass"})
    assert bad.status_code == 401
    good = client.post("/api/v1/auth/login", json={"name": "MINA", "password": PASSWORD})
    assert good.status_code == 200 and good.json()["id"] == user_id
    taken = client.post("/api/v1/auth/signup", json={"name": "Mina", "password": PASSWORD})
    assert taken.status_code == 409


def test_write_a_beat_and_stream_its_prose(client: TestClient) -> None:
    signup(client, "mina")
    beat = write_one_beat(client, "second-dawn")
    assert beat["status"] == "accepted"
    reply = client.post(f"/api/v1/projects/second-dawn/beats/{beat['id']}/prose")
    assert reply.status_code == 200
    assert reply.headers["content-type"].startswith("text/event-stream")
    events = sse_events(reply.text)
    kinds = [k for k, _ in events]
    assert kinds[0] == "run" and kinds[-1] == "done" and "chunk" in kinds
    streamed = "".join(str(d["delta"]) for k, d in events if k == "chunk")
    assert streamed == events[-1][1]["text"] and len(streamed) > 50
    run_id = events[0][1]["id"]
    run = client.get(f"/api/v1/runs/{run_id}").json()
    assert run["status"] == "done" and run["text"] == streamed
    stored = client.get(f"/api/v1/projects/second-dawn/beats/{beat['id']}").json()
    assert stored["prose"] == streamed


def test_edit_regenerate_undo_redo(client: TestClient) -> None:
    signup(client, "mina")
    draft = write_one_beat(client, "novel", accept=False)
    edited = dict(draft["beat"])  # type: ignore[call-overload]
    edited["location"] = "The bell tower"
    reply = client.put(f"/api/v1/projects/novel/beats/{draft['id']}",
                       json={"version": draft["version"], "beat": edited})
    assert reply.status_code == 200 and reply.json()["beat"]["location"] == "The bell tower"
    regen = client.post(f"/api/v1/projects/novel/beats/{draft['id']}/regenerate",
                        json={"version": reply.json()["version"], "locked": ["location"],
                              "instruction": "more tension"})
    assert regen.status_code == 200, regen.text
    assert regen.json()["beat"]["location"] == "The bell tower"
    history = client.post("/api/v1/projects/novel/undo").json()
    assert history["can_redo"]
    assert client.get("/api/v1/projects/novel/beats").json()["draft"]["beat"]["location"] == (
        "The bell tower")
    assert client.post("/api/v1/projects/novel/redo").status_code == 200
    stale = client.put(f"/api/v1/projects/novel/beats/{draft['id']}",
                       json={"version": draft["version"], "beat": edited})
    assert stale.status_code == 409


def test_an_edited_field_stands_through_regenerations_until_it_is_unlocked(
    client: TestClient,
) -> None:
    """Issue 23 item 1: what the writer typed belongs to the draft, so a regeneration that
    names no locks keeps it (twice), and after unlocking the next one may change it."""
    signup(client, "mina")
    draft = write_one_beat(client, "novel", accept=False)
    url = f"/api/v1/projects/novel/beats/{draft['id']}"
    edited = client.put(url, json={"version": draft["version"],
                                   "beat": dict(draft["beat"], time="회귀 첫날 새벽 4시")})
    assert edited.json()["written"] == ["time"]
    version = edited.json()["version"]
    for _ in range(2):
        regen = client.post(f"{url}/regenerate", json={"version": version})
        assert regen.status_code == 200, regen.text
        assert regen.json()["beat"]["time"] == "회귀 첫날 새벽 4시"
        assert regen.json()["written"] == ["time"]
        version = regen.json()["version"]
    unlocked = client.put(f"{url}/written", json={"version": version, "fields": []})
    assert unlocked.status_code == 200 and unlocked.json()["written"] == []
    free = client.post(f"{url}/regenerate", json={"version": unlocked.json()["version"]})
    assert free.json()["beat"]["time"] != "회귀 첫날 새벽 4시"
    # Undo puts the lock back with the text; a branch made from there keeps it too.
    client.post("/api/v1/projects/novel/undo")
    client.post("/api/v1/projects/novel/undo")
    back = client.get(url).json()
    assert back["written"] == ["time"] and back["beat"]["time"] == "회귀 첫날 새벽 4시"
    branch = client.post(f"{url}/regenerate", json={"version": back["version"]}).json()
    assert branch["beat"]["time"] == "회귀 첫날 새벽 4시" and branch["written"] == ["time"]


def test_memory_pin_and_export(client: TestClient) -> None:
    signup(client, "mina")
    beat = write_one_beat(client, "novel")
    client.post(f"/api/v1/projects/novel/beats/{beat['id']}/prose")
    rows = client.get("/api/v1/projects/novel/memories").json()
    assert rows, "accepting a beat commits memories"
    pinned = client.post("/api/v1/projects/novel/memories/pin",
                         json={"ids": [rows[0]["id"]], "pinned": True}).json()
    assert pinned[0]["pinned"] is True
    made = client.post("/api/v1/projects/novel/exports",
                       json={"format": "md", "filename": "draft one"})
    assert made.status_code == 201, made.text
    name = made.json()["file"]
    assert client.get("/api/v1/projects/novel/exports").json() == [name]
    got = client.get(f"/api/v1/projects/novel/exports/{name}")
    assert got.status_code == 200 and len(got.content) > 50


def test_an_upload_zip_says_which_episodes_are_short(client: TestClient) -> None:
    signup(client, "mina")
    beat = write_one_beat(client, "novel")
    client.post(f"/api/v1/projects/novel/beats/{beat['id']}/prose")
    made = client.post("/api/v1/projects/novel/exports", json={"format": "zip"})
    assert made.status_code == 201, made.text
    body = made.json()
    assert body["file"].endswith(".zip") and body["target_length"] == 2000  # words, English
    assert body["too_short"] == [1] and body["too_long"] == []


def test_api_token_for_scripts(app: FastAPI) -> None:
    browser = new_client(app, "mina")
    token = browser.post("/api/v1/auth/tokens", json={"label": "cron"}).json()
    assert token["token"].startswith("aizac_")
    with TestClient(app) as script:
        assert script.get("/api/v1/projects").status_code == 401
        auth = {"Authorization": f"Bearer {token['token']}"}
        assert script.get("/api/v1/projects", headers=auth).status_code == 200
        listed = browser.get("/api/v1/auth/tokens").json()
        assert [t["id"] for t in listed] == [token["id"]] and listed[0]["token"] is None
        assert browser.delete(f"/api/v1/auth/tokens/{token['id']}").status_code == 204
        assert script.get("/api/v1/projects", headers=auth).status_code == 401
    browser.__exit__(None, None, None)


def test_openapi_lists_the_api(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    for path in ("/api/v1/projects", "/api/v1/projects/{name}/beats/next",
                 "/api/v1/projects/{name}/beats/{beat_id}/prose",
                 "/api/v1/projects/{name}/memories/ask", "/api/v1/runs/{run_id}"):
        assert path in paths


def test_the_accounts_file_is_private(app: FastAPI, server_settings: Settings) -> None:
    path = app.state.aizac.accounts.path
    if server_settings.database_url is None:  # the file and SQLite's WAL beside it
        wal = path.with_name(path.name + "-wal")
        assert wal.exists()  # the sign-ups and logins of the app fixture went through it
        assert path.stat().st_mode & 0o077 == 0 and wal.stat().st_mode & 0o077 == 0
    else:  # on PostgreSQL the accounts are the database's: no file to leak
        assert path is None
        assert not (server_settings.data_dir / "server" / "accounts.sqlite3").exists()


def test_plan_this_episode_drafts_its_beats_and_each_is_accepted_alone(client: TestClient) -> None:
    """Issue 26: POST .../beats/plan designs every beat left in the episode as drafts (the
    writer's fields kept); they come back one by one as the next draft and are accepted alone."""
    signup(client, "mina")
    draft = write_one_beat(client, "novel", accept=False)
    url = f"/api/v1/projects/novel/beats/{draft['id']}"
    edited = client.put(url, json={"version": draft["version"],
                                   "beat": dict(draft["beat"], time="The hour of wolves")})
    assert edited.json()["written"] == ["time"]
    planned = client.post("/api/v1/projects/novel/beats/plan", json={"instruction": "faster"})
    assert planned.status_code == 200, planned.text
    beats = planned.json()["beats"]
    assert len(beats) > 1  # the episode's beats (the server's beats per episode)
    assert [(b["index"], b["status"]) for b in beats] == [(i + 1, "draft") for i in
                                                          range(len(beats))]
    assert beats[0]["id"] == draft["id"] and beats[0]["beat"]["time"] == "The hour of wolves"
    for beat in beats:
        assert client.get("/api/v1/projects/novel/beats").json()["draft"]["id"] == beat["id"]
        done = client.post(f"/api/v1/projects/novel/beats/{beat['id']}/accept",
                           json={"version": beat["version"]})
        assert done.status_code == 200, done.text
    assert client.post("/api/v1/projects/novel/beats/plan", json={"bad": 1}).status_code == 422
    assert client.post("/api/v1/projects/none/beats/plan", json={}).status_code == 404


def test_write_this_episode_streams_and_stores_each_beats_prose(client: TestClient) -> None:
    """Issue 26: POST .../episodes/{n}/prose streams the prose of the episode's accepted beats
    that have none (the events of a beat's prose) and stores each beat's own; an episode with
    nothing left to write is a 404 that says so; episode 0 is refused by the schema."""
    signup(client, "mina")
    write_one_beat(client, "novel", accept=False)
    beats = client.post("/api/v1/projects/novel/beats/plan", json={}).json()["beats"]
    for beat in beats:
        done = client.post(f"/api/v1/projects/novel/beats/{beat['id']}/accept",
                           json={"version": beat["version"]})
        assert done.status_code == 200, done.text
    reply = client.post("/api/v1/projects/novel/episodes/1/prose")
    assert reply.status_code == 200, reply.text
    events = sse_events(reply.text)
    assert events[0][0] == "run" and events[-1][0] == "done"
    streamed = "".join(str(d["delta"]) for k, d in events if k == "chunk")
    assert streamed == events[-1][1]["text"]
    stored = [client.get(f"/api/v1/projects/novel/beats/{b['id']}").json() for b in beats]
    assert all(s["prose"] and s["prose"] in streamed for s in stored)
    again = client.post("/api/v1/projects/novel/episodes/1/prose")
    assert again.status_code == 404 and again.json()["code"] == "error.prose.episode_written"
    assert client.post("/api/v1/projects/novel/episodes/0/prose").status_code == 422
    assert client.post("/api/v1/projects/none/episodes/1/prose").status_code == 404
