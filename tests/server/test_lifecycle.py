"""An account's life over HTTP and ``aizac users``: change password, admin reset, disable,
log out everywhere, export, delete (sandbox and memory too), the admin role (only an admin
creates accounts when sign-up is off; the last admin stays), and deleting a project."""

from __future__ import annotations

import contextlib
import io
import json
import sqlite3
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
import typer
from fastapi import FastAPI
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from aizac.cli import serve
from tests.server.conftest import PASSWORD, browser, new_client, signup, write_one_beat
from tests.server.test_api import sse_events

pytestmark = pytest.mark.timeout(600)
NEW = "another long passphrase"


def _admin(app: FastAPI, name: str = "boss") -> TestClient:
    """A signed-in admin (made the way an operator makes the first one: the store)."""
    app.state.aizac.accounts.add_user(name, PASSWORD, role="admin")
    c = browser(app)
    c.__enter__()
    assert c.post("/api/v1/auth/login", json={"name": name, "password": PASSWORD}
                  ).status_code == 200
    return c


def test_change_password_ends_the_other_sessions(app: FastAPI) -> None:
    mina = new_client(app, "mina")
    other = browser(app)
    other.post("/api/v1/auth/login", json={"name": "mina", "password": PASSWORD})
    wrong = mina.post("/api/v1/auth/password", json={"current": "not it", "new": NEW})
    assert wrong.status_code == 403 and wrong.json()["code"] == "error.server.password_wrong"
    weak = mina.post("/api/v1/auth/password", json={"current": PASSWORD, "new": "password1"})
    assert weak.status_code == 422
    assert mina.post("/api/v1/auth/password", json={"current": PASSWORD, "new": NEW}
                     ).status_code == 204
    assert mina.get("/api/v1/auth/me").status_code == 200  # this session stays
    assert other.get("/api/v1/auth/me").status_code == 401  # the other one ended
    with browser(app) as fresh:
        assert fresh.post("/api/v1/auth/login", json={"name": "mina", "password": PASSWORD}
                          ).status_code == 401
        assert fresh.post("/api/v1/auth/login", json={"name": "mina", "password": NEW}
                          ).status_code == 200


def test_a_password_change_ends_every_other_credential(app: FastAPI) -> None:
    """Issue 38 item 1: a token minted before the change answered 200 on /auth/me after it.
    Every other credential ends now: sessions and tokens; the one that made the change stays."""
    mina = new_client(app, "mina")
    minted = [mina.post("/api/v1/auth/tokens", json={"label": f"t{n}"}).json()["token"]
              for n in range(2)]
    other = browser(app)
    other.post("/api/v1/auth/login", json={"name": "mina", "password": PASSWORD})

    def me(token: str) -> int:
        with TestClient(app) as script:
            return script.get("/api/v1/auth/me",
                              headers={"Authorization": f"Bearer {token}"}).status_code

    assert [me(t) for t in minted] == [200, 200]
    assert mina.post("/api/v1/auth/password", json={"current": PASSWORD, "new": NEW}
                     ).status_code == 204
    assert [me(t) for t in minted] == [401, 401]  # revoked with the old password
    assert other.get("/api/v1/auth/me").status_code == 401
    assert mina.get("/api/v1/auth/me").status_code == 200  # the session that changed it

    # A change made with a token keeps that token; every session and other token ends.
    kept, gone = (mina.post("/api/v1/auth/tokens", json={}).json()["token"] for _ in range(2))
    with TestClient(app, headers={"Authorization": f"Bearer {kept}"}) as script:
        assert script.post("/api/v1/auth/password", json={"current": NEW, "new": PASSWORD}
                           ).status_code == 204
    assert (me(kept), me(gone)) == (200, 401)
    assert mina.get("/api/v1/auth/me").status_code == 401


def test_log_out_everywhere(app: FastAPI) -> None:
    mina = new_client(app, "mina")
    other = browser(app)
    other.post("/api/v1/auth/login", json={"name": "mina", "password": PASSWORD})
    ended = mina.delete("/api/v1/auth/sessions")
    assert ended.status_code == 200 and ended.json() == {"count": 2}
    assert mina.get("/api/v1/auth/me").status_code == 401
    assert other.get("/api/v1/auth/me").status_code == 401


def test_only_an_admin_administers(make_app: Callable[..., FastAPI]) -> None:
    app = make_app(signup=False)
    admin = _admin(app)
    made = admin.post("/api/v1/admin/users", json={"name": "mina", "password": PASSWORD})
    assert made.status_code == 201 and made.json()["role"] == "user"
    with browser(app) as mina:
        assert mina.post("/api/v1/auth/signup", json={"name": "jun", "password": PASSWORD}
                         ).json()["code"] == "error.server.signup_off"
        mina.post("/api/v1/auth/login", json={"name": "mina", "password": PASSWORD})
        for method, path in [("GET", "/api/v1/admin/users"), ("POST", "/api/v1/admin/users"),
                             ("DELETE", f"/api/v1/admin/users/{made.json()['id']}")]:
            reply = mina.request(method, path, json={"name": "x1", "password": PASSWORD})
            assert reply.status_code == 403, (method, path)
            assert reply.json()["code"] == "error.server.admin_only"
    names = [u["name"] for u in admin.get("/api/v1/admin/users").json()]
    assert names == ["boss", "mina"]


def test_admin_reset_and_disable(app: FastAPI) -> None:
    admin = _admin(app)
    mina = new_client(app, "mina")
    mina_id = mina.get("/api/v1/auth/me").json()["id"]
    token = mina.post("/api/v1/auth/tokens", json={}).json()["token"]
    bearer = {"Authorization": f"Bearer {token}"}
    off = admin.patch(f"/api/v1/admin/users/{mina_id}", json={"disabled": True})
    assert off.status_code == 200 and off.json()["disabled"] is True
    assert mina.get("/api/v1/auth/me").status_code == 401
    with TestClient(app) as script:
        assert script.get("/api/v1/projects", headers=bearer).status_code == 401
    with browser(app) as again:
        refused = again.post("/api/v1/auth/login", json={"name": "mina", "password": PASSWORD})
        assert refused.status_code == 403
        assert refused.json()["code"] == "error.server.account_disabled"
    admin.patch(f"/api/v1/admin/users/{mina_id}", json={"disabled": False})
    with TestClient(app) as script:
        assert script.get("/api/v1/projects", headers=bearer).status_code == 200
    assert admin.put(f"/api/v1/admin/users/{mina_id}/password", json={"password": NEW}
                     ).status_code == 204
    with TestClient(app) as script:
        assert script.get("/api/v1/projects", headers=bearer).status_code == 401  # revoked
    with browser(app) as again:
        assert again.post("/api/v1/auth/login", json={"name": "mina", "password": NEW}
                          ).status_code == 200


def test_the_last_admin_stays(app: FastAPI) -> None:
    admin = _admin(app)
    boss_id = admin.get("/api/v1/auth/me").json()["id"]
    for method, path, body in [("PATCH", f"/api/v1/admin/users/{boss_id}", {"disabled": True}),
                               ("PATCH", f"/api/v1/admin/users/{boss_id}", {"role": "user"}),
                               ("DELETE", f"/api/v1/admin/users/{boss_id}", None)]:
        reply = admin.request(method, path, json=body)
        assert reply.status_code == 409 and reply.json()["code"] == "error.server.last_admin"
    assert admin.get("/api/v1/auth/me").json()["role"] == "admin"


def test_export_a_users_data(app: FastAPI) -> None:
    mina = new_client(app, "mina")
    beat = write_one_beat(mina, "두번째 삶")
    sse_events(mina.post(f"/api/v1/projects/두번째 삶/beats/{beat['id']}/prose").text)
    mina.post("/api/v1/projects/두번째 삶/exports", json={"format": "md", "filename": "draft"})
    reply = mina.get("/api/v1/auth/export")
    assert reply.status_code == 200 and reply.headers["content-type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(reply.content))
    names = set(archive.namelist())
    assert {"account.json", "projects/두번째 삶/project.sqlite3",
            "projects/두번째 삶/memories.json", "exports/두번째 삶/draft.md"} <= names
    with tempfile.TemporaryDirectory() as folder:  # the rows, as an embedded project keeps them
        copy = Path(folder) / "project.sqlite3"
        copy.write_bytes(archive.read("projects/두번째 삶/project.sqlite3"))
        with contextlib.closing(sqlite3.connect(copy)) as db:
            beats = db.execute("SELECT project, status, prose FROM beats").fetchall()
            names = {v for (v,) in db.execute("SELECT value FROM meta WHERE key = 'name'")}
    assert [(p, s, bool(t)) for p, s, t in beats] == [("", "accepted", True)]
    assert names == {"두번째 삶"}
    memories = json.loads(archive.read("projects/두번째 삶/memories.json"))
    assert memories and all("text" in m for m in memories)
    assert json.loads(archive.read("account.json"))["name"] == "mina"
    box = app.state.aizac.sandboxes.cached(mina.get("/api/v1/auth/me").json()["id"])
    assert not list((box.root / "spool").iterdir())  # the spooled zip went after the download


def test_delete_a_user_with_their_sandbox(app: FastAPI) -> None:
    admin = _admin(app)
    mina = new_client(app, "mina")
    mina_id = mina.get("/api/v1/auth/me").json()["id"]
    write_one_beat(mina, "novel")
    root = Path(app.state.aizac.sandboxes.users_root) / mina_id
    url = app.state.aizac.sandboxes.settings.database
    if url is None:
        assert (root / "projects" / "novel" / "project.sqlite3").is_file()
    else:
        keys = project_keys(url, mina_id)
        assert server_rows(url, keys) > 0
    assert admin.delete(f"/api/v1/admin/users/{mina_id}").status_code == 204
    assert not root.exists()
    if url is not None:  # every row of her projects, in every table, went with her
        assert server_rows(url, keys) == 0
    assert not list(root.parent.glob(f".deleted-{mina_id}*"))
    assert mina.get("/api/v1/auth/me").status_code == 401
    assert admin.get(f"/api/v1/admin/users/{mina_id}").status_code == 404
    again = new_client(app, "mina")  # the name is free again, with an empty sandbox
    assert again.get("/api/v1/projects").json() == []


# -------------------------------------------------------------------------------- projects
def project_keys(url: str, owner: str) -> list[str]:
    """The keys of ``owner``'s projects on the server database."""
    from sqlalchemy import select

    from aizac.storage.database import server_database
    from aizac.storage.tables import projects

    with server_database(url).read() as conn:
        return list(conn.execute(select(projects.c.id).where(projects.c.owner == owner))
                    .scalars())


def server_rows(url: str, keys: list[str]) -> int:
    """How many rows the projects ``keys`` have on the server database, over every table of
    a project and the catalog."""
    from sqlalchemy import func, select

    from aizac.storage.database import server_database
    from aizac.storage.tables import CONCERNS, PROJECT_CONCERNS, projects

    assert keys
    total = 0
    with server_database(url).read() as conn:
        for table in [projects, *(t for c in PROJECT_CONCERNS for t in CONCERNS[c])]:
            column = table.c.id if table is projects else table.c.project
            total += int(conn.execute(select(func.count()).select_from(table).where(
                column.in_(keys))).scalar() or 0)
    return total


def test_delete_a_project(app: FastAPI) -> None:
    """The issue: DELETE was 405 while the quota message said to delete a project."""
    mina, jun = new_client(app, "mina"), new_client(app, "jun")
    write_one_beat(mina, "novel")
    url = app.state.aizac.sandboxes.settings.database
    mina_id = mina.get("/api/v1/auth/me").json()["id"]
    keys = project_keys(url, mina_id) if url is not None else []
    if url is not None:
        assert server_rows(url, keys) > 0
    mina.post("/api/v1/projects/novel/exports", json={"format": "txt", "filename": "draft"})
    assert jun.delete("/api/v1/projects/novel").status_code == 404  # not his
    assert mina.get("/api/v1/projects/novel").status_code == 200
    assert mina.delete("/api/v1/projects/novel").status_code == 204
    assert mina.get("/api/v1/projects").json() == []
    assert mina.get("/api/v1/projects/novel").status_code == 404
    if url is not None:  # every row of it, in every table
        assert server_rows(url, keys) == 0
    box = app.state.aizac.sandboxes.cached(mina_id)
    assert not (box.export_dir / "novel").exists()
    assert not list((box.root / "projects").glob(".deleted-*"))
    again = mina.post("/api/v1/projects", json={"name": "novel", "keywords": "sea"})
    assert again.status_code == 201  # a new project under the old name starts empty
    assert mina.get("/api/v1/projects/novel/memories").json() == []
    assert mina.post("/api/v1/projects/novel/plot/generate").status_code == 200


def test_a_duplicate_project_name_is_a_conflict(client: TestClient) -> None:
    signup(client, "mina")
    assert client.post("/api/v1/projects", json={"name": "novel", "keywords": "a"}
                       ).status_code == 201
    dup = client.post("/api/v1/projects", json={"name": "novel", "keywords": "a"})
    assert dup.status_code == 409 and dup.json()["code"] == "error.server.project_exists"


def test_the_project_limit_names_deletion(make_app: Callable[..., FastAPI]) -> None:
    app = make_app(max_projects=1)
    with browser(app) as c:
        signup(c, "mina")
        c.post("/api/v1/projects", json={"name": "one", "keywords": "a"})
        full = c.post("/api/v1/projects", json={"name": "two", "keywords": "a"})
        assert full.status_code == 429 and "DELETE /api/v1/projects" in full.json()["hint"]
        assert c.delete("/api/v1/projects/one").status_code == 204
        assert c.post("/api/v1/projects", json={"name": "two", "keywords": "a"}
                      ).status_code == 201


# ------------------------------------------------------------------------------------- CLI
def _cli() -> typer.Typer:
    app = typer.Typer()
    serve.register(app)
    return app


def test_aizac_users_manages_accounts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     database_url: str | None) -> None:
    monkeypatch.setenv("AIZAC_DATA_DIR", str(tmp_path / "data"))
    if database_url is not None:
        monkeypatch.setenv("AIZAC_DATABASE_URL", database_url)
    from aizac.settings import get_settings

    get_settings.cache_clear()
    runner = CliRunner()

    def run(*args: str, stdin: str | None = None) -> str:
        result = runner.invoke(_cli(), ["users", *args], input=stdin)
        assert result.exit_code == 0, result.output
        return result.output

    assert "admin" in run("add", "boss", "--admin", "--password-stdin", stdin=f"{PASSWORD}\n")
    run("add", "mina", "--password-stdin", stdin=f"{PASSWORD}\n")
    weak = runner.invoke(_cli(), ["users", "add", "jun", "--password-stdin"],
                         input="password\n")
    assert weak.exit_code == 1 and "guess" in weak.output
    listed = run("list").splitlines()
    assert [line.split("\t")[2:] for line in listed] == [["admin", "active"], ["user", "active"]]
    run("passwd", "mina", "--password-stdin", stdin=f"{NEW}\n")
    run("disable", "mina")
    assert run("list").splitlines()[1].endswith("disabled")
    run("enable", "mina")
    run("role", "mina", "admin")
    assert run("logout", "mina").startswith("logged mina out")
    made = tmp_path / "mina.zip"
    run("export", "mina", "--output", str(made))
    assert "account.json" in zipfile.ZipFile(made).namelist()
    store = serve._store()
    mina = store.by_name("mina")
    projects = tmp_path / "data" / "users" / mina.id / "projects"
    projects.mkdir(parents=True)
    keys: list[str] = []
    if database_url is not None:  # a project of hers on the database goes with her
        from aizac.storage.catalog import Catalog
        from aizac.storage.database import server_database
        from aizac.writer.project import ProjectStore

        catalog = Catalog(server_database(database_url), mina.id)
        ProjectStore.create(projects, "novel", language="en", catalog=catalog)
        keys = project_keys(database_url, mina.id)
        assert server_rows(database_url, keys) > 0
    run("delete", "mina", "--yes")
    if database_url is not None:
        assert server_rows(database_url, keys) == 0
    assert len(run("list").splitlines()) == 1
    last = runner.invoke(_cli(), ["users", "delete", "boss", "--yes"])
    assert last.exit_code == 1 and "last administrator" in last.output
    get_settings.cache_clear()
