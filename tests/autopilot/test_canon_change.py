"""A steering note's canon change is a recorded change the invariant checker knows (issue 14
gap 2): the memory names the note it came from, the note lists the memory, a replay after a kill
adds nothing and asks the arbiter nothing again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from aizac.autopilot.events import RunStore
from aizac.autopilot.runner import Autopilot
from aizac.autopilot.state import Options
from aizac.continuity import check_episode
from aizac.storage.steering import canon_change_source
from tests.acceptance.invariants import check_project
from tests.autopilot.fakes import JudgingModel, planned_project

HAND = "Mira lost her left hand in the chapel fire."
CHANGE = {"actions": [
    {"kind": "change_character", "name": "Mira", "aspect": "condition", "text": HAND},
    {"kind": "change_setting", "keyword": "Eastwall", "text": "Eastwall's gate lies in ruins."},
]}


class Killed(BaseException):
    """Stands for SIGKILL (not an ``Exception``: nothing after it runs)."""


class KilledBeforeClosing(RunStore):
    """A process killed after the canon change was written, before its note was closed."""

    def close_steering(self, steering_id: int, actions: list[dict[str, Any]],
                       memory_ids: list[str] | None = None) -> None:
        raise Killed


@pytest.fixture
def project(tmp_path: Path) -> tuple[JudgingModel, Any]:
    model = JudgingModel()
    model.steering(CHANGE)
    _, agent = planned_project(tmp_path / "data", model)
    return model, agent


def _steering_checker(holder: list[Autopilot]) -> Any:
    def check_and_steer(memory: Any, **kwargs: Any) -> Any:
        if kwargs["episode"] == 1 and not holder[0].runs.decisions(holder[0].runs.run().id):
            holder[0].steer(None, "Mira loses her hand in the fire")
        return check_episode(memory, **kwargs)

    return check_and_steer


def _changed(agent: Any) -> list[Any]:
    return [h for h in agent.memory.all() if h.text == HAND]


def _note(runs: RunStore, run_id: str) -> tuple[str, list[str]]:
    import json

    from sqlalchemy import select

    from aizac.storage.tables import steering

    with runs.scope.db.read() as db:
        status, ids = db.execute(select(steering.c.status, steering.c.memory_ids).where(
            steering.c.project == runs.key, steering.c.run_id == run_id)).one()
    return str(status), json.loads(ids)


def test_a_steered_character_change_keeps_the_invariants_clean(project: Any) -> None:
    _, agent = project
    holder: list[Autopilot] = []
    autopilot = Autopilot(agent, checker=_steering_checker(holder))
    holder.append(autopilot)
    result = autopilot.start(Options(episodes=2))
    assert result.status == "finished"
    reasons = [d["reason"] for d in autopilot.runs.decisions(result.run_id)]
    assert reasons[0] == f"change character — Mira (condition): {HAND}"
    [hand] = _changed(agent)
    source = canon_change_source(result.run_id, 1)
    assert hand.metadata["canon_change"] == source
    status, ids = _note(autopilot.runs, result.run_id)
    assert status == "applied" and hand.id in ids and len(ids) == 2
    report = check_project(agent.store.directory)
    assert report.problems == [], report.problems
    autopilot.close()


def test_a_canon_change_killed_before_its_note_closed_is_applied_once(project: Any) -> None:
    model, agent = project
    holder: list[Autopilot] = []
    first = Autopilot(agent, checker=_steering_checker(holder))
    holder.append(first)
    first.deps.runs = KilledBeforeClosing(agent.store.directory)
    with pytest.raises(Killed):
        first.start(Options(episodes=2))
    run_id = first.runs.run().id
    first.close()
    assert len(_changed(agent)) == 1  # written, but its note is not closed
    second = Autopilot(agent)
    assert second.resume(run_id).status == "finished"
    [hand] = _changed(agent)
    status, ids = _note(second.runs, run_id)
    assert status == "applied" and hand.id in ids
    assert model.calls.count("SteeringPlan") == 1  # the replay used the recorded actions
    reasons = [d["reason"] for d in second.runs.decisions(run_id)]
    assert len(reasons) == 2  # one line per action, not repeated by the replay
    assert check_project(agent.store.directory).problems == []
    second.close()
