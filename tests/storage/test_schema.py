"""Schema versions: the migrations build what the tables define, on both engines; files made
before schema versions are adopted with every row kept; a server database that is not at this
aizac's version is refused with what to run."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import create_engine

from aizac.errors import ConfigError
from aizac.storage import schema
from aizac.storage.database import Database, server_database, sqlite_file
from aizac.storage.tables import CONCERNS, metadata
from aizac.writer.project import ProjectStore
from aizac.writer.schemas import NovelBeat, NovelPlot
from tests.fakes import beat_json, plot_json
from tests.storage import legacy


def _differences(conn: object) -> list[object]:
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext

    ctx = MigrationContext.configure(conn, opts={  # type: ignore[arg-type]
        "compare_type": True, "include_name": schema.ours})
    return list(compare_metadata(ctx, metadata))


def test_the_recorded_heads_are_the_migrations_heads() -> None:
    assert schema.migration_heads() == schema.HEADS
    assert set(schema.HEADS) == set(CONCERNS)


def test_the_migrations_build_what_the_tables_define_on_sqlite(tmp_path: Path) -> None:
    from alembic import command

    engine = create_engine(f"sqlite:///{tmp_path / 'all.sqlite3'}")
    with engine.begin() as conn:
        command.upgrade(schema.alembic_config(conn), "heads")
    with engine.connect() as conn:
        assert _differences(conn) == []
        assert schema.current(conn) == set(schema.HEADS.values())


def test_the_migrations_build_what_the_tables_define_on_postgresql(pg_url: str) -> None:
    db = server_database(pg_url)  # the test database is a copy of one `aizac db upgrade` made
    with db.engine.connect() as conn:
        assert _differences(conn) == []
        assert schema.current(conn) == set(schema.HEADS.values())


def test_a_new_embedded_file_is_what_its_migration_builds(tmp_path: Path) -> None:
    from alembic import command

    for concern, tables in CONCERNS.items():
        made = sqlite_file(tmp_path / f"{concern}.sqlite3", concern)  # create_all + stamp
        migrated = create_engine(f"sqlite:///{tmp_path / f'{concern}-migrated.sqlite3'}")
        with migrated.begin() as conn:
            command.upgrade(schema.alembic_config(conn), f"{concern}@head")
        names = {t.name for t in tables}
        with made.engine.connect() as a, migrated.connect() as b:
            assert schema.current(a) == schema.current(b) == {schema.HEADS[concern]}
            for name in names:
                assert _shape(a, name) == _shape(b, name), (concern, name)


def _shape(conn: object, table: str) -> tuple[object, ...]:
    from sqlalchemy import inspect

    info = inspect(conn)  # type: ignore[arg-type]
    return (
        [(c["name"], str(c["type"]), c["nullable"], c["default"]) for c in info.get_columns(table)],
        info.get_pk_constraint(table)["constrained_columns"],
        sorted((i["name"], tuple(i["column_names"]), bool(i["unique"]))
               for i in info.get_indexes(table)),
    )


def test_an_empty_server_database_is_refused_with_what_to_run(postgres: object) -> None:
    from tests.pg import PostgresCluster

    cluster = postgres
    assert isinstance(cluster, PostgresCluster)
    url = cluster.url("postgres")  # the maintenance database: no aizac tables
    db = Database.postgresql(url)
    try:
        with pytest.raises(ConfigError) as caught:
            db.ensure("*")
        assert "aizac db upgrade" in caught.value.english()
    finally:
        db.dispose()


# ------------------------------------------------------------------ files from before
def _legacy_project(folder: Path) -> None:
    folder.mkdir(parents=True)
    beat = json.loads(beat_json())
    with sqlite3.connect(folder / "project.sqlite3") as db:
        db.executescript(legacy.PROJECT + legacy.IMAGES)
        db.executemany("INSERT INTO meta VALUES (?, ?)", [
            ("name", "옛 이야기"), ("language", "ko"), ("genre", "회귀"),
            ("keywords", json.dumps(["회귀"], ensure_ascii=False)), ("created_at", "12.5"),
            ("schema", "1")])
        db.execute("INSERT INTO plot (id, json, tropes, memory_ids, version, updated_at) "
                   "VALUES (1, ?, 't', '[\"m0\"]', 3, 1.0)", (plot_json(),))
        for n in (1, 2, 3):
            db.execute("INSERT INTO beats (episode, idx, status, json, created_at, updated_at) "
                       "VALUES (1, ?, 'accepted', ?, 1, 1)",
                       (n, json.dumps({**beat, "episode": 1, "index": n})))
        db.execute("INSERT INTO kv (key, value, version) VALUES ('web.undo_tree', '{}', 7)")
        db.execute("INSERT INTO steps (at, kind, detail) VALUES (1, 'create', '{}')")
        db.execute("INSERT INTO episodes (number, title) VALUES (1, '첫 화')")
        db.execute("INSERT INTO images (id, kind, prompt, model, billable, file, media_type, "
                   "bytes, sha256, created_at) VALUES ('img-1', 'cover', 'p', 'typographic', 0,"
                   " 'images/img-1.png', 'image/png', 3, 'x', 1)")
        db.execute("INSERT INTO image_places VALUES ('cover', 'img-1', 1)")
    db.close()


def test_a_project_made_before_schema_versions_opens_with_everything_kept(
    tmp_path: Path,
) -> None:
    from aizac.illustration.store import ImageStore

    _legacy_project(tmp_path / "옛 이야기")
    assert ProjectStore.list_names(tmp_path) == ["옛 이야기"]
    store = ProjectStore.open(tmp_path, "옛 이야기")
    info = store.info()
    assert (info.name, info.genre, info.keywords, info.created_at) == ("옛 이야기", "회귀",
                                                                       ["회귀"], 12.5)
    plot = store.plot()
    assert plot is not None and plot.version == 3 and plot.memory_ids == ["m0"]
    assert [(b.id, b.index) for b in store.beats()] == [(1, 1), (2, 2), (3, 3)]
    assert store.kv_get("web.undo_tree") == ("{}", 7)
    assert [s.kind for s in store.steps()] == ["create"]
    assert store.episode_titles() == {1: "첫 화"}
    images = ImageStore(store)
    assert images.placements() == {"cover": "img-1"} and images.get("img-1").kind == "cover"
    new = store.add_draft(NovelBeat.model_validate({**json.loads(beat_json()), "episode": 2,
                                                    "index": 1}))
    assert new.id == 4  # numbered on from the project's own beats
    store.save_plot(NovelPlot.model_validate_json(plot_json()), expected_version=3)
    with sqlite3.connect(store.db_path) as raw:
        tables = {r[0] for r in raw.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        assert not {t for t in tables if t.startswith(schema.LEGACY_PREFIX)}
        assert raw.execute("SELECT version_num FROM alembic_version").fetchall() == [
            ("project_0001",)]
    raw.close()


def test_listing_projects_reads_a_current_file_as_is_and_adopts_one_from_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``aizac projects`` reads a file at its schema's head with sqlite3 alone; a file from
    before schema versions goes through its store, which adopts it (rows kept)."""
    from aizac.cli.studio import list_projects

    for name in ("AIZAC_DISCOVER", "AIZAC_EMBEDDING"):  # only the data directory: the quick path
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AIZAC_DATA_DIR", str(tmp_path))
    root = tmp_path / "projects"
    ProjectStore.create(root, "새 이야기", language="ko", genre="무협", keywords=["복수"])
    _legacy_project(root / "옛 이야기")
    current, infos = list_projects()
    assert current is None
    assert [(i.name, i.genre, i.keywords, i.path) for i in infos] == [
        ("옛 이야기", "회귀", ["회귀"], root / "옛 이야기"),  # created at 12.5: listed first
        ("새 이야기", "무협", ["복수"], root / "새 이야기"),
    ]
    with sqlite3.connect(root / "옛 이야기" / "project.sqlite3") as raw:
        assert raw.execute("SELECT version_num FROM alembic_version").fetchall() == [
            ("project_0001",)]
    raw.close()


def test_old_continuity_books_key_index_and_journal_are_adopted(tmp_path: Path) -> None:
    from aizac.continuity.ledger import ForeshadowingLedger
    from aizac.memory.journal import CommitJournal
    from aizac.memory.key_index import KeyIndex

    project = tmp_path / "p"
    (project / "memory").mkdir(parents=True)
    with sqlite3.connect(project / "continuity.sqlite") as db:
        db.executescript(legacy.CONTINUITY)
        db.execute("INSERT INTO threads VALUES ('m1', 'ring', 'The ring.', 1, 1, 11, 'open')")
    db.close()
    with sqlite3.connect(project / "memory" / "aizac-commits.sqlite3") as db:
        db.executescript(legacy.JOURNAL)
        db.execute("INSERT INTO commits VALUES ('novel', 'b1', 1, 'pending', ?)",
                   (json.dumps({"batch": "b1", "turn": 0}),))
    db.close()
    with sqlite3.connect(project / "memory" / "aizac-keys.sqlite3") as db:
        # an older index layout without the `created` column: a cache, rebuilt from Chroma
        db.execute("CREATE TABLE keys (coll TEXT NOT NULL, id TEXT NOT NULL, tag TEXT NOT NULL,"
                   " name TEXT NOT NULL, c1 TEXT NOT NULL, c2 TEXT NOT NULL, foreshadow INTEGER "
                   "NOT NULL, live REAL NOT NULL, PRIMARY KEY (coll, id))")
        db.execute("INSERT INTO keys VALUES ('novel', 'x', 'Story', '', '', '', 0, 1)")
    db.close()
    assert [t.text for t in ForeshadowingLedger(project).open_threads()] == ["The ring."]
    assert [s.batch for s in CommitJournal(project / "memory", "novel").with_status(
        "pending")] == ["b1"]
    assert KeyIndex(project / "memory", "novel").count() == 0


def test_a_file_that_cannot_be_adopted_says_which_table(tmp_path: Path) -> None:
    from aizac.errors import StorageError

    with sqlite3.connect(tmp_path / "project.sqlite3") as db:
        db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY)")  # no value column: not ours
    db.close()
    with pytest.raises(StorageError, match="meta"):
        sqlite_file(tmp_path / "project.sqlite3", "project")


def test_an_accounts_file_from_before_keeps_its_users_tokens_and_sessions(
    tmp_path: Path,
) -> None:
    import time

    from argon2 import PasswordHasher

    from aizac.errors import ConflictError
    from aizac.server.accounts import AccountStore, SessionStore, token_hash

    hasher = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
    path = tmp_path / "server" / "accounts.sqlite3"
    path.parent.mkdir()
    with sqlite3.connect(path) as db:  # as the server wrote it before schema versions
        db.executescript(legacy.ACCOUNTS)
        db.execute("INSERT INTO users VALUES ('u1', '미나', '미나', ?, 1.0)",
                   (hasher.hash("correct horse battery"),))
        db.execute("INSERT INTO tokens VALUES ('t1', 'u1', ?, 'script', 2.0)",
                   (token_hash("aizac_old-token"),))
        db.execute("INSERT INTO sessions VALUES (?, 'u1', ?)", (token_hash("sid"), time.time()))
    db.close()
    store = AccountStore(path, hasher=hasher, min_password_score=0)
    assert store.verify("미나", "correct horse battery") == store.user("u1")
    assert store.user_of_token("aizac_old-token") == store.user("u1")
    assert [t.label for t in store.tokens("u1")] == ["script"]
    assert SessionStore(store, 3600).user("sid") == store.user("u1")
    with pytest.raises(ConflictError):  # the name's uniqueness came along
        store.add_user("미나", "another password")
    with sqlite3.connect(path) as raw:
        assert raw.execute("SELECT version_num FROM alembic_version").fetchall() == [
            ("accounts_0001",)]
    raw.close()
