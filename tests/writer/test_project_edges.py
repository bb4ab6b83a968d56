"""Project store edges: the file lock, look-alike names, killed creates, one writer process."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import unicodedata
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from aizac.cli.story import register
from aizac.cliches import ClicheDB
from aizac.errors import ConflictError, InvalidInputError
from aizac.writer.project import DB_NAME, ProjectStore
from aizac.writer.rules import MAX_QUESTION_CHARS, check_question

from .test_service_cli import studio_for

KOREAN = "강민호의 귀환"


def test_two_store_objects_nest_the_lock_in_one_thread(tmp_path: Path) -> None:
    ProjectStore.create(tmp_path, "n", language="ko")
    a, b = ProjectStore(tmp_path / "n"), ProjectStore(tmp_path / "n")
    done = threading.Event()

    def nested() -> None:
        with a.lock(), b.lock():
            done.set()

    worker = threading.Thread(target=nested, daemon=True)
    worker.start()
    worker.join(10)
    assert done.is_set(), "two store objects of one project deadlocked in one thread"


def test_the_lock_keeps_other_threads_out(tmp_path: Path) -> None:
    store = ProjectStore.create(tmp_path, "n", language="ko")
    order: list[str] = []
    with store.lock():
        other = threading.Thread(
            target=lambda: (ProjectStore(tmp_path / "n").lock().__enter__(), order.append("b"))
        )
        other.start()
        time.sleep(0.2)
        order.append("a")
    other.join(5)
    assert order == ["a", "b"]


def test_nfc_and_nfd_spellings_are_one_project(tmp_path: Path) -> None:
    nfd = unicodedata.normalize("NFD", KOREAN)
    assert nfd != KOREAN
    ProjectStore.create(tmp_path, KOREAN, language="ko")
    assert ProjectStore.open(tmp_path, nfd).info().name == KOREAN
    with pytest.raises(InvalidInputError, match="already exists"):
        ProjectStore.create(tmp_path, nfd, language="ko")
    assert ProjectStore.list_names(tmp_path) == [KOREAN]


def test_a_database_without_a_project_does_not_block_the_name(tmp_path: Path) -> None:
    ghost = tmp_path / "novel"
    ghost.mkdir()
    import sqlite3

    sqlite3.connect(ghost / DB_NAME).close()  # what a create killed mid-way left before
    assert ProjectStore.list_names(tmp_path) == []
    ProjectStore.create(tmp_path, "novel", language="ko", keywords=["회귀"])
    assert ProjectStore.open(tmp_path, "novel").info().keywords == ["회귀"]


def _aizac(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from aizac.cli import main; main()", *args],
        capture_output=True, text=True, timeout=120, env={**os.environ, **env},
    )


def test_killed_new_leaves_no_ghost_project() -> None:
    killed = _aizac("new", KOREAN, "--keywords", "회귀, 복수", "--lang", "ko",
                    AIZAC_KILL_AT="new:meta-written")
    assert killed.returncode == -9, killed.stderr
    listed = _aizac("projects")
    assert KOREAN not in listed.stdout
    again = _aizac("new", KOREAN, "--keywords", "회귀, 복수", "--lang", "ko")
    assert again.returncode == 0, again.stderr
    assert KOREAN in _aizac("projects").stdout


def test_a_project_open_in_another_process_is_named(tmp_path: Path, cliches: ClicheDB) -> None:
    studio = studio_for(tmp_path, cliches, owner_wait=0.2)
    studio.create("shared", "회귀", language="ko")
    studio.close()
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time\n"
         "from aizac.settings import Settings\n"
         "from aizac.llm.embeddings import HashingEmbeddings\n"
         "from aizac.writer.service import Studio\n"
         f"s = Studio(Settings(data_dir={str(tmp_path)!r}), embeddings=HashingEmbeddings())\n"
         "s.open('shared'); print('open', flush=True); time.sleep(60)\n"],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "open"
        with pytest.raises(ConflictError, match=f"pid {holder.pid}"):
            studio_for(tmp_path, cliches, owner_wait=0.2).open("shared")
    finally:
        holder.kill()
        holder.wait(10)
    # The killed owner holds nothing: the project opens again.
    assert studio_for(tmp_path, cliches, owner_wait=2).open("shared").info.name == "shared"


def test_question_length_is_capped() -> None:
    assert check_question("  강민호는 어디에?  ") == "강민호는 어디에?"
    with pytest.raises(InvalidInputError, match="limit"):
        check_question("가" * (MAX_QUESTION_CHARS + 1))
    with pytest.raises(InvalidInputError, match="empty"):
        check_question("   ")


def test_cli_export_out_folder_and_md_name(tmp_path: Path, cliches: ClicheDB) -> None:
    studio = studio_for(tmp_path / "data", cliches, beats_per_episode=2)
    agent = studio.create("novel", "회귀", language="en")
    agent.plan()
    agent.accept(agent.next_beat().id)
    "".join(agent.write_prose())
    app = typer.Typer()
    register(app, studio_factory=lambda **_: studio)
    runner = CliRunner()
    folder = tmp_path / "out"
    folder.mkdir()
    got = runner.invoke(app, ["export", "--out", f"{folder}/"])
    assert got.exit_code == 0, got.output
    assert [p.name for p in folder.iterdir()] == ["The_Second_Life.txt"]
    got = runner.invoke(app, ["export", "--out", str(tmp_path / "x.md")])
    assert got.exit_code == 0, got.output
    assert (tmp_path / "x.md").read_text(encoding="utf-8").startswith("# ")
    assert not (tmp_path / "x.md.txt").exists()
    got = runner.invoke(app, ["ask", "가" * 100_000])
    assert got.exit_code == 1 and "limit" in got.output
