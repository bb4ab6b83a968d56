"""``/api/v1/projects/{name}/pictures``: list, the prompt and cost, make, the file, place and
remove, through the user's application service (issue 39 item 13: pictures had no REST route),
with the errors of every other route."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.server.conftest import new_client, signup, write_one_beat

BASE = "/api/v1/projects/dawn/pictures"
PLACE = "/api/v1/projects/dawn/placements"


def test_a_writer_makes_and_places_pictures_over_rest(client: TestClient) -> None:
    signup(client, "mina")
    beat = write_one_beat(client, "dawn")
    assert client.get(BASE).json() == []
    prompt = client.get(f"{BASE}/prompt", params={"slot": "cover"})
    assert prompt.status_code == 200, prompt.text
    said = prompt.json()
    assert "The Second Dawn" in said["prompt"] and said["model"] == "typographic"
    assert said["billable"] is False
    made = client.post(BASE, json={"slot": "cover"})
    assert made.status_code == 201, made.text
    cover = made.json()
    assert cover["kind"] == "cover" and cover["placed"] is None and cover["size"] > 0
    image = client.get(f"{BASE}/{cover['id']}")
    assert image.status_code == 200 and image.headers["content-type"] == "image/png"
    assert image.content.startswith(b"\x89PNG") and len(image.content) == cover["size"]
    placed = client.put(PLACE, json={"slot": "cover", "image_id": cover["id"]})
    assert placed.status_code == 200 and placed.json() == {
        "slot": "cover", "image_id": cover["id"], "before": None}
    scene = client.post(BASE, json={"slot": f"beat:{beat['id']}", "prompt": "a gate at night"})
    assert scene.status_code == 201 and scene.json()["prompt"] == "a gate at night"
    listed = {p["id"]: p["placed"] for p in client.get(BASE).json()}
    assert listed == {cover["id"]: "cover", scene.json()["id"]: None}
    assert client.post("/api/v1/projects/dawn/undo").status_code == 200  # the placement
    assert {p["id"]: p["placed"] for p in client.get(BASE).json()}[cover["id"]] is None
    out = client.put(PLACE, json={"slot": "cover", "image_id": None})
    assert out.status_code == 200 and out.json()["before"] is None


def test_pictures_answer_the_errors_every_route_does(client: TestClient) -> None:
    signup(client, "mina")
    assert client.post("/api/v1/projects", json={"name": "dawn", "keywords": "regression",
                                                 "language": "en"}).status_code == 201
    no_plot = client.post(BASE, json={"slot": "cover"})
    assert no_plot.status_code == 409 and no_plot.json()["code"] == "error.server.plot_first"
    bad = client.post(BASE, json={"slot": "back cover"})
    assert bad.status_code == 422 and set(bad.json()) == {"code", "message", "hint"}
    write_one_beat(client, "dawn")
    missing = client.get(f"{BASE}/img-0000000000000000")
    assert missing.status_code == 404 and missing.json()["code"] == "error.image.unknown"
    unknown = client.put(PLACE,
                         json={"slot": "cover", "image_id": "img-0000000000000000"})
    assert unknown.status_code == 404
    assert client.get("/api/v1/projects/nope/pictures").status_code == 404


def test_another_users_pictures_are_not_found(client: TestClient) -> None:
    signup(client, "mina")
    write_one_beat(client, "dawn")
    mine = client.post(BASE, json={"slot": "cover"}).json()
    other = new_client(client.app, "jun")  # type: ignore[arg-type]
    try:
        assert other.get(BASE).status_code == 404
        assert other.get(f"{BASE}/{mine['id']}").status_code == 404
        write_one_beat(other, "dawn")  # a project of the same name, their own
        assert other.get(f"{BASE}/{mine['id']}").status_code == 404
        assert other.get(BASE).json() == []
    finally:
        other.__exit__(None, None, None)
