from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from aizac.errors import ConflictError, InvalidInputError, NotFoundError, StorageError
from aizac.storage.tables import kv as t_kv
from aizac.writer.project import ProjectStore, validate_project_name
from aizac.writer.schemas import NovelBeat, NovelPlot
from tests.fakes import beat_json, plot_json

from .conftest import twin

if TYPE_CHECKING:
    from aizac.storage.catalog import Catalog


def beat(episode: int = 1, index: int = 1, location: str = "Seoul gate") -> NovelBeat:
    data = json.loads(beat_json())
    data.update(episode=episode, index=index, location=location)
    return NovelBeat.model_validate(data)


# Every test here runs on both engines (the `catalog` fixture: embedded SQLite, PostgreSQL).
@pytest.fixture
def store(tmp_path: Path, catalog: Catalog | None) -> ProjectStore:
    return ProjectStore.create(tmp_path, "회귀 novel", language="ko", keywords=["회귀"],
                               catalog=catalog)


@pytest.mark.parametrize("name", ["", "../x", "a/b", "a\\b", ".hidden", "x" * 65, "a..b", "_x"])
def test_bad_project_names_are_rejected(
    tmp_path: Path, name: str, catalog: Catalog | None
) -> None:
    with pytest.raises(InvalidInputError):
        ProjectStore.create(tmp_path, name, language="ko", catalog=catalog)
    assert list(tmp_path.iterdir()) == []
    assert ProjectStore.list_names(tmp_path, catalog=catalog) == []


def test_names_create_open_and_list(
    tmp_path: Path, store: ProjectStore, catalog: Catalog | None
) -> None:
    assert validate_project_name("  회귀 novel ") == "회귀 novel"
    assert ProjectStore.list_names(tmp_path, catalog=catalog) == ["회귀 novel"]
    assert ProjectStore.open(tmp_path, "회귀 novel", catalog=catalog).info().keywords == ["회귀"]
    with pytest.raises(InvalidInputError):
        ProjectStore.create(tmp_path, "회귀 novel", language="ko", catalog=catalog)
    with pytest.raises(NotFoundError):
        ProjectStore.open(tmp_path, "missing", catalog=catalog)


def test_two_owners_have_separate_projects_and_rows(tmp_path: Path, pg_url: str) -> None:
    # On the server database every user's projects sit in one set of tables: a name is per
    # owner, and one project's key never reads another's rows.
    from aizac.storage.catalog import Catalog
    from aizac.storage.database import server_database

    db = server_database(pg_url)
    alice = ProjectStore.create(tmp_path / "a", "saga", language="ko",
                                catalog=Catalog(db, "alice"))
    bob = ProjectStore.create(tmp_path / "b", "saga", language="en", catalog=Catalog(db, "bob"))
    mine = alice.add_draft(beat())
    assert bob.beats() == [] and bob.info().language == "en"
    with pytest.raises(NotFoundError):
        bob.beat(mine.id)  # bob cannot reach alice's beat by its id
    with pytest.raises(NotFoundError):
        bob.set_status(mine.id, "accepted")
    assert alice.beat(mine.id).status == "draft"
    assert ProjectStore.list_names(tmp_path, catalog=Catalog(db, "bob")) == ["saga"]


def test_plot_versions_and_stale_edits(store: ProjectStore) -> None:
    plot = NovelPlot.model_validate_json(plot_json())
    assert store.save_plot(plot, tropes="t", memory_ids=["a"]) == 1
    record = store.plot()
    assert record is not None and record.version == 1 and record.memory_ids == ["a"]
    edited = plot.model_copy(update={"title": "New"})
    assert store.save_plot(edited, expected_version=1) == 2
    with pytest.raises(ConflictError):
        store.save_plot(plot, expected_version=1)  # a stale tab
    again = store.plot()
    assert again is not None and again.plot.title == "New" and again.memory_ids == ["a"]


def test_beat_lifecycle_and_optimistic_versions(store: ProjectStore) -> None:
    draft = store.add_draft(beat())
    assert (draft.status, draft.version) == ("draft", 1)
    with pytest.raises(ConflictError):
        store.add_draft(beat())  # the slot is taken
    edited = store.update_draft(draft.id, beat(location="Busan"), expected_version=1)
    assert edited.version == 2 and edited.beat.location == "Busan"
    with pytest.raises(ConflictError):
        store.update_draft(draft.id, beat(location="Stale"), expected_version=1)
    assert store.beat(draft.id).beat.location == "Busan"
    with pytest.raises(InvalidInputError):
        store.update_draft(draft.id, beat(index=2))  # cannot move
    with pytest.raises(InvalidInputError):
        store.save_prose(draft.id, "text")  # not accepted yet
    accepted = store.set_status(draft.id, "accepted", memory_ids=["m1"], summary="s")
    with pytest.raises(InvalidInputError):
        store.update_draft(draft.id, beat())
    with_prose = store.save_prose(draft.id, "prose", expected_version=accepted.version)
    assert with_prose.prose == "prose" and with_prose.memory_ids == ["m1"]
    # A rejected beat frees its slot.
    other = store.add_draft(beat(index=2))
    store.set_status(other.id, "rejected")
    assert store.add_draft(beat(index=2)).id != other.id
    kinds = [s.kind for s in store.steps()]
    assert kinds[:3] == ["beat", "rejected", "beat"] and kinds[-1] == "create"


def test_failed_transaction_writes_nothing(store: ProjectStore) -> None:
    with pytest.raises(RuntimeError), store._tx() as db:
        db.execute(t_kv.insert().values(project=store.key, key="k", value="v"))
        raise RuntimeError("killed mid-step")
    assert store.kv_get("k") is None


def test_kv_slot_is_versioned(store: ProjectStore) -> None:
    assert store.kv_set("undo_tree", "{}", expected_version=0) == 1
    with pytest.raises(ConflictError):
        store.kv_set("undo_tree", "{}", expected_version=0)
    assert store.kv_set("undo_tree", '{"n": 1}', expected_version=1) == 2
    assert store.kv_get("undo_tree") == ('{"n": 1}', 2)


def test_two_writers_never_lose_an_update(store: ProjectStore) -> None:
    # Two sessions (separate store objects, like two tabs) increment one counter with
    # read-modify-write under optimistic versions, retrying on conflict.
    store.kv_set("n", "0")
    other = twin(store)
    errors: list[BaseException] = []

    def bump(s: ProjectStore) -> None:
        try:
            for _ in range(25):
                while True:
                    value, version = s.kv_get("n") or ("0", 0)
                    try:
                        s.kv_set("n", str(int(value) + 1), expected_version=version)
                        break
                    except ConflictError:
                        continue
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=bump, args=(s,)) for s in (store, other)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert store.kv_get("n") == ("50", 51)


def test_lock_is_reentrant_and_exclusive(store: ProjectStore) -> None:
    order: list[str] = []
    with store.lock(), store.lock():
        t = threading.Thread(target=lambda: _locked(twin(store), order))
        t.start()
        t.join(timeout=0.2)
        order.append("first")
    t.join()
    assert order == ["first", "second"]


def _locked(store: ProjectStore, order: list[str]) -> None:
    with store.lock():
        order.append("second")


def test_unwritable_directory_is_a_storage_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(StorageError):
        ProjectStore.create(blocker, "p", language="ko")


def test_a_store_hears_when_another_holder_stepped_between_its_steps(
    store: ProjectStore, catalog: Catalog | None
) -> None:
    # Two stores of one project in one process stand for two replicas (they share the
    # process's step lock): each learns from the epoch that the other one stepped.
    other = twin(store)
    heard: list[tuple[str, bool]] = []
    store.listen(lambda full: heard.append(("mine", full)))
    other.listen(lambda full: heard.append(("other", full)))
    with store.lock():
        pass
    with store.lock():  # nobody stepped in between: nothing to reload
        pass
    assert store.catch_up() is False  # its listeners saw the newest epoch already
    with other.lock():
        pass
    if catalog is None:  # embedded, one process writes a project: nothing is ever called
        assert heard == [] and store.catch_up() is False
        return
    assert heard == [("mine", True), ("other", True)]  # each one's first step reloads
    assert store.catch_up() is True and heard[-1] == ("mine", False)  # a reader reloads
    assert store.catch_up() is False  # once
    with store.lock():  # a step after someone else's: a full reload first
        pass
    assert heard[-1] == ("mine", True) and len(heard) == 4
    with store.lock(), store.lock():  # re-entered: one hold, nothing new
        assert store.catch_up() is False  # a reader inside a step of this process waits
    assert len(heard) == 4
