"""``POST /api/v1/projects/{name}/import``: uploaded manuscript files saved as a new project's
story through the application service, as ``aizac import --project`` saves them."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from tests.manuscript.conftest import scene_text, write_serial

NAME = "귀환한 기사"


def _files(folder: Path) -> list[tuple[str, tuple[str, bytes, str]]]:
    return [("files", (p.name, p.read_bytes(), "text/plain"))
            for p in sorted(folder.iterdir(), key=lambda p: int(p.name.split("화")[0]))]


def test_uploaded_files_become_a_new_projects_story(client: TestClient, tmp_path: Path) -> None:
    from tests.server.conftest import signup

    signup(client, "mina")
    files = _files(write_serial(tmp_path))
    made = client.post(f"/api/v1/projects/{NAME}/import", files=files,
                       data={"genre": "판타지", "merge": ["3"]})
    assert made.status_code == 201, made.text
    body = made.json()
    assert (body["episodes"], body["beats"], body["files"]) == (2, 5, ["1화.txt", "2화.txt",
                                                                       "3화.txt"])
    assert (body["project"]["name"], body["project"]["language"],
            body["project"]["genre"]) == (NAME, "ko", "판타지")
    first = client.get(f"/api/v1/projects/{NAME}/beats/1").json()
    assert (first["episode"], first["index"], first["status"]) == (1, 1, "accepted")
    assert first["prose"] == scene_text(1, 1)
    listed = client.get(f"/api/v1/projects/{NAME}/beats").json()
    assert listed["episode"] == 3 and listed["beats"] == []  # the next one goes after
    assert listed["history"]["can_undo"] is False

    again = client.post(f"/api/v1/projects/{NAME}/import", files=files[:1])
    assert again.status_code == 409
    assert client.get(f"/api/v1/projects/{NAME}/beats/1").json()["prose"] == scene_text(1, 1)


def test_a_file_aizac_cannot_read_is_refused_and_saves_nothing(
        client: TestClient, tmp_path: Path) -> None:
    from tests.server.conftest import signup

    signup(client, "mina")
    files = [*_files(write_serial(tmp_path)), ("files", ("../../옛 원고.hwp", b"HWP", "x/y"))]
    refused = client.post(f"/api/v1/projects/{NAME}/import", files=files)
    assert refused.status_code == 409, refused.text  # the writer's rules refuse it
    assert refused.json()["code"] == "error.manuscript.hwp"
    assert "옛 원고.hwp" in refused.json()["message"]
    assert client.get("/api/v1/projects").json() == []
    bad_split = client.post(f"/api/v1/projects/{NAME}/import", files=files[:1],
                            data={"split": ["x"]})
    assert bad_split.status_code == 422
    assert client.get("/api/v1/projects").json() == []
