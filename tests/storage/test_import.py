"""``aizac db import``: an embedded installation moves into PostgreSQL whole (rows, ids, undo
tree, memory's journal, a paused autopilot run), verified, and an interrupted import finishes
when run again."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest

from aizac.application.service import ApplicationService
from aizac.autopilot.runner import Autopilot
from aizac.autopilot.state import Options
from aizac.cliches import ClicheDB
from aizac.llm.embeddings import HashingEmbeddings
from aizac.settings import Settings
from aizac.storage.catalog import Catalog
from aizac.storage.database import server_database
from aizac.upkeep import importing
from aizac.upkeep.importing import import_installation
from aizac.writer.service import Studio
from tests.autopilot.fakes import JudgingModel, make_studio, planned_project
from tests.fakes import ScriptedChatModel

ROLES = ("planner", "writer", "extractor", "reviewer")
USER = uuid.uuid4().hex


@pytest.fixture(scope="module")
def cliches() -> ClicheDB:
    return ClicheDB(embeddings=HashingEmbeddings())


def _studio(settings: Settings, cliches: ClicheDB, namespace: str | None = None) -> Studio:
    return Studio(settings, models=dict.fromkeys(ROLES, ScriptedChatModel()),
                  embeddings=HashingEmbeddings(), cliches=cliches, beats_per_episode=3,
                  chroma_namespace=namespace)


def _installation(source: Path, cliches: ClicheDB) -> dict[str, Any]:
    """A single writer's project with two accepted beats and a draft (an undo tree), and a
    user's project whose autopilot run waits at its plan gate."""
    studio = _studio(Settings(data_dir=source, language="en"), cliches)
    web = ApplicationService(studio, export_dir=source / "exports")
    web.create_project("혼자 쓰는 이야기", genre="회귀", keywords=["회귀", "복수"], language="en")
    name = "혼자 쓰는 이야기"
    web.generate_plot(name)
    for _ in range(2):
        draft = web.next_beat(name)
        web.accept(name, draft.id, draft.version)
    web.next_beat(name)
    before = [(b.id, b.status, b.version, b.summary) for b in web.agent(name).store.beats()]
    turn = web.agent(name).memory.turn
    studio.close()
    _, agent = planned_project(source / "users" / USER, JudgingModel(), name="saga")
    pilot = Autopilot(agent)
    waiting = pilot.start(Options(episodes=1, gates=("plan",)))
    assert waiting.status == "waiting"
    pilot.close()
    return {"name": name, "beats": before, "turn": turn, "run": waiting.run_id}


def test_an_installation_moves_whole_and_a_second_run_only_checks(
    tmp_path: Path, pg_url: str, cliches: ClicheDB
) -> None:
    source = tmp_path / "data"
    made = _installation(source, cliches)
    target = Settings(data_dir=source, language="en", database_url=pg_url, embedding="hash")
    report = import_installation(source, target)
    assert report.clean, [p.problems for p in report.projects]
    assert sorted((p.owner, p.name, p.status) for p in report.projects) == [
        ("", made["name"], "imported"), (USER, "saga", "imported")]
    assert all(p.rows > 0 for p in report.projects)
    assert [p.checkpoints > 0 for p in report.projects if p.owner] == [True]

    again = import_installation(source, target)  # nothing doubles; both are checked again
    assert again.clean and {p.status for p in again.projects} == {"verified"}
    assert [p.rows for p in again.projects] == [p.rows for p in report.projects]

    # The single writer's project on PostgreSQL: same ids, versions and summaries; the undo
    # tree and the memory's journal came along, so an undo works as it did before.
    web = ApplicationService(_studio(target, cliches), export_dir=source / "exports")
    assert web.list_projects() == [made["name"]]
    agent = web.agent(made["name"])
    assert agent.store.server
    assert [(b.id, b.status, b.version, b.summary) for b in agent.store.beats()] == made["beats"]
    assert agent.memory.turn == made["turn"] == 2
    assert web.history(made["name"]).can_undo
    web.undo(made["name"])  # the draft goes
    web.undo(made["name"])  # the second accept is taken back
    assert agent.store.count_beats("accepted") == 1 and agent.memory.turn == 1
    draft = web.next_beat(made["name"])
    web.accept(made["name"], draft.id, draft.version)
    assert agent.memory.turn == 2

    # The user's paused run resumes from its checkpoint in the database's saver.
    user = make_studio(source / "users" / USER, JudgingModel(), database_url=pg_url,
                       chroma_namespace=USER)
    saga = user.open("saga")
    pilot = Autopilot(saga)
    assert pilot.runs.run().id == made["run"]
    done = pilot.resume(made["run"], answer="approve")
    pilot.close()
    assert done.status == "finished" and saga.store.count_beats("accepted") == 2


class Killed(BaseException):
    """The import process killed (nothing may catch it)."""


def test_an_interrupted_import_leaves_nothing_half_moved_and_finishes_when_run_again(
    tmp_path: Path, pg_url: str, cliches: ClicheDB, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "data"
    _installation(source, cliches)
    target = Settings(data_dir=source, language="en", database_url=pg_url, embedding="hash")
    real, calls = importing._copy_table, [0]

    def dying(*args: Any) -> None:
        calls[0] += 1
        if calls[0] == 4:  # inside the first project's transaction, some tables copied
            raise Killed
        real(*args)

    monkeypatch.setattr(importing, "_copy_table", dying)
    with pytest.raises(Killed):
        import_installation(source, target)
    db = server_database(pg_url)
    assert Catalog(db, "").names() == [] and Catalog(db, USER).names() == []
    monkeypatch.setattr(importing, "_copy_table", real)
    report = import_installation(source, target)
    assert report.clean and {p.status for p in report.projects} == {"imported"}


def test_a_project_of_the_same_name_already_on_the_database_is_not_overwritten(
    tmp_path: Path, pg_url: str, cliches: ClicheDB
) -> None:
    source = tmp_path / "data"
    made = _installation(source, cliches)
    target = Settings(data_dir=tmp_path / "elsewhere", language="en", database_url=pg_url,
                      embedding="hash")
    _studio(target, cliches).create(made["name"], "회귀", language="ko")  # made there first
    report = import_installation(source, target)
    mine = next(p for p in report.projects if p.name == made["name"])
    assert mine.status == "conflict" and not report.clean
    assert _studio(target, cliches).open(made["name"]).info.language == "ko"  # untouched


def test_the_accounts_move_with_their_tokens_and_sessions_and_a_taken_name_is_reported(
    tmp_path: Path, pg_url: str
) -> None:
    from argon2 import PasswordHasher

    from aizac.server.accounts import AccountStore, SessionStore

    hasher = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
    source = tmp_path / "data"
    old = AccountStore(source / "server" / "accounts.sqlite3", hasher=hasher,
                       min_password_score=0)
    mina, jun = old.add_user("미나", "correct horse battery"), old.add_user("jun", "pass word 1")
    secret, _ = old.new_token(mina.id, "script")
    sid = SessionStore(old, 3600).start(mina.id)
    jun_token, _ = old.new_token(jun.id, "jun's")
    target = Settings(data_dir=tmp_path / "new", language="en", database_url=pg_url)
    server = AccountStore.open(target, hasher=hasher, min_password_score=0)
    assert server.path is None
    taken = server.add_user("JUN", "someone else")  # the name is the database's already

    report = import_installation(source, target)
    assert report.accounts == {"users": 1, "tokens": 1, "sessions": 1}
    assert len(report.account_problems) == 2 and not report.clean  # jun and jun's token
    assert all("jun" in p for p in report.account_problems[:1])
    assert server.verify("미나", "correct horse battery") == mina
    assert server.user_of_token(secret) == mina
    assert SessionStore(server, 3600).user(sid) == mina
    assert server.user_of_token(jun_token) is None  # never handed to the other jun
    assert server.verify("jun", "someone else") == taken

    again = import_installation(source, target)  # a rerun moves nothing twice
    assert again.accounts == report.accounts
    assert sorted(u.name for u in server.users()) == ["JUN", "미나"]
