"""``POST /api/v1/projects/{name}/read``: an imported manuscript read into memory through the
application service, as ``aizac read`` reads it; resumable, with a budget."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.fakes.reading import ReadingModel
from tests.manuscript.test_memory_from_manuscript import NAME, write_story
from tests.server.conftest import Models


class Readers(Models):
    """A model per user that reads the Korean scenes of ``write_story``."""

    def of(self, user_id: str) -> ReadingModel:  # type: ignore[override]
        if user_id not in self.by_user:
            reader = ReadingModel()
            reader.speak_korean()
            self.by_user[user_id] = reader
        return self.by_user[user_id]  # type: ignore[return-value]


@pytest.fixture
def models() -> Models:
    return Readers()


def test_an_imported_manuscript_is_read_with_a_budget_then_resumed(
        client: TestClient, tmp_path: Path) -> None:
    from tests.server.conftest import signup

    signup(client, "mina")
    files = [("files", (p.name, p.read_bytes(), "text/plain"))
             for p in sorted(write_story(tmp_path).iterdir())]
    assert client.post(f"/api/v1/projects/{NAME}/import", files=files).status_code == 201
    stopped = client.post(f"/api/v1/projects/{NAME}/read", json={"budget_tokens": 1})
    assert stopped.status_code == 200, stopped.text
    body = stopped.json()
    assert (body["stopped"], body["next_scene"], body["read_now"]) == ("budget", "1-1", 0)
    assert any("aizac read --project" in line for line in body["said"])
    done = client.post(f"/api/v1/projects/{NAME}/read")
    assert done.status_code == 200, done.text
    body = done.json()
    assert (body["read_now"], body["scenes_read"], body["read_through"], body["stopped"]) == (
        6, 6, 3, "")
    assert body["memories"] > 6 and body["calls"] == 6 * 6
    first = client.get(f"/api/v1/projects/{NAME}/beats/1").json()
    assert first["beat"]["characters"] == ["한서아"]
    assert client.post(f"/api/v1/projects/{NAME}/read",
                       json={"budget_tokens": 0}).status_code == 422


def test_a_project_without_an_import_is_409(client: TestClient) -> None:
    from tests.server.conftest import signup

    signup(client, "mina")
    made = client.post("/api/v1/projects", json={"name": "빈", "genre": "", "keywords": "회귀",
                                                 "language": "ko"})
    assert made.status_code == 201, made.text
    refused = client.post("/api/v1/projects/빈/read")
    assert refused.status_code == 409
    assert refused.json()["code"] == "error.read.not_imported_project"
    assert client.post("/api/v1/projects/없음/read").status_code == 404
