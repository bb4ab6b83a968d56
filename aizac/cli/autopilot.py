"""``aizac autopilot`` and ``aizac runs``: write episodes on their own, watch and steer the runs.

- ``aizac autopilot --episodes N [--gates plan,rewrite,commit] [--budget-tokens T]`` starts a
  run; ``--resume [RUN]`` goes on with one (after a pause, a gate or a ``kill -9``), with
  ``--answer approve|edit|reject [--value TEXT]`` at a gate; ``--pause [RUN]`` asks a running
  run to stop before its next step; ``--steer [RUN] "text"`` sends an intervention.
- ``aizac runs`` lists the project's runs; ``aizac runs show RUN`` shows a progress bar per
  episode, the event log and the decisions.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from aizac.cli.errors import friendly
from aizac.cli.say import cli_language, say, text
from aizac.errors import InvalidInputError
from aizac.text import render

if TYPE_CHECKING:
    from aizac.autopilot.events import Event, RunStore
    from aizac.autopilot.runner import RunResult

EPISODE_NODES = ("load_context", "plan", "draft", "extract", "check", "review", "commit",
                 "checkpoint")
ProjectOpt = Annotated[
    str | None, typer.Option("--project", "-p", help="Project name (default: the current one).")
]


def bar(done: int, total: int, width: int = 16) -> str:
    """``[#####-----]`` (pure)."""
    filled = width if total <= 0 else min(width, round(width * done / total))
    return "[" + "#" * filled + "-" * (width - filled) + "]"


def episode_progress(events: list[Event]) -> dict[int, tuple[int, str]]:
    """Episode -> (steps of :data:`EPISODE_NODES` done, last node) from a run's events."""
    out: dict[int, tuple[int, str]] = {}
    seen: dict[int, set[str]] = {}
    for e in events:
        if e.kind == "end" and e.node in EPISODE_NODES and e.episode:
            seen.setdefault(e.episode, set()).add(e.node)
            out[e.episode] = (len(seen[e.episode]), e.node)
    return out


def _print_event(event: Event, progress: dict[int, set[str]]) -> None:
    if event.kind == "start":
        return
    if event.kind == "end" and event.node in EPISODE_NODES:
        progress.setdefault(event.episode, set()).add(event.node)
    done = len(progress.get(event.episode, ()))
    typer.echo(f"{bar(done, len(EPISODE_NODES))} {event.line()}")


def _options(episodes: int, gates: str, every: int, budget_tokens: int,
             episode_tokens: int) -> Any:
    from aizac.autopilot.state import GATES, Options

    chosen = tuple(g.strip() for g in gates.split(",") if g.strip())
    unknown = [g for g in chosen if g not in GATES]
    if unknown:
        raise InvalidInputError("error.autopilot.gates", gates=", ".join(unknown),
                                known=", ".join(GATES))
    return Options(episodes=episodes, gates=chosen, every=every, budget_tokens=budget_tokens,
                   episode_tokens=episode_tokens)


def _answer(choice: str | None, value: str | None) -> Any:
    if choice is None:
        return None
    if value is None:
        return choice
    try:
        parsed: Any = json.loads(value)
    except ValueError:
        parsed = value
    return {"choice": choice, "value": parsed}


def _show_gate(result: RunResult) -> None:
    gate = result.gate or {}
    say("cli.autopilot.waiting_gate", gate=gate.get("gate"), episode=gate.get("episode"))
    for key in ("beats", "memories"):
        for line in gate.get(key, []) or []:
            typer.echo(f"  {line}")
    if gate.get("verdict"):
        say("cli.autopilot.verdict", verdict=json.dumps(gate["verdict"], ensure_ascii=False))
    for f in gate.get("findings", []) or []:
        say("cli.autopilot.finding", severity=f.get("severity"), beat=f.get("beat"),
            message=f.get("message"))


def _interactive_answer(result: RunResult) -> Any:
    _show_gate(result)
    choice = typer.prompt(text("cli.autopilot.ask_answer"), default="approve")
    if choice.strip().lower() != "edit":
        return choice
    return _answer("edit", typer.prompt(text("cli.autopilot.ask_value")))


def _finish(autopilot: Any, result: RunResult, on_event: Any) -> None:
    while result.status == "waiting" and sys.stdin.isatty():
        result = autopilot.resume(result.run_id, answer=_interactive_answer(result),
                                  on_event=on_event)
    if result.status == "waiting":
        _show_gate(result)
        say("cli.autopilot.answer_with", run=result.run_id)
    elif result.status == "paused":
        say("cli.autopilot.paused", run=result.run_id,
            message=render(result.message, cli_language()))
        say("cli.autopilot.go_on", run=result.run_id)
    else:
        say("cli.autopilot.finished", run=result.run_id,
            episodes=result.state.get("done_episodes", 0))


@friendly
def autopilot_command(
    ctx: typer.Context,
    args: Annotated[list[str] | None, typer.Argument(
        help="RUN for --resume/--pause; RUN and TEXT (or TEXT alone) for --steer.")] = None,
    project: ProjectOpt = None,
    episodes: Annotated[int, typer.Option(min=1, help="Episodes to write.")] = 1,
    gates: Annotated[str, typer.Option(help="Gates that wait for you: plan,rewrite,commit.")] = "",
    every: Annotated[int, typer.Option(min=0, help="Wait after every N episodes (0: never).")] = 5,
    budget_tokens: Annotated[int, typer.Option(min=0, help="Tokens the run may spend.")] = 0,
    episode_tokens: Annotated[int, typer.Option(min=0, help="Tokens an episode may spend.")] = 0,
    resume: Annotated[bool, typer.Option("--resume", help="Go on with a run.")] = False,
    answer: Annotated[str | None, typer.Option(help="approve, edit or reject (at a gate).")] = None,
    value: Annotated[str | None, typer.Option(help="The edit, with --answer edit.")] = None,
    pause: Annotated[bool, typer.Option("--pause", help="Pause a running run.")] = False,
    steer: Annotated[bool, typer.Option("--steer", help="Send a steering note.")] = False,
) -> None:
    """Write episodes on their own: plan, draft, check, review, rewrite, commit."""
    from aizac.autopilot.runner import Autopilot
    from aizac.cli.studio import story_service

    rest = list(args or [])
    service, name = story_service(ctx, project)
    agent = service.agent(name)
    autopilot = Autopilot(agent, door=service)
    progress: dict[int, set[str]] = {}

    def on_event(event: Event) -> None:
        _print_event(event, progress)

    try:
        if steer:
            if not rest:
                raise InvalidInputError("error.autopilot.steer_text")
            run = rest[0] if len(rest) > 1 else None
            autopilot.steer(run, rest[-1])
            say("cli.autopilot.steered")
            return
        if pause:
            autopilot.pause(rest[0] if rest else None)
            say("cli.autopilot.pause_requested")
            return
        if resume:
            options = {"budget_tokens": budget_tokens} if budget_tokens else None
            result = autopilot.resume(rest[0] if rest else None, answer=_answer(answer, value),
                                      options=options, on_event=on_event)
        else:
            result = autopilot.start(
                _options(episodes, gates, every, budget_tokens, episode_tokens), on_event
            )
        _finish(autopilot, result, on_event)
    finally:
        autopilot.close()


def _store(project: str | None) -> RunStore:
    from aizac.autopilot.events import RunStore
    from aizac.cli.studio import list_projects
    from aizac.errors import NotFoundError
    from aizac.settings import get_settings

    current, _ = list_projects()
    name = project or current
    if name is None:
        raise NotFoundError("error.project.none_selected")
    directory = get_settings().data_dir / "projects" / name
    if not directory.is_dir():
        raise NotFoundError("error.project.missing", name=name,
                            root=str(get_settings().data_dir / "projects"))
    return RunStore(directory)


runs_app = typer.Typer(help="The project's autopilot runs.", invoke_without_command=True,
                       no_args_is_help=False)


@runs_app.callback()
@friendly
def runs_command(ctx: typer.Context, project: ProjectOpt = None) -> None:
    """List the project's autopilot runs."""
    if ctx.invoked_subcommand is not None:
        ctx.obj = {"project": project}
        return
    store = _store(project)
    runs = store.runs()
    if not runs:
        say("cli.autopilot.no_runs")
    for run in runs:
        episodes = run.options.get("episodes", "?")
        say("cli.autopilot.run_row", run=run.id, status=run.status, episodes=episodes,
            tokens=f"{store.tokens(run.id):,}", message=render(run.message, cli_language()))


@runs_app.command("show")
@friendly
def show_command(
    ctx: typer.Context,
    run_id: Annotated[str | None, typer.Argument(help="Run id (default: the latest).")] = None,
    project: ProjectOpt = None,
    tail: Annotated[int, typer.Option(help="Events to show (0: all).")] = 40,
) -> None:
    """A run's progress bar per episode, its latest events and its decisions."""
    parent = ctx.obj.get("project") if isinstance(ctx.obj, dict) else None
    chosen = project or parent
    store = _store(chosen)
    run = store.run(run_id)
    events = store.events(run.id)
    typer.echo(text("cli.autopilot.run_line", run=run.id, status=run.status,
                    message=render(run.message, cli_language())).rstrip())
    for episode, (done, last) in sorted(episode_progress(events).items()):
        label = text("cli.autopilot.episode", n=episode)
        typer.echo(f"{label:<12} {bar(done, len(EPISODE_NODES))} {last}")
    shown = [e for e in events if e.kind != "start"]
    for e in shown[-tail:] if tail else shown:
        typer.echo(e.line())
    for d in store.decisions(run.id):
        say("cli.autopilot.decision", episode=d["episode"], node=d["node"],
            decision=d["decision"], reason=d["reason"])


def register(app: typer.Typer, studio_factory: Any = None) -> None:
    """Add ``aizac autopilot`` and ``aizac runs``; tests pass a factory with fake models."""
    settings = {"obj": studio_factory} if studio_factory is not None else {}
    app.command("autopilot", context_settings=settings)(autopilot_command)
    app.add_typer(runs_app, name="runs")
