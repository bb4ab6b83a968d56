"""Deleting and exporting a project whose autopilot run is paused at a gate, on both engines:
on PostgreSQL its runs and checkpoints share the database with every other project's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aizac.autopilot.runner import Autopilot
from aizac.autopilot.state import Options
from aizac.storage.checkpointer import close_checkpointer, open_checkpointer, thread_id
from aizac.storage.database import sqlite_file
from aizac.storage.tables import runs
from aizac.writer.project import ProjectStore
from aizac.writer.server_projects import write_embedded
from tests.autopilot.fakes import JudgingModel, planned_project


def _paused(data_dir: Path, database_url: str | None, name: str = "auto") -> tuple[Any, Any, str]:
    studio, agent = planned_project(data_dir, JudgingModel(), name=name,
                                    database_url=database_url)
    autopilot = Autopilot(agent)
    result = autopilot.start(Options(episodes=1, gates=("plan",)))
    assert result.status == "waiting"
    autopilot.close()
    return studio, agent, result.run_id


def _checkpoints(url: str, thread: str) -> int:
    saver = open_checkpointer(Path("."), f"postgres:{url}")
    try:
        return len(list(saver.list({"configurable": {"thread_id": thread}})))
    finally:
        close_checkpointer(saver)


def test_deleting_a_project_drops_its_runs_and_checkpoints(
    tmp_path: Path, database_url: str | None,
) -> None:
    studio, agent, run_id = _paused(tmp_path / "data", database_url)
    _, other, other_run = _paused(tmp_path / "data", database_url, name="other")
    key, other_key = agent.store.key, other.store.key
    if database_url is not None:
        assert _checkpoints(database_url, thread_id(run_id, key)) > 0
    studio.delete("auto")
    assert not agent.store.directory.exists()
    if database_url is not None:
        assert _checkpoints(database_url, thread_id(run_id, key)) == 0
        assert _checkpoints(database_url, thread_id(other_run, other_key)) > 0  # not its
    again = studio.create("auto", "sea", language="en")  # the old name starts empty
    fresh = Autopilot(again)
    assert fresh.runs.runs() == []
    fresh.close()
    assert again.store.count_beats("accepted") == 0 and again.store.plot() is None
    # the other project's paused run still resumes
    resumed = Autopilot(studio.open("other"))
    assert resumed.resume(other_run, answer="approve").status == "finished"
    resumed.close()


def test_a_server_project_written_out_as_embedded_files(tmp_path: Path, pg_url: str) -> None:
    """What a user's export carries for a project on PostgreSQL: the files an embedded project
    keeps, its rows under the embedded key and its paused run's checkpoints under the bare
    run id, so an embedded installation reads them as its own."""
    _, agent, run_id = _paused(tmp_path / "data", pg_url)
    folder = tmp_path / "out" / "auto"
    written = {p.name for p in write_embedded(agent.store, agent.settings, folder)}
    assert written == {"project.sqlite3", "autopilot_runs.sqlite3", "continuity.sqlite",
                       "autopilot_checkpoints.sqlite3"}
    embedded = ProjectStore(folder)
    assert embedded.info().name == "auto"
    assert embedded.plot() is not None and embedded.plot() == agent.store.plot()
    with sqlite_file(folder / "autopilot_runs.sqlite3", "runs").read() as conn:
        assert [r.id for r in conn.execute(runs.select())] == [run_id]
    source = open_checkpointer(folder, f"postgres:{pg_url}")
    target = open_checkpointer(folder, "sqlite")
    try:
        on_server = {"configurable": {"thread_id": thread_id(run_id, agent.store.key)}}
        there = source.get_tuple(on_server)
        here = target.get_tuple({"configurable": {"thread_id": run_id}})
        assert here is not None and there is not None
        assert here.checkpoint["id"] == there.checkpoint["id"]
        assert len(list(target.list(None))) == len(list(source.list(on_server))) > 1
    finally:
        close_checkpointer(source)
        close_checkpointer(target)
