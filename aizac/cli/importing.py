"""``aizac import FILE... --preview``: how a manuscript splits into episodes, adjusted by the
writer, before anything is saved (through :meth:`ApplicationService.preview_manuscript`);
``aizac import FILE... --project NAME``: the same split saved as a new project's story
(through :meth:`ApplicationService.import_manuscript`), with ``--read`` read into memory right
after; ``aizac read --project NAME``: the memory built from an imported manuscript's scenes not
read yet (through :meth:`ApplicationService.read_manuscript`; run it again to resume).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from aizac.cli.errors import friendly
from aizac.cli.say import cli_language, text
from aizac.cli.studio import StudioFactory, make_studio
from aizac.errors import InvalidInputError
from aizac.text import Text, render

if TYPE_CHECKING:
    from aizac.application.reading import ReadBudget, ReadingReport
    from aizac.application.service import ApplicationService, ImportReport
    from aizac.manuscript.preview import Adjustment, ManuscriptPreview

FIRST_LINE = 40
"""Characters of an episode's first line the table shows."""


def adjustments(merge: list[int], split: list[str]) -> list[Adjustment]:
    """The writer's adjustments from the options: merges first, then splits, each in the order
    given (``--split 3:12`` splits episode 3 at its 12th paragraph)."""
    from aizac.manuscript.preview import Merge, SplitAt

    out: list[Adjustment] = [Merge(n) for n in merge]
    for value in split:
        episode, _, paragraph = value.partition(":")
        if not (episode.strip().isdigit() and paragraph.strip().isdigit()):
            raise InvalidInputError("error.manuscript.split_option", value=value)
        out.append(SplitAt(int(episode), int(paragraph)))
    return out


def table(preview: ManuscriptPreview) -> list[str]:
    """The preview as lines for the terminal: a header, a row per episode, a summary."""
    lines = [text("cli.import.preview.header")]
    for e in preview.episodes:
        first = e.first_line if len(e.first_line) <= FIRST_LINE else e.first_line[:FIRST_LINE] + "…"
        lines.append(f"{e.number:>7}  {e.characters:>10,}  {e.scenes:>6}  {first}")
    lines.append(text("cli.import.preview.summary", files=len(preview.files),
                      episodes=len(preview.episodes), characters=f"{preview.characters:,}"))
    if preview.skipped_numbers:
        lines.append(text("cli.import.preview.skipped",
                          numbers=", ".join(map(str, preview.skipped_numbers))))
    lines += [text("cli.import.preview.left_out", file=x.file, row=x.row, text=x.text[:60])
              for x in preview.left_out]
    lines.append(text("cli.import.preview.nothing_saved"))
    return lines


def saved(report: ImportReport) -> list[str]:
    """What an import saved, as lines for the terminal."""
    return [text("cli.import.saved", project=report.project, files=len(report.files),
                 episodes=report.episodes, beats=report.beats,
                 characters=f"{report.characters:,}"),
            text("cli.import.unread", project=report.project)]


def _progress(message: Text) -> None:
    typer.echo(f"» {render(message, cli_language())}", err=True)


def read_lines(report: ReadingReport) -> list[str]:
    """What a reading did, as lines for the terminal."""
    return [render(line, cli_language()) for line in report.lines()]


def _budget(budget: str | None) -> ReadBudget | None:
    from aizac.application.reading import ReadBudget

    return ReadBudget.parse(budget) if budget else None


def _read(service: ApplicationService, project: str, budget: ReadBudget | None) -> list[str]:
    return read_lines(service.read_manuscript(project, _progress, budget=budget))


BudgetOpt = Annotated[str | None, typer.Option(
    "--budget", help="Stop before a scene that would pass this spend: tokens (200000, 200k) or "
                     "US dollars where the models are priced ($2, 2usd).")]


@friendly
def read_command(
    ctx: typer.Context,
    project: Annotated[str, typer.Option(
        "--project", "-p", help="The project whose imported manuscript the memory reads.")],
    budget: BudgetOpt = None,
) -> None:
    """Build the memory from an imported manuscript: its scenes not read yet, in order (run
    again to go on after a stop, a budget or a kill; nothing is read twice)."""
    from aizac.application.exports import export_dir_for
    from aizac.application.service import ApplicationService

    studio = make_studio(ctx)
    service = ApplicationService(studio, export_dir=export_dir_for(studio.settings))
    limit = _budget(budget)
    for line in _read(service, project, limit):
        typer.echo(line)


@friendly
def import_command(
    ctx: typer.Context,
    files: Annotated[list[Path], typer.Argument(
        help="Manuscript files (.txt, .md, .docx, .epub, .hwpx) or folders of them, read in "
             "natural order as one serial.")],
    preview: Annotated[bool, typer.Option(
        "--preview", help="Show the episodes found; save nothing.")] = False,
    project: Annotated[str | None, typer.Option(
        "--project", "-p", help="Save the manuscript as this new project (an existing one is "
                                "never replaced).")] = None,
    genre: Annotated[str, typer.Option(help="The new project's genre.")] = "",
    keywords: Annotated[str, typer.Option(
        "--keywords", "-k", help="The new project's keywords, comma-separated.")] = "",
    lang: Annotated[str | None, typer.Option(
        "--lang", help="ko, en or zh (default: the manuscript's script).")] = None,
    merge: Annotated[list[int] | None, typer.Option(
        "--merge", metavar="EPISODE", help="Join EPISODE to the one before it (repeatable).")
    ] = None,
    split: Annotated[list[str] | None, typer.Option(
        "--split", metavar="EPISODE:PARAGRAPH",
        help="Start a new episode at PARAGRAPH of EPISODE (repeatable).")] = None,
    read: Annotated[bool, typer.Option(
        "--read", help="Read the saved manuscript into memory right away (aizac read).")
    ] = False,
    budget: BudgetOpt = None,
) -> None:
    """Preview how a manuscript splits into episodes, or save it as a new project's story."""
    if not preview and not project:
        raise InvalidInputError("error.manuscript.import_project")
    steps = adjustments(merge or [], split or [])
    limit = _budget(budget)  # refused before anything is saved
    from aizac.application.exports import export_dir_for
    from aizac.application.service import ApplicationService
    from aizac.keywords import split_keywords

    studio = make_studio(ctx)
    service = ApplicationService(studio, export_dir=export_dir_for(studio.settings))
    if preview:
        lines = table(service.preview_manuscript(files, steps))
    else:
        words = split_keywords(keywords) if keywords.strip() else []
        report = service.import_manuscript(str(project), files, steps, genre=genre,
                                           keywords=words, language=lang)
        lines = saved(report)
        if read:
            for line in lines[:1]:  # said before the reading starts; "not read yet" is not
                typer.echo(line)
            lines = _read(service, report.project, limit)
    for line in lines:
        typer.echo(line)


def register(app: typer.Typer, studio_factory: StudioFactory | None = None) -> None:
    """Add ``aizac import`` and ``aizac read``; tests pass a factory that injects fake
    models."""
    settings = {"obj": studio_factory} if studio_factory is not None else {}
    app.command("import", context_settings=settings)(import_command)
    app.command("read", context_settings=settings)(read_command)
