"""``aizac estimate-read --project NAME``: what reading an imported manuscript into memory will
cost with the configured models, before anything runs (through
:meth:`ApplicationService.estimate_reading`; no model call, nothing written).
"""

from __future__ import annotations

from typing import Annotated

import typer

from aizac.cli.errors import friendly
from aizac.cli.say import cli_language
from aizac.cli.studio import StudioFactory, story_service


@friendly
def estimate_read_command(
    ctx: typer.Context,
    project: Annotated[str | None, typer.Option(
        "--project", "-p", help="Project name (default: the current one).")] = None,
) -> None:
    """Say what reading the project's imported manuscript into memory will cost: calls,
    tokens, money and time."""
    from aizac.application.reading_estimate import estimate_lines
    from aizac.text import render

    service, name = story_service(ctx, project)
    for line in estimate_lines(service.estimate_reading(name)):
        typer.echo(render(line, cli_language()))


def register(app: typer.Typer, studio_factory: StudioFactory | None = None) -> None:
    """Add ``aizac estimate-read``; tests pass a factory that injects fake models."""
    settings = {"obj": studio_factory} if studio_factory is not None else {}
    app.command("estimate-read", context_settings=settings)(estimate_read_command)
