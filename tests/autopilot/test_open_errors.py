"""An episode whose check errors outlast the rewrites waits for the writer (issue 39 item 3):
it is never committed on its own, and the panel and ``aizac runs show`` say what is open."""

from __future__ import annotations

from typing import Any

import typer
from typer.testing import CliRunner

from aizac.autopilot.panel import render_gate
from aizac.autopilot.runner import Autopilot
from aizac.autopilot.state import Options
from aizac.cli import autopilot as cli
from aizac.continuity.report import ContinuityReport, Finding
from aizac.settings import get_settings
from aizac.text import render
from tests.autopilot.fakes import JudgingModel, planned_project

ABSENT = "Mira speaks in beat 1 but is not in the scene"


def _absent_speaker(memory: Any, *, beats: Any, **_: Any) -> ContinuityReport:
    """A check that finds the same error in every draft (a rewrite never closes it)."""
    return ContinuityReport(findings=(
        Finding("speaker_absent", "error", ABSENT, None, "Mira said", beats[0].index),))


def _accepted(agent: Any) -> list[tuple[int, int]]:
    return [(b.episode, b.index) for b in agent.store.beats(status="accepted")]


def test_open_errors_after_two_rewrites_wait_for_the_writer() -> None:
    model = JudgingModel()
    studio, agent = planned_project(get_settings().data_dir, model)
    autopilot = Autopilot(agent, checker=_absent_speaker)
    result = autopilot.start(Options(episodes=1))  # no gate switched on
    nodes = [(e.node, e.kind) for e in autopilot.runs.events(result.run_id)]
    assert nodes.count(("rewrite", "end")) == 2
    # not committed: it waits at the commit gate with the open error
    assert result.status == "waiting" and ("commit", "end") not in nodes
    assert result.gate is not None and result.gate["gate"] == "commit"
    assert [f["kind"] for f in result.gate["open"]] == ["speaker_absent"]
    assert _accepted(agent) == []
    said = render(result.message, "en")
    assert "errors still open after 2 rewrites: 1" in said and ABSENT in said
    panel = render_gate(result.gate, "ko")
    assert "고쳐 쓴 뒤에도 남은 오류 1건" in panel and ABSENT in panel
    # first, a block of its own (under a list item a bold line would continue the item), and
    # the finding's kind in the reader's words
    assert panel.index("남은 오류") < panel.index("후보 기억")
    assert "\n\n**고쳐 쓴 뒤에도 남은 오류 1건" in panel and "\n\n**후보 기억**" in panel
    assert "(장면에 없는 화자)" in panel and "speaker_absent" not in panel
    # the command line says it too
    app = typer.Typer()
    cli.register(app, lambda **_: studio)
    shown = CliRunner().invoke(app, ["runs", "show", result.run_id, "--project", "auto"])
    assert shown.exit_code == 0, shown.output
    assert "waiting" in shown.output and ABSENT in shown.output
    # committed only once the writer says so
    done = autopilot.resume(result.run_id, answer="approve")
    assert done.status == "finished"
    assert _accepted(agent) == [(1, 1), (1, 2)]
    autopilot.close()


def test_a_clean_episode_is_still_committed_without_a_gate() -> None:
    model = JudgingModel()
    _, agent = planned_project(get_settings().data_dir, model)
    autopilot = Autopilot(agent, checker=lambda memory, **_: ContinuityReport())
    result = autopilot.start(Options(episodes=1))
    assert result.status == "finished" and _accepted(agent) == [(1, 1), (1, 2)]
    autopilot.close()
