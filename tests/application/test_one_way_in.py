"""Every front end changes a story through the application service: the project's lock is
taken once per operation, and every acceptance (the editor's, the command line's, the
autopilot's) is a node of the stored history when it is made, not rebuilt when it is read."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from aizac.application import history as hist
from aizac.application.service import TREE_KEY, ApplicationService
from aizac.autopilot.runner import Autopilot
from aizac.autopilot.state import Options
from aizac.cli.story import register
from aizac.cliches import ClicheDB
from aizac.writer.service import Studio
from tests.autopilot.fakes import JudgingModel, planned_project
from tests.writer.test_service_cli import studio_for


class LockDepth:
    """Wraps a store's ``lock()``: how often it was entered, and how deep it was nested."""

    def __init__(self, store: Any) -> None:
        self.lock, self.entered, self.depth, self.deepest = store.lock, 0, 0, 0
        store.lock = self

    @contextlib.contextmanager
    def __call__(self) -> Iterator[None]:
        with self.lock():
            self.entered, self.depth = self.entered + 1, self.depth + 1
            self.deepest = max(self.deepest, self.depth)
            try:
                yield
            finally:
                self.depth -= 1


def stored_accepts(store: Any) -> list[int]:
    """The beat ids of the ACCEPT nodes the stored tree holds, as written (no adoption)."""
    stored = store.kv_get(TREE_KEY)
    if stored is None:
        return []
    nodes = json.loads(stored[0])["nodes"]
    return sorted(hist.Step.from_payload(n["kind"], n["payload"]).beat_id
                  for n in nodes if n["kind"] == hist.ACCEPT)


@pytest.mark.parametrize("operation", ["next_beat", "regenerate", "accept", "undo"])
def test_each_operation_takes_the_projects_lock_once(
    service: ApplicationService, operation: str
) -> None:
    service.create_project("dawn", genre="fantasy", keywords=["regression"], language="en")
    service.generate_plot("dawn")
    depth = LockDepth(service.agent("dawn").store)
    if operation != "next_beat":
        draft = service.next_beat("dawn")
    depth.entered = depth.deepest = 0
    if operation == "next_beat":
        service.next_beat("dawn")
    elif operation == "regenerate":
        service.regenerate("dawn", draft.id, draft.version, "again")
    elif operation == "accept":
        service.accept("dawn", draft.id, draft.version)
    else:
        service.accept("dawn", draft.id, draft.version)
        depth.entered = depth.deepest = 0
        service.undo("dawn")
    assert (depth.entered, depth.deepest) == (1, 1)


def test_an_accept_on_the_command_line_is_a_node_of_the_stored_history(
    tmp_path: Path, cliche_db: ClicheDB
) -> None:
    app = typer.Typer()

    def factory(data_dir: Path | None = None, **options: Any) -> Studio:
        return studio_for(data_dir or tmp_path / "data", cliche_db, **options)

    register(app, factory)
    runner = CliRunner()
    for args in (["new", "saga", "-k", "회귀", "--lang", "en"], ["plot"], ["beat"],
                 ["beat", "--accept"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
    service = ApplicationService(factory(), export_dir=tmp_path / "exports")
    accepted = service.accepted("saga")
    assert [b.status for b in accepted] == ["accepted"]
    assert stored_accepts(service.agent("saga").store) == [accepted[0].id]
    view = service.undo("saga")  # the command line's accept is undone like the editor's
    assert view.can_redo and service.accepted("saga") == []


def test_an_autopilot_episode_is_committed_through_the_service_into_the_history(
    tmp_path: Path
) -> None:
    _, agent = planned_project(tmp_path / "data", JudgingModel())
    autopilot = Autopilot(agent)
    depth = LockDepth(agent.store)
    try:
        assert autopilot.start(Options(episodes=1)).status == "finished"
    finally:
        autopilot.close()
    accepted = [b.id for b in agent.store.beats(status="accepted")]
    assert len(accepted) == 2 and stored_accepts(agent.store) == accepted
    assert depth.deepest == 1  # the commit's lock is the service's, never taken inside it
    view = autopilot.door.history(agent.info.name)
    assert [s.kind for s in view.path] == [hist.DRAFT, hist.ACCEPT] * 2


@pytest.mark.parametrize("operation", ["next_beat", "plan_episode"])
def test_a_beat_without_a_plot_is_refused_before_any_model_call(
    service: ApplicationService, model: Any, operation: str
) -> None:
    from aizac.errors import InvalidInputError

    service.create_project("dawn", genre="fantasy", keywords=["regression"], language="en")
    with pytest.raises(InvalidInputError) as refused:
        getattr(service, operation)("dawn")
    assert refused.value.key == "error.plot.none"
    assert model.calls == [] and service.beats("dawn")[1] == []


def test_the_history_is_not_rebuilt_while_every_accept_is_in_it(
    service: ApplicationService, monkeypatch: pytest.MonkeyPatch
) -> None:
    service.create_project("dawn", genre="fantasy", keywords=["regression"], language="en")
    service.generate_plot("dawn")
    adopted: list[object] = []
    real = service._adopt
    monkeypatch.setattr(service, "_adopt", lambda *a, **k: adopted.append(a) or real(*a, **k))
    draft = service.next_beat("dawn")
    draft = service.edit_beat("dawn", draft.id, draft.version,
                              draft.beat.model_copy(update={"location": "The burned chapel"}))
    service.accept("dawn", draft.id, draft.version)
    service.history("dawn")
    service.undo("dawn")
    assert adopted == []
