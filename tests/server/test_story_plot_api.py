"""``GET /api/v1/projects/{name}/reading/estimate`` and ``POST .../plot/from-story``: an
imported manuscript's reading estimate and the planner's plot of the story so far, through the
application service as ``aizac estimate-read`` and ``aizac plot --from-story``."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from tests.manuscript.conftest import write_serial
from tests.server.conftest import signup, write_one_beat

NAME = "귀환한 기사"


def _import(client: TestClient, tmp_path: Path) -> None:
    folder = write_serial(tmp_path)
    files = [("files", (p.name, p.read_bytes(), "text/plain"))
             for p in sorted(folder.iterdir(), key=lambda p: int(p.name.split("화")[0]))]
    assert client.post(f"/api/v1/projects/{NAME}/import", files=files).status_code == 201


def test_the_estimate_of_an_imported_manuscript(client: TestClient, tmp_path: Path) -> None:
    signup(client, "mina")
    _import(client, tmp_path)
    reply = client.get(f"/api/v1/projects/{NAME}/reading/estimate",
                       headers={"Accept-Language": "ko"})
    assert reply.status_code == 200, reply.text
    body = reply.json()
    assert (body["scenes"], body["episodes"]) == (6, 3)
    assert body["calls"] == sum(r["calls"] for r in body["roles"]) > 0
    assert body["seconds"] > 0 and body["lines"][0].startswith("장면 6개(회차 3개)")
    write_one_beat(client, "plain")
    refused = client.get("/api/v1/projects/plain/reading/estimate")
    assert refused.status_code == 409 and refused.json()["code"] == "error.read.not_imported"


def test_the_plot_of_the_story_so_far_is_drafted_once_unless_forced(
        client: TestClient) -> None:
    signup(client, "mina")
    write_one_beat(client, "novel")  # a plot and an accepted beat
    first = client.post("/api/v1/projects/novel/plot/from-story")
    assert first.status_code == 409 and first.json()["code"] == "error.plot.exists"
    forced = client.post("/api/v1/projects/novel/plot/from-story?force=true")
    assert forced.status_code == 200, forced.text
    assert forced.json()["version"] > 1
    assert client.get("/api/v1/projects/novel/plot").json()["version"] == forced.json()["version"]
