"""A damaged file is named, never deleted (issue 37, items 1 and 2): every way a project's
stored file gets damaged (empty, cut short, overwritten; Chroma's file missing or damaged; the
key index, the journal) leaves the project listed as damaged with the file named, every other
project working, a create of its name refused, and every byte of it as it was."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from aizac.cliches import ClicheDB
from aizac.errors import DamagedError, InvalidInputError, damage_of
from aizac.text import describe
from aizac.writer.service import Studio
from tests.upkeep.conftest import DAMAGE, SERVER_ROWS, damage, fingerprint, settle, written


@pytest.mark.parametrize("variant", sorted(DAMAGE))
def test_a_damaged_project_is_listed_and_named_and_the_others_work(
    variant: str, make_studio: Callable[..., Studio], engine: str
) -> None:
    if engine == "postgresql" and DAMAGE[variant][0] in SERVER_ROWS:
        pytest.skip("rows on the database: no such file")
    good = written(make_studio(), "good")
    bad = written(make_studio(), "bad")
    broken = damage(bad, variant)
    before = fingerprint(bad)

    studio = make_studio()
    with pytest.raises(DamagedError) as opened:
        studio.open("bad")
    said = describe(opened.value, "en", surface="cli")
    assert str(broken) in said.message and "aizac check" in said.hint
    assert "Traceback" not in said.message and "RustBindings" not in said.message
    listed = {info.name: info for info in make_studio().projects()}
    assert set(listed) == {"good", "bad"}
    assert listed["good"].problem is None and not listed["good"].damaged
    # a quick look finds most damage; what only an open found (a page of chroma.sqlite3
    # overwritten) is noted and said by the next listing
    assert listed["bad"].damaged, listed["bad"]
    assert str(broken) in listed["bad"].problem.message  # type: ignore[union-attr]

    agent = studio.open("good")  # the others work as before
    agent.accept(agent.next_beat().id)
    assert agent.memory.turn == 3
    with pytest.raises(InvalidInputError) as create:
        studio.create("bad", "회귀", language="en")
    assert create.value.key in ("error.project.folder_taken", "error.project.exists")
    with pytest.raises(DamagedError):
        make_studio().open("bad")  # and again, in the same process or another
    settle(bad)
    assert fingerprint(bad) == before  # nothing of it was changed, nothing deleted
    assert good.is_dir()


def test_a_zero_byte_project_file_never_loses_its_folder_to_a_create(
    make_studio: Callable[..., Studio], engine: str
) -> None:
    """Issue 37 item 1: a zero-byte project.sqlite3 made the project vanish and `aizac new`
    deleted its folder, memory included, as a failed create's leftovers."""
    if engine == "postgresql":  # a folder with data and no project row: the create refuses
        folder = written(make_studio(), "kept")
        make_studio().catalog.delete(make_studio().catalog.find("kept"))  # type: ignore[union-attr]
    else:
        folder = written(make_studio(), "kept")
        (folder / "project.sqlite3").write_bytes(b"")
    before = fingerprint(folder)
    assert before and any(name.startswith("memory/") for name in before)
    with pytest.raises(InvalidInputError) as refused:
        make_studio().create("kept", "회귀", language="en")
    assert refused.value.key == "error.project.folder_taken"
    assert "memory/" in refused.value.message and str(folder) in refused.value.message
    settle(folder)
    assert fingerprint(folder) == before


def test_the_damage_is_found_through_a_store_that_wraps_it() -> None:
    """A store re-keys its own errors (the key index's, the journal's): the damage is still
    found in the chain."""
    from aizac.errors import StorageError
    from aizac.storage.health import damaged

    inner = damaged("/x/aizac-keys.sqlite3", "empty")
    try:
        try:
            raise inner
        except DamagedError as e:
            raise StorageError("error.memory.index", cause="x") from e
    except StorageError as outer:
        assert damage_of(outer) is inner


def test_the_listing_names_the_damage_on_the_command_line(
    tmp_path: Path, make_studio: Callable[..., Studio], engine: str
) -> None:
    if engine == "postgresql":
        pytest.skip("the files of an embedded project")
    import os
    import subprocess
    import sys

    written(make_studio(), "good")
    bad = written(make_studio(), "bad")
    (bad / "project.sqlite3").write_bytes(b"")
    env = {**os.environ, "AIZAC_DATA_DIR": str(tmp_path / "data")}

    def aizac(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-c", "from aizac.cli import main; main()", *args],
                              capture_output=True, text=True, timeout=300, env=env)

    listed = aizac("projects")
    assert listed.returncode == 0, listed.stderr
    assert "good\ten" in listed.stdout and "no projects yet" not in listed.stdout
    assert "! bad\tdamaged:" in listed.stdout and "project.sqlite3" in listed.stdout
    assert "aizac check" in listed.stderr and "Traceback" not in listed.stderr
    for command in (["export", "-p", "bad", "-o", str(tmp_path / "out/")], ["beat", "-p", "bad"],
                    ["new", "bad", "-k", "x"]):
        done = aizac(*command)
        assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
        assert "project.sqlite3" in done.stderr, done.stderr
    checked = aizac("check")
    assert checked.returncode == 1, checked.stderr
    assert "ok\tgood" in checked.stdout and "FOUND\tbad" in checked.stdout
    assert "project.sqlite3 is damaged: it is empty" in checked.stdout
    assert (bad / "memory" / "chroma.sqlite3").stat().st_size > 0


def test_an_operator_checks_and_backs_up_an_accounts_projects(
    tmp_path: Path, cliches: ClicheDB, engine: str, database_url: str | None
) -> None:
    """``--user NAME``: the account's sandbox (its folder, its projects on the database)."""
    import os
    import subprocess
    import sys

    from argon2 import PasswordHasher

    from aizac.server.accounts import AccountStore
    from aizac.settings import Settings
    from tests.writer.test_service_cli import studio_for

    settings = Settings(data_dir=tmp_path / "data", database_url=database_url)
    mina = AccountStore.open(settings, hasher=PasswordHasher(time_cost=1, memory_cost=8,
                                                             parallelism=1),
                             min_password_score=0).add_user("mina", "pass word 1")
    root = tmp_path / "data" / "users" / mina.id
    studio = studio_for(root, cliches, database_url, owner=mina.id, chroma_namespace=mina.id)
    written(studio, "saga", beats=1)
    env = {**os.environ, "AIZAC_DATA_DIR": str(tmp_path / "data")}
    if database_url is not None:
        env["AIZAC_DATABASE_URL"] = database_url

    def aizac(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-c", "from aizac.cli import main; main()", *args],
                              capture_output=True, text=True, timeout=300, env=env)

    backed = aizac("backup", "--user", "mina", "--project", "saga")
    assert backed.returncode == 0, backed.stderr
    assert len(list((root / "backups" / "saga").glob("saga.*.zip"))) == 1
    checked = aizac("check", "--user", "mina")
    assert checked.returncode == 0 and "ok\tsaga" in checked.stdout, checked.stdout
    assert "no projects yet" in aizac("check").stdout  # the single writer's: none
