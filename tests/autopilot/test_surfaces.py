"""The autopilot's surfaces: the CLI (``aizac autopilot``, ``aizac runs``) and the web panel."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from typer.testing import CliRunner

from aizac.autopilot.panel import AutopilotPanel, render_prose
from aizac.cli import autopilot as cli
from aizac.cli import story
from aizac.settings import get_settings
from tests.autopilot.fakes import JudgingModel, make_studio


def _app(model: JudgingModel) -> typer.Typer:
    app = typer.Typer()

    def factory(**options: Any) -> Any:
        return make_studio(get_settings().data_dir, model, **options)

    story.register(app, factory)
    cli.register(app, factory)
    return app


def test_cli_autopilot_gate_resume_runs_and_show() -> None:
    model = JudgingModel()
    app, runner = _app(model), CliRunner()
    assert runner.invoke(app, ["new", "cli", "--keywords", "regression", "--lang", "en"]
                         ).exit_code == 0
    assert runner.invoke(app, ["plot"]).exit_code == 0
    first = runner.invoke(app, ["autopilot", "--episodes", "2", "--gates", "commit"])
    assert first.exit_code == 0, first.output
    assert "waiting at the commit gate of episode 1" in first.output
    assert "summary:" in first.output and "--answer approve" in first.output
    run_id = first.output.split("aizac autopilot --resume ")[1].split()[0]
    second = runner.invoke(app, ["autopilot", "--resume", run_id, "--answer", "approve"])
    assert "waiting at the commit gate of episode 2" in second.output
    assert "] ep 1   commit         end" in second.output  # a progress bar per event line
    third = runner.invoke(app, ["autopilot", "--resume", "--answer", "approve"])
    assert f"run {run_id} finished: 2 episode(s) written" in third.output
    listing = runner.invoke(app, ["runs"])
    assert run_id in listing.output and "finished" in listing.output
    shown = runner.invoke(app, ["runs", "show", run_id])
    assert "episode 1    [################] checkpoint" in shown.output
    assert "episode 2    [################] checkpoint" in shown.output
    bad = runner.invoke(app, ["autopilot", "--gates", "publish"])
    assert bad.exit_code == 1 and "Unknown gate(s): publish" in bad.output


def test_cli_steer_and_pause_need_a_run() -> None:
    model = JudgingModel()
    app, runner = _app(model), CliRunner()
    runner.invoke(app, ["new", "cli2", "--keywords", "regression", "--lang", "en"])
    runner.invoke(app, ["plot"])
    none = runner.invoke(app, ["autopilot", "--steer", "the heroine survives"])
    assert none.exit_code == 1 and "No autopilot run yet" in none.output
    runner.invoke(app, ["autopilot", "--episodes", "1"])
    said = runner.invoke(app, ["autopilot", "--steer", "the heroine survives"])
    assert said.exit_code == 0 and "queued" in said.output


def test_web_panel_runs_in_the_background_and_shows_the_gate(tmp_path: Path) -> None:
    model = JudgingModel()
    studio = make_studio(tmp_path / "data", model)
    agent = studio.create("web", "regression", genre="fantasy", language="en")
    agent.plan()
    panel = AutopilotPanel(studio.open)
    assert "started" in panel.start("web", 1, ["commit"])
    panel.wait("web", 300)
    view = panel.view("web")
    assert view.waiting and "waiting at the commit gate" in view.gate
    assert "candidate memories" in view.gate and "beat 1" in view.prose
    assert "review" in view.events and "commit         end" not in view.events
    panel.answer("web", "approve")
    panel.wait("web", 300)
    view = panel.view("web")
    assert "finished" in view.status and "finish" in view.events
    assert len(agent.store.beats(status="accepted")) == 2


def test_findings_are_shown_next_to_their_beat() -> None:
    state = {"episode": 3, "prose": {"1": "Aren walked.", "2": "Mira spoke."},
             "report": {"findings": [
                 {"kind": "dead_character", "severity": "error", "message": "Mira is dead.",
                  "memory_id": "m1", "quote": "Mira spoke", "beat": 2}]}}
    text = render_prose(state)
    assert text.index("Aren walked.") < text.index("Mira spoke.") < text.index("Mira is dead.")
    assert "“Mira spoke”" in text


def test_the_app_has_an_autopilot_tab(tmp_path: Path) -> None:
    from aizac.application.service import ApplicationService
    from aizac.web.ui import build_app

    studio = make_studio(tmp_path / "data", JudgingModel())
    app = build_app(ApplicationService(studio, export_dir=tmp_path / "exports"))
    ids = {c.get("props", {}).get("elem_id") for c in app.config["components"]}
    assert {"aizac-ap-start", "aizac-ap-pause", "aizac-ap-resume", "aizac-ap-approve",
            "aizac-ap-events", "aizac-ap-prose"} <= ids
