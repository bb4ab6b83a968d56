"""Event rows of a node replayed after a kill or a resume are written once (issue 14 gap)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from aizac.autopilot.events import RunStore
from aizac.autopilot.runner import Autopilot
from aizac.autopilot.state import Options
from aizac.continuity import check_episode
from tests.autopilot.fakes import JudgingModel, planned_project


class Killed(BaseException):
    """Stands for SIGKILL: nothing after it runs in the process (not an ``Exception``)."""


@pytest.fixture
def agent(tmp_path: Path) -> Any:
    _, agent = planned_project(tmp_path / "data", JudgingModel())
    return agent


def _rows(runs: RunStore, run_id: str) -> Counter[tuple[int, str, str]]:
    return Counter((e.episode, e.node, e.kind) for e in runs.events(run_id)
                   if e.kind in ("start", "end"))


def test_a_node_killed_midway_and_resumed_has_one_start_and_one_end(agent: Any) -> None:
    kills = [1]

    def killed_once(*args: Any, **kwargs: Any) -> Any:
        if kills:
            kills.pop()
            raise Killed
        return check_episode(*args, **kwargs)

    first = Autopilot(agent, checker=killed_once)
    with pytest.raises(Killed):
        first.start(Options(episodes=1))
    run_id = first.runs.run().id
    first.close()
    second = Autopilot(agent, checker=killed_once)  # a new process resumes at the check node
    assert second.resume(run_id).status == "finished"
    rows = _rows(second.runs, run_id)
    assert rows[(1, "check", "start")] == 1 and rows[(1, "check", "end")] == 1
    assert all(n == 1 for n in rows.values()), rows
    second.close()


class KilledAfterCommitEnd(RunStore):
    """The runs store of a process killed right after the commit node's end row (its writes
    done, its checkpoint not yet saved)."""

    def add_event(self, run_id: str, episode: int, node: str, kind: str,
                  **fields: Any) -> None:
        super().add_event(run_id, episode, node, kind, **fields)
        if (node, kind) == ("commit", "end"):
            raise Killed


def test_a_commit_killed_before_its_checkpoint_shows_once_marked_replayed(agent: Any) -> None:
    first = Autopilot(agent)
    first.deps.runs = KilledAfterCommitEnd(agent.store.directory)
    with pytest.raises(Killed):
        first.start(Options(episodes=1))
    run_id = first.runs.run().id
    first.close()
    second = Autopilot(agent)
    assert second.resume(run_id).status == "finished"  # commit runs again, then checkpoint
    rows = _rows(second.runs, run_id)
    assert rows[(1, "commit", "start")] == 1 and rows[(1, "commit", "end")] == 1
    assert all(n == 1 for n in rows.values()), rows
    commit = [e for e in second.runs.events(run_id) if (e.node, e.kind) == ("commit", "end")]
    assert commit[0].detail.get("replayed") is True
    second.close()


def test_events_of_a_store_made_before_steps_existed_still_work(tmp_path: Path) -> None:
    import sqlite3

    from aizac.autopilot.events import RUNS_FILE

    with sqlite3.connect(tmp_path / RUNS_FILE) as db:  # the first release's events table
        db.execute("CREATE TABLE events (id INTEGER PRIMARY KEY, run_id TEXT, at REAL, "
                   "episode INTEGER, node TEXT, kind TEXT, tokens INTEGER, seconds REAL, "
                   "detail TEXT)")
        db.execute("INSERT INTO events (run_id, at, episode, node, kind, tokens, seconds, "
                   "detail) VALUES ('r', 0, 1, 'plan', 'end', 5, 0.1, '{}')")
    db.close()
    runs = RunStore(tmp_path)
    runs.add_event("r", 1, "plan", "end", step=3, tokens=2)
    runs.add_event("r", 1, "plan", "end", step=3, tokens=2)
    assert [(e.node, e.tokens) for e in runs.events("r")] == [("plan", 5), ("plan", 4)]


def test_the_live_view_reads_the_last_events_only(tmp_path: Path) -> None:
    runs = RunStore(tmp_path)
    for n in range(30):
        runs.add_event("r", n, "plan", "start", step=n)
        runs.add_event("r", n, "plan", "end", step=n)
    runs.add_event("other", 99, "plan", "end")
    tail = runs.last_events("r", 3, skip_kind="start")
    assert [(e.episode, e.kind) for e in tail] == [(27, "end"), (28, "end"), (29, "end")]
