"""``aizac report --project NAME``: the continuity report of a serial (issue 42 item 3), through
:meth:`ApplicationService.continuity_report`; ``--markdown FILE`` writes it as Markdown,
``--dismiss KEY`` dismisses a finding for good (``--restore KEY`` brings it back)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from aizac.cli.errors import friendly
from aizac.cli.say import text
from aizac.cli.studio import StudioFactory, make_studio


@friendly
def report_command(
    ctx: typer.Context,
    project: Annotated[str, typer.Option("--project", "-p", help="The project.")],
    first: Annotated[int | None, typer.Option(
        "--first", help="The first episode to report on (default: 1).")] = None,
    last: Annotated[int | None, typer.Option(
        "--last", help="The last episode to report on (default: the last accepted).")] = None,
    markdown: Annotated[Path | None, typer.Option(
        "--markdown", help="Write the report to this Markdown file.")] = None,
    no_reviewer: Annotated[bool, typer.Option(
        "--no-reviewer", help="The deterministic checks only (no model call).")] = False,
    dismiss: Annotated[str | None, typer.Option(
        "--dismiss", metavar="KEY", help="Dismiss the finding KEY for good.")] = None,
    restore: Annotated[str | None, typer.Option(
        "--restore", metavar="KEY", help="Bring back the dismissed finding KEY.")] = None,
) -> None:
    """Report the serial's continuity errors (ConStory-Bench taxonomy)."""
    from aizac.application.exports import export_dir_for
    from aizac.application.service import ApplicationService

    studio = make_studio(ctx)
    service = ApplicationService(studio, export_dir=export_dir_for(studio.settings))
    if dismiss or restore:
        keys = service.dismiss_finding(project, str(dismiss or restore), dismissed=bool(dismiss))
        typer.echo(text("cli.report.dismissed", count=len(keys)))
        return
    report = service.continuity_report(project, first, last, reviewer=not no_reviewer)
    rendered = service.report_markdown(project, report=report)
    if markdown is not None:
        markdown.write_text(rendered, encoding="utf-8")
        typer.echo(text("cli.report.written", path=str(markdown),
                        count=len(report.findings)))
    else:
        typer.echo(rendered)


def register(app: typer.Typer, studio_factory: StudioFactory | None = None) -> None:
    """Add ``aizac report``; tests pass a factory that injects fake models."""
    settings = {"obj": studio_factory} if studio_factory is not None else {}
    app.command("report", context_settings=settings)(report_command)
