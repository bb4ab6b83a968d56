"""The autopilot end to end on scripted fake models (real store, memory, graph, checkpointer)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from aizac.autopilot.committing import commit_episode
from aizac.autopilot.outline import OutlineStore
from aizac.autopilot.runner import Autopilot
from aizac.autopilot.state import Options
from aizac.errors import ModelError, StructuredOutputError
from aizac.text import Text, render
from tests.acceptance.invariants import check_project
from tests.autopilot.fakes import JudgingModel, planned_project


@pytest.fixture
def project(tmp_path: Path, database_url: str | None) -> tuple[JudgingModel, Any]:
    """A planned project on the test's engine: embedded files, or PostgreSQL (the runs, events
    and LangGraph checkpoints in the server database)."""
    model = JudgingModel()
    _, agent = planned_project(tmp_path / "data", model, database_url=database_url)
    return model, agent


def _written(agent: Any) -> list[tuple[int, int, bool]]:
    return [(b.episode, b.index, bool(b.prose)) for b in agent.store.beats(status="accepted")]


def _clean(agent: Any) -> None:
    report = check_project(agent.store)
    assert report.problems == [], report.problems


def test_three_episodes_with_a_rewrite_and_an_outline(project: Any) -> None:
    model, agent = project
    model.verdicts("rewrite")  # the first review asks for a rewrite, then accept
    autopilot = Autopilot(agent)
    result = autopilot.start(Options(episodes=3))
    assert result.status == "finished"
    assert _written(agent) == [(e, i, True) for e in (1, 2, 3) for i in (1, 2)]
    events = autopilot.runs.events(result.run_id)
    kinds = [(e.episode, e.node, e.kind) for e in events]
    assert kinds.count((1, "rewrite", "end")) == 1 and (2, "rewrite", "end") not in kinds
    assert all(e.tokens > 0 for e in events if e.kind == "end" and e.node == "draft")
    # episode 2 closes the first act (2 episodes): the next arc is outlined from memory and
    # its goal reaches the planner of episode 3
    assert OutlineStore(agent.store).goal_for(3) == "Aren takes step 3 against the duke."
    assert any("Aren takes step 3 against the duke." in p for p in model.prompts)
    assert model.calls.count("Verdict") == 4  # 3 reviews + 1 after the rewrite
    _clean(agent)
    autopilot.close()


def test_gates_wait_and_resume_from_a_new_autopilot(project: Any) -> None:
    _, agent = project
    first = Autopilot(agent)
    result = first.start(Options(episodes=1, gates=("plan", "commit")))
    assert (result.status, result.gate and result.gate["gate"]) == ("waiting", "plan")
    assert len(result.gate["beats"]) == 2 and agent.store.count_beats("accepted") == 0
    run_id = result.run_id
    first.close()
    second = Autopilot(agent)  # as after a restart: the state comes from the sqlite saver
    result = second.resume(run_id, answer="reject")  # plan again
    assert result.gate is not None and result.gate["gate"] == "plan"
    result = second.resume(run_id, answer="approve")
    assert result.gate is not None and result.gate["gate"] == "commit"
    assert any("summary:" in line for line in result.gate["memories"])
    assert agent.store.count_beats("accepted") == 0  # nothing is canon before the approval
    edited = {"1": "Aren stood on the wall, alone, and chose."}
    result = second.resume(run_id, answer={"choice": "edit", "value": edited})
    assert result.status == "finished"
    assert agent.store.beats(status="accepted")[0].prose == edited["1"]
    plans = [e for e in second.runs.events(run_id) if e.node == "plan" and e.kind == "end"]
    assert len(plans) == 2
    _clean(agent)
    second.close()


def test_budget_pauses_between_steps_and_a_larger_budget_goes_on(project: Any) -> None:
    _, agent = project
    autopilot = Autopilot(agent)
    result = autopilot.start(Options(episodes=2, budget_tokens=3000))
    said = render(result.message, "en")
    assert result.status == "paused" and "budget" in said
    assert "--budget-tokens" in said
    assert agent.store.count_beats("accepted") in (0, 2)  # whole episodes only
    result = autopilot.resume(result.run_id, options={"budget_tokens": 10**7})
    assert result.status == "finished" and len(_written(agent)) == 4
    _clean(agent)
    autopilot.close()


def test_commit_replayed_never_duplicates(project: Any) -> None:
    _, agent = project
    autopilot = Autopilot(agent)
    result = autopilot.start(Options(episodes=1))
    ids = [(b.id, b.prose) for b in agent.store.beats()]
    memories = check_project(agent.store).memories
    # replay from the checkpoint taken before the commit node (as after a kill between the
    # commit's writes and its checkpoint): the graph runs commit again
    history = autopilot.graph.get_state_history(autopilot.config(result.run_id))
    before = next(s for s in history if s.next == ("commit",))
    autopilot.graph.invoke(None, before.config)
    assert [(b.id, b.prose) for b in agent.store.beats()] == ids
    report = check_project(agent.store)
    assert report.problems == [] and report.memories == memories and report.accepted == 2
    # and the commit function itself, called again with the same episode
    state = before.values
    again = commit_episode(autopilot.door, agent.info.name, state["beats"],
                           state["profiles"], state["prose"], state["candidates"])
    assert again == [i for i, _ in ids]
    _clean(agent)
    autopilot.close()


def test_ladder_skips_a_failing_check_and_logs_the_decision(project: Any) -> None:
    _, agent = project
    calls: list[int] = []

    def failing_check(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        raise StructuredOutputError("the reviewer's findings did not validate")

    autopilot = Autopilot(agent, checker=failing_check)
    result = autopilot.start(Options(episodes=1))
    assert result.status == "finished" and len(calls) == 2  # first retried free, then skipped
    decisions = autopilot.runs.decisions(result.run_id)
    assert [(d["node"], d["decision"]) for d in decisions] == [("check", "skip")]
    autopilot.close()


def test_provider_faults_are_not_counted_but_no_progress_pauses(project: Any) -> None:
    _, agent = project
    calls: list[int] = []

    def down(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        raise ModelError("the reviewer's provider answered 503 after 3 retries")

    autopilot = Autopilot(agent, checker=down)
    result = autopilot.start(Options(episodes=1))
    assert result.status == "paused" and "without progress" in render(result.message, "en")
    assert len(calls) == 4  # dispatches 1-4 ran; the 5th is stopped by the detector
    events = autopilot.runs.events(result.run_id)
    assert [e.kind for e in events if e.node == "check" and e.kind in ("warn", "pause")] == [
        "warn", "pause"]
    assert autopilot.runs.decisions(result.run_id) == []  # never on the ladder
    autopilot.close()


def test_a_pause_asked_from_outside_stops_before_the_next_step(project: Any) -> None:
    _, agent = project
    holder: list[Autopilot] = []

    def check_then_pause(memory: Any, **kwargs: Any) -> Any:
        from aizac.continuity import check_episode

        if len(holder) == 1:
            holder[0].pause()  # the writer presses pause while the check runs
            holder.append(holder[0])
        return check_episode(memory, **kwargs)

    autopilot = Autopilot(agent, checker=check_then_pause)
    holder.append(autopilot)
    result = autopilot.start(Options(episodes=1))
    assert (result.status, result.message) == ("paused", Text("autopilot.pause.writer"))
    assert result.state["report"] is not None and result.state["verdict"] is None
    assert autopilot.resume(result.run_id).status == "finished"
    _clean(agent)
    autopilot.close()


def test_steering_queues_a_rewrite_applied_at_the_episode_boundary(project: Any) -> None:
    model, agent = project
    model.steering({"actions": [
        {"kind": "queue_rewrite", "first": 1, "last": 1, "note": "Mira survives the fire."}]})
    holder: list[Autopilot] = []

    def check_and_steer(memory: Any, **kwargs: Any) -> Any:
        from aizac.continuity import check_episode

        if kwargs["episode"] == 1:
            holder[0].steer(None, "the heroine survives the fire")
        return check_episode(memory, **kwargs)

    autopilot = Autopilot(agent, checker=check_and_steer)
    holder.append(autopilot)
    result = autopilot.start(Options(episodes=2))
    assert result.status == "finished"
    run_id = result.run_id
    nodes = [(e.episode, e.node) for e in autopilot.runs.events(run_id) if e.kind == "end"]
    assert nodes.index((1, "checkpoint")) < nodes.index((1, "rewrite_queued")) < nodes.index(
        (2, "plan"))
    decisions = autopilot.runs.decisions(run_id)
    assert [d["reason"] for d in decisions] == ["rewrite episodes 1–1: Mira survives the fire."]
    assert any("Mira survives the fire." in p for p in model.prompts)
    assert len(_written(agent)) == 4
    _clean(agent)
    autopilot.close()
