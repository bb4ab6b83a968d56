"""Isolation: a second user tries every endpoint (and the web app's handlers, through the
per-user hook) with the first user's project names (and look-alikes: NFD Korean, other case,
traversal), beat, memory, history node, export, run and token ids. A leak is a reply that
shows any of the first user's data, or any change to it. The table is printed (run with -s)."""

from __future__ import annotations

import json
import unicodedata
import urllib.parse
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from tests.server.conftest import new_client, write_one_beat
from tests.server.test_api import sse_events

SECRET_PLACE = "Mina's secret room"
SECRET_PROSE = "MINA PROSE: the ring sleeps under the well."
SECRET_GENRE = "MINA-GENRE"
SECRET_FILE = "mina-secret-export"
NFC = unicodedata.normalize("NFC", "소설")
NFD = unicodedata.normalize("NFD", "소설")


def _setup_mina(c: TestClient) -> dict[str, Any]:
    """Mina's world: three projects, an edited and accepted beat with prose, a pin, an
    export, a finished run, an API token."""
    for name in ("Novel", NFC, "secret-one"):
        made = c.post("/api/v1/projects", json={"name": name, "keywords": "ring, well",
                                                "genre": SECRET_GENRE, "language": "en"})
        assert made.status_code == 201, made.text
    draft = write_one_beat(c, "Novel", accept=False)
    beat = dict(draft["beat"])  # type: ignore[call-overload]
    beat["location"] = SECRET_PLACE
    edited = c.put(f"/api/v1/projects/Novel/beats/{draft['id']}",
                   json={"version": draft["version"], "beat": beat}).json()
    done = c.post(f"/api/v1/projects/Novel/beats/{draft['id']}/accept",
                  json={"version": edited["version"]}).json()
    events = sse_events(c.post(f"/api/v1/projects/Novel/beats/{done['id']}/prose").text)
    c.put(f"/api/v1/projects/Novel/beats/{done['id']}/prose", json={"text": SECRET_PROSE})
    memories = c.get("/api/v1/projects/Novel/memories").json()
    c.post("/api/v1/projects/Novel/memories/pin", json={"ids": [memories[0]["id"]]})
    export = c.post("/api/v1/projects/Novel/exports",
                    json={"format": "md", "filename": SECRET_FILE}).json()
    token = c.post("/api/v1/auth/tokens", json={"label": "mina"}).json()
    history = c.get("/api/v1/projects/Novel/beats").json()["history"]
    return {"beats": [done["id"]], "memories": [m["id"] for m in memories],
            "file": export["file"], "run": events[0][1]["id"], "token": token["id"],
            "node": history["node_id"], "user": c.get("/api/v1/auth/me").json()["id"]}


def _setup_jun(c: TestClient) -> None:
    """Jun's look-alikes: 'novel' (other case) and '소설' typed in NFD (his own project)."""
    for name in ("novel", NFD):
        assert c.post("/api/v1/projects", json={"name": name, "keywords": "sea, storm",
                                                "language": "en"}).status_code == 201
    write_one_beat(c, "novel")


def _snapshot(c: TestClient) -> str:
    """Everything Mina can read of her own data (to compare before and after)."""
    out: dict[str, Any] = {"projects": c.get("/api/v1/projects").json()}
    for p in ("Novel", NFC, "secret-one"):
        q = urllib.parse.quote(p, safe="")
        out[p] = [c.get(f"/api/v1/projects/{q}/{what}").json()
                  for what in ("beats", "memories", "exports")]
        out[p].append(c.get(f"/api/v1/projects/{q}/plot").status_code)
    out["tokens"] = c.get("/api/v1/auth/tokens").json()
    return json.dumps(out, sort_keys=True, ensure_ascii=False)


def _names(user_id: str) -> list[str]:
    """Mina's project names as Jun might type them, and ways out of his sandbox."""
    return ["Novel", NFC, NFD, "secret-one", "Secret-One", "SECRET-ONE",
            f"../{user_id}/projects/Novel", f"../../users/{user_id}/projects/secret-one",
            "..", "Novel/../secret-one", "Novel\\..\\secret-one", "Novel\x00"]


def _endpoints(m: dict[str, Any], beat: dict[str, Any]) -> list[tuple[str, str, str, Any]]:
    """(label, method, path with {p} for the project, JSON body) for every API endpoint."""
    b = m["beats"][0]
    return [
        ("GET project", "GET", "/projects/{p}", None),
        ("PATCH project", "PATCH", "/projects/{p}", {"genre": "x", "keywords": "a"}),
        ("GET plot", "GET", "/projects/{p}/plot", None),
        ("generate plot", "POST", "/projects/{p}/plot/generate", None),
        ("GET beats", "GET", "/projects/{p}/beats", None),
        ("GET beat", "GET", f"/projects/{{p}}/beats/{b}", None),
        ("design beat", "POST", "/projects/{p}/beats/next", None),
        ("edit beat", "PUT", f"/projects/{{p}}/beats/{b}", {"beat": beat}),
        ("regenerate", "POST", f"/projects/{{p}}/beats/{b}/regenerate", {}),
        ("accept", "POST", f"/projects/{{p}}/beats/{b}/accept", {}),
        ("undo", "POST", "/projects/{p}/undo", None),
        ("redo", "POST", "/projects/{p}/redo", None),
        ("switch branch", "POST", "/projects/{p}/switch", {"node_id": m["node"]}),
        ("cancel", "POST", "/projects/{p}/cancel", None),
        ("stream prose", "POST", f"/projects/{{p}}/beats/{b}/prose", None),
        ("save prose", "PUT", f"/projects/{{p}}/beats/{b}/prose", {"text": "overwritten"}),
        ("list memories", "GET", "/projects/{p}/memories", None),
        ("pin memory", "POST", "/projects/{p}/memories/pin", {"ids": m["memories"][:1]}),
        ("ask memory", "POST", "/projects/{p}/memories/ask", {"question": "Where is the ring?"}),
        ("export", "POST", "/projects/{p}/exports", {"format": "md", "filename": "jun-file"}),
        ("list exports", "GET", "/projects/{p}/exports", None),
        ("download export", "GET", f"/projects/{{p}}/exports/{m['file']}", None),
    ]


def _leaks(reply_text: str, status: int, markers: Iterable[str]) -> bool:
    return 200 <= status < 300 and any(k in reply_text for k in markers)


def _print_table(title: str, rows: dict[str, list[int]], changed: bool) -> None:
    print(f"\n{title}\n| endpoint | attempts | leaks |\n|---|---|---|")
    for label, (attempts, leaks) in rows.items():
        print(f"| {label} | {attempts} | {leaks} |")
    total = [sum(r[i] for r in rows.values()) for i in (0, 1)]
    print(f"| **total** | {total[0]} | {total[1]} |")
    print(f"Mina's data after all attempts: {'CHANGED' if changed else 'unchanged'}")


@pytest.mark.timeout(900)
def test_no_user_reads_or_writes_another_users_data(app: FastAPI) -> None:
    mina, jun = new_client(app, "mina"), new_client(app, "jun")
    m = _setup_mina(mina)
    _setup_jun(jun)
    markers = [SECRET_PLACE, SECRET_PROSE, SECRET_GENRE, SECRET_FILE, m["run"], m["token"],
               m["user"], *m["memories"]]
    before = _snapshot(mina)
    beat = mina.get(f"/api/v1/projects/Novel/beats/{m['beats'][0]}").json()["beat"]
    beat["location"] = "Jun's own edit"  # Jun's request carries none of Mina's data
    rows: dict[str, list[int]] = {}
    statuses: Counter[int] = Counter()
    for label, method, path, body in _endpoints(m, beat):
        row = rows.setdefault(label, [0, 0])
        for name in [*_names(m["user"]), "novel"]:  # and Jun's own project with Mina's ids
            url = "/api/v1" + path.replace("{p}", urllib.parse.quote(name, safe=""))
            reply = jun.request(method, url, json=body)
            row[0] += 1
            row[1] += _leaks(reply.text, reply.status_code, markers)
            statuses[reply.status_code] += 1
    for label, method, url in [
        ("GET run", "GET", f"/api/v1/runs/{m['run']}"),
        ("cancel run", "DELETE", f"/api/v1/runs/{m['run']}"),
        ("list runs", "GET", "/api/v1/runs"),
        ("revoke token", "DELETE", f"/api/v1/auth/tokens/{m['token']}"),
        ("list tokens", "GET", "/api/v1/auth/tokens"),
        ("list projects", "GET", "/api/v1/projects"),
        ("me", "GET", "/api/v1/auth/me"),
    ]:
        reply = jun.request(method, url)
        rows[label] = [1, int(_leaks(reply.text, reply.status_code, markers))]
        statuses[reply.status_code] += 1
    after = _snapshot(mina)
    _print_table("API isolation (Jun with Mina's names and ids)", rows, before != after)
    print("statuses:", dict(sorted(statuses.items())))
    assert sum(r[1] for r in rows.values()) == 0
    assert before == after
    assert statuses[404] > 100 and statuses[422] > 20  # refused, not merely empty
    for c in (mina, jun):
        c.__exit__(None, None, None)


def _handler_calls(m: dict[str, Any]) -> list[tuple[str, Callable[[Any, str], Any]]]:
    from aizac.web import handlers as h
    from aizac.web import inspector

    b = m["beats"][0]
    return [
        ("start_view", lambda s, p: h.start_view(s, p)),
        ("editor_view", lambda s, p: h.editor_view(s, p)),
        ("update_project", lambda s, p: h.update_project(s, p, "x", "a")),
        ("generate_plot", lambda s, p: h.generate_plot(s, p)),
        ("next_beat", lambda s, p: h.next_beat(s, p)),
        ("save_edit", lambda s, p: h.save_edit(s, p, b, None, {"location": "x"})),
        ("accept", lambda s, p: h.accept(s, p, b, None)),
        ("undo", lambda s, p: h.undo(s, p)),
        ("switch_branch", lambda s, p: h.switch_branch(s, p, m["node"])),
        ("load_prose", lambda s, p: h.load_prose(s, p, b)),
        ("write_prose", lambda s, p: list(h.write_prose(s, p, b))),
        ("save_prose", lambda s, p: h.save_prose(s, p, b, "overwritten")),
        ("export_file", lambda s, p: h.export_file(s, p, "md", 0, 0, "jun-file")),
        ("memory_table", lambda s, p: inspector.memory_table(s, p)),
        ("set_pinned", lambda s, p: inspector.set_pinned(s, p, m["memories"][:1], False)),
        ("ask_memory", lambda s, p: inspector.ask_memory(s, p, "Where is the ring?")),
    ]


@pytest.mark.timeout(900)
def test_web_handlers_through_the_per_user_hook(app: FastAPI) -> None:
    """What the Gradio events call, as Jun (the user the hook binds from the session)."""
    from aizac.web.per_user import UserScopedService, acting_as

    mina, jun = new_client(app, "mina"), new_client(app, "jun")
    m = _setup_mina(mina)
    _setup_jun(jun)
    jun_id = jun.get("/api/v1/auth/me").json()["id"]
    boxes = app.state.aizac.sandboxes
    scoped = UserScopedService(lambda uid: boxes.of(app.state.aizac.accounts.user(uid)).service)
    markers = [SECRET_PLACE, SECRET_PROSE, SECRET_GENRE, SECRET_FILE, *m["memories"]]
    unsent = [k for k in markers if k not in m["memories"][:1]]
    before = _snapshot(mina)
    rows: dict[str, list[int]] = {}
    for label, call in _handler_calls(m):
        row = rows.setdefault(label, [0, 0])
        for name in [*_names(m["user"]), "novel"]:
            row[0] += 1
            with acting_as(jun_id):
                try:
                    shown = repr(call(scoped, name))
                except Exception as e:  # refused: fine, unless the message shows Mina's data
                    said = str(e)  # (beyond the ids Jun typed himself, which it may repeat)
                    shown = "LEAK " + said if any(k in said for k in unsent) else ""
            row[1] += any(k in shown for k in markers)
    after = _snapshot(mina)
    _print_table("Web handler isolation (Jun, through aizac.web.per_user)", rows, before != after)
    assert sum(r[1] for r in rows.values()) == 0 and before == after
    for c in (mina, jun):
        c.__exit__(None, None, None)
