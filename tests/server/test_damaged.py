"""What the server answers when a stored file is damaged or a dependency is down (issue 37,
items 2 and 5): the user's project list is 200 with the damaged project marked, that project's
calls answer the error shape with their own code (the file named from the project's folder, no
server folder, no Chroma-internal words), the other projects work; a database that went down
is 503 with Retry-After, never "the disk may be full", and the same process goes on when it
is back."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from fastapi import FastAPI

from tests.server.conftest import browser, signup, write_one_beat

INTERNAL = ("RustBindings", "bindings", "Error executing plan", "code: 11", "Traceback",
            "disk may be full", "free space")


def _junk_inside(path: Path) -> None:
    size = path.stat().st_size
    with open(path, "r+b") as f:
        f.seek(4096)
        f.write(os.urandom(size - 4096))


@pytest.mark.parametrize("variant", ["chroma-damaged", "chroma-missing", "project-zero"])
def test_a_damaged_project_is_listed_marked_and_the_others_work(
    make_app: Callable[..., FastAPI], variant: str, engine: str, tmp_path: Path
) -> None:
    if engine == "postgresql" and variant == "project-zero":
        pytest.skip("the project's rows are on the database")
    app = make_app()
    with browser(app) as c:
        user = signup(c, "mina")
        write_one_beat(c, "good")
        write_one_beat(c, "bad")
    folder = tmp_path / "data" / "users" / user / "projects" / "bad"
    if variant == "chroma-damaged":
        _junk_inside(folder / "memory" / "chroma.sqlite3")
    elif variant == "chroma-missing":
        (folder / "memory" / "chroma.sqlite3").unlink()
    else:
        (folder / "project.sqlite3").write_bytes(b"")
    damaged = "bad/project.sqlite3" if variant == "project-zero" else "bad/memory/chroma.sqlite3"

    with browser(make_app()) as c:  # a server started on the damaged data
        assert c.post("/api/v1/auth/login", json={"name": "mina", "password":
                                                   "correct horse battery"}).status_code == 200
        for _ in range(2):  # asked twice in one process: the same clear answer
            one = c.get("/api/v1/projects/bad/beats")
            assert one.status_code == 500, one.text
            body = one.json()
            assert set(body) == {"code", "message", "hint"}
            assert body["code"] == "error.store.damaged"
            assert damaged in body["message"] and str(tmp_path) not in one.text
            assert not any(word in one.text for word in INTERNAL), one.text
        listed = c.get("/api/v1/projects")
        assert listed.status_code == 200, listed.text
        status = {p["name"]: (p["status"], p["problem"]) for p in listed.json()}
        assert status["good"] == ("ok", None)
        assert status["bad"][0] == "damaged" and status["bad"][1]["code"] == "error.store.damaged"
        assert damaged in status["bad"][1]["message"]
        beat = c.post("/api/v1/projects/good/beats/next").json()  # the others work
        good = c.post(f"/api/v1/projects/good/beats/{beat['id']}/accept",
                      json={"version": beat["version"]})
        assert good.status_code == 200 and good.json()["status"] == "accepted", good.text
        assert c.get("/api/v1/projects/good/beats").status_code == 200
        exported = c.get("/api/v1/auth/export")  # the user's own copy: the damaged one too
        assert exported.status_code == 200, exported.text
        import io
        import json
        import zipfile

        with zipfile.ZipFile(io.BytesIO(exported.content)) as archive:
            names = archive.namelist()
            assert json.loads(archive.read("account.json"))["damaged_projects"] == ["bad"]
        assert any(n.startswith("projects/bad/") for n in names)
        assert any(n.startswith("projects/good/") for n in names)
    assert folder.is_dir() and (folder / "memory").is_dir()  # nothing of it was removed


def test_the_database_down_is_503_with_retry_after_and_the_process_goes_on(
    make_app: Callable[..., FastAPI], engine: str, tmp_path: Path
) -> None:
    if engine == "sqlite":
        pytest.skip("a database server that goes down")
    from tests.pg import PostgresCluster, available

    if not available():
        pytest.fail("PostgreSQL's initdb/pg_ctl are missing")
    cluster = PostgresCluster().start()
    try:
        from aizac.server import ServerConfig, create_app
        from aizac.settings import Settings
        from tests.server.conftest import ROLES, fast_accounts

        settings = Settings(data_dir=tmp_path / "own", language="en", structured_retries=1,
                            transient_retries=0, database_url=cluster.fresh())
        from pydantic import SecretStr

        from aizac.llm.embeddings import HashingEmbeddings
        from aizac.writer.service import Studio
        from tests.fakes import ScriptedChatModel

        model = ScriptedChatModel()

        def factory(user_settings: Settings, user_id: str) -> Studio:
            return Studio(user_settings, models=dict.fromkeys(ROLES, model),
                          embeddings=HashingEmbeddings(), beats_per_episode=3, owner_wait=0.5)

        app = create_app(settings, config=ServerConfig(secret_key=SecretStr("s")),
                         studio_factory=factory, accounts=fast_accounts(settings))
        with browser(app) as c:
            signup(c, "mina")
            draft = write_one_beat(c, "novel", accept=False)
            cluster.pause()
            for ask in (lambda: c.post(f"/api/v1/projects/novel/beats/{draft['id']}/accept",
                                       json={"version": draft["version"]}),
                        lambda: c.get("/api/v1/projects/novel/beats")):
                reply = ask()
                assert reply.status_code == 503, reply.text
                assert int(reply.headers["Retry-After"]) > 0
                assert reply.json()["code"] == "error.server.database_down"
                assert not any(word in reply.text for word in INTERNAL), reply.text
            cluster.resume()
            again = c.post(f"/api/v1/projects/novel/beats/{draft['id']}/accept",
                           json={"version": draft["version"]})
            assert again.status_code == 200, again.text  # the same process goes on
    finally:
        cluster.stop()
