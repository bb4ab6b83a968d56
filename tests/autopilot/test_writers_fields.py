"""Issue 23: the autopilot keeps the fields the writer wrote, and its beats are nodes of the
beat editor's history (undo/redo across co-written and autopilot beats)."""

from __future__ import annotations

from pathlib import Path

from aizac.application.service import ApplicationService
from aizac.autopilot.runner import Autopilot
from aizac.autopilot.state import Options
from aizac.web import handlers as h
from tests.autopilot.fakes import JudgingModel, planned_project

TIME = "The first dawn, 4 a.m."


def test_the_plan_gate_shows_and_keeps_the_writers_fields(tmp_path: Path) -> None:
    model = JudgingModel()
    _, agent = planned_project(tmp_path / "data", model)
    draft = agent.next_beat()
    agent.edit_beat(draft.id, draft.beat.model_copy(update={"time": TIME}))
    autopilot = Autopilot(agent)
    result = autopilot.start(Options(episodes=1, gates=("plan",)))
    assert result.gate is not None and result.gate["written"] == [["time"], []]
    beats = [dict(b) for b in result.state["beats"]]
    beats[1]["location"] = "The salt cellar"  # the writer edits beat 2 at the gate
    result = autopilot.resume(result.run_id, answer={"choice": "edit", "value": beats})
    assert result.status == "finished"
    first, second = agent.store.beats(status="accepted")
    assert (first.beat.time, first.written) == (TIME, ["time"])
    assert (second.beat.location, second.written) == ("The salt cellar", ["location"])
    autopilot.close()


def test_undo_and_redo_walk_across_co_written_and_autopilot_beats(tmp_path: Path) -> None:
    model = JudgingModel()
    studio, _ = planned_project(tmp_path / "data", model)
    service = ApplicationService(studio, export_dir=tmp_path / "exports")
    view = h.next_beat(service, "auto")
    h.accept(service, "auto", view.beat_id, view.version)  # 1-1 co-written
    agent = service.agent("auto")
    autopilot = Autopilot(agent)
    assert autopilot.start(Options(episodes=2)).status == "finished"  # 1-2, 2-1, 2-2
    autopilot.close()
    accepted = [(b.episode, b.index) for b in agent.store.beats(status="accepted")]
    assert accepted == [(1, 1), (1, 2), (2, 1), (2, 2)]
    turn = agent.memory.turn
    shown = h.editor_view(service, "auto")
    last = shown.history.path[-1]
    assert shown.history.can_undo and (last.kind, last.where) == ("accept", "2-2")
    back = h.undo(service, "auto")  # 2-2's acceptance: its memories go, it is a draft again
    assert back.draft_position == "2-2" and agent.memory.turn == turn - 1
    for _ in range(3):
        back = h.undo(service, "auto")  # 2-2 dropped, then 2-1 unaccepted and dropped
    assert [(b.episode, b.index) for b in agent.store.beats(status="accepted")] == [
        (1, 1), (1, 2)]
    h.redo(service, "auto")
    again = h.redo(service, "auto")  # 2-1 is canon again, as it was (no model call)
    assert [(b.episode, b.index) for b in agent.store.beats(status="accepted")] == [
        (1, 1), (1, 2), (2, 1)]
    assert again.history.can_redo
    # a branch: regenerating the undone 2-2 keeps the autopilot's acceptance as a sibling
    h.redo(service, "auto")
    h.redo(service, "auto")
    draft = h.undo(service, "auto")
    assert draft.draft_position == "2-2"
    branch = h.regenerate(service, "auto", draft.beat_id, draft.version, "")
    assert branch.history.siblings
