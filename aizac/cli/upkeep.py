"""``aizac check``, ``aizac backup`` and ``aizac restore``: keeping what a writer made.

``check`` verifies every store of each project (or of one) and exits 1 when something is
wrong, naming each file and the newest backup; ``backup`` takes a consistent backup while the
app may be running; ``restore`` puts one back, all or nothing. ``--user NAME`` acts on an
``aizac serve`` account's projects (an operator's command, on the server's data directory).
See :mod:`aizac.upkeep`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from aizac.cli.errors import friendly
from aizac.cli.say import say
from aizac.cli.studio import StudioFactory, make_studio

if TYPE_CHECKING:
    from aizac.writer.service import Studio

ProjectOpt = Annotated[
    str | None, typer.Option("--project", "-p", help="Project name (default: see each command).")
]
UserOpt = Annotated[
    str | None, typer.Option("--user", help="An `aizac serve` account's projects (operators).")
]


def _studio(ctx: typer.Context, user: str | None) -> Studio:
    """The Studio of the single writer, or of the account ``user`` (its sandbox: data folder,
    projects on the database, memory namespace)."""
    studio = make_studio(ctx)
    if user is None:
        return studio
    from aizac.server.accounts import AccountStore
    from aizac.writer.service import Studio

    account = AccountStore.open(studio.settings).by_name(user)
    root = studio.settings.data_dir / "users" / account.id
    return Studio(studio.settings.model_copy(update={"data_dir": root}),
                  chroma_namespace=account.id, owner=account.id)


def _names(studio: Studio, project: str | None, every: bool) -> list[str]:
    if project is not None:
        return [project]
    if every:
        return [info.name for info in studio.projects()]
    current = studio.current_name()
    if current is None:
        from aizac.errors import NotFoundError

        raise NotFoundError("error.project.none_selected")
    return [current]


@friendly
def check_command(
    ctx: typer.Context, project: ProjectOpt = None, user: UserOpt = None,
) -> None:
    """Verify every store of every project (or of --project): SQLite's integrity check of each
    file, the memory against its key index and commit journal, the invariant checker. Nothing
    is changed but what any open repairs; exits 1 when something is wrong."""
    from aizac.text import render

    studio = _studio(ctx, user)
    names = [project] if project is not None else [i.name for i in studio.projects()]
    if not names:
        say("cli.story.no_projects")
    wrong = 0
    for name in names:
        report = studio.check(name)
        if report.ok and report.rows:  # a project on the database: its rows read back too
            say("cli.check.ok_rows", name=report.project, files=report.files,
                rows=report.rows, memories=report.memories)
        elif report.ok:
            say("cli.check.ok", name=report.project, files=report.files,
                memories=report.memories)
        else:
            wrong += 1
            say("cli.check.found", name=report.project, count=len(report.findings))
            for finding in report.findings:
                say("cli.check.finding", kind=finding.kind, text=render(finding.text, "en"))
        if report.newest_backup is not None:
            say("cli.check.backup", path=str(report.newest_backup))
        elif not report.ok:
            say("cli.check.no_backup")
    if wrong:
        raise typer.Exit(1)


@friendly
def backup_command(
    ctx: typer.Context,
    project: ProjectOpt = None,
    every: Annotated[bool, typer.Option("--all", help="Back up every project.")] = False,
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="The backup file to write (one project; default: its backups "
        "folder, <data>/backups/<project>/).")] = None,
    user: UserOpt = None,
) -> None:
    """Back up the current project (or --project, or --all) while the app may be running: one
    zip of its files, taken at one moment (SQLite's online backup API; Chroma's files checked
    still around the copy; one snapshot of the database's rows on PostgreSQL)."""
    studio = _studio(ctx, user)
    names = _names(studio, project, every)
    if out is not None and len(names) > 1:
        from aizac.errors import InvalidInputError

        raise InvalidInputError("error.backup.one_out")
    for name in names:
        report = studio.backup(name, target=out)
        say("cli.backup.wrote", name=report.project, path=str(report.path), files=report.files,
            size=f"{report.size / 1e6:.1f}", seconds=f"{report.seconds:.1f}")


@friendly
def restore_command(
    ctx: typer.Context,
    archive: Annotated[Path, typer.Argument(help="The backup file (from `aizac backup`).")],
    name: Annotated[str | None, typer.Option(
        "--as", help="Restore under this project name (default: the backup's).")] = None,
    user: UserOpt = None,
) -> None:
    """Put a backup back, all or nothing: it is verified whole, staged, then renamed into
    place; the project's previous folder is kept in its backups folder. Refused while the
    project is open in the web app (close it first)."""
    studio = _studio(ctx, user)
    report = studio.restore(archive, name)
    say("cli.restore.done", name=report.project, path=str(report.archive), files=report.files,
        seconds=f"{report.seconds:.1f}")
    if report.kept is not None:
        say("cli.restore.kept", path=str(report.kept))


def register(app: typer.Typer, studio_factory: StudioFactory | None = None) -> None:
    """Add ``aizac check``, ``aizac backup`` and ``aizac restore``."""
    settings = {"obj": studio_factory} if studio_factory is not None else {}
    app.command("check", context_settings=settings)(check_command)
    app.command("backup", context_settings=settings)(backup_command)
    app.command("restore", context_settings=settings)(restore_command)
