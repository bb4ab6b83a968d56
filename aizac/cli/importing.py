"""``aizac import FILE... --preview``: how a manuscript splits into episodes, adjusted by the
writer, before anything is saved (through :meth:`ApplicationService.preview_manuscript`);
``aizac import FILE... --project NAME``: the same split saved as a new project's story
(through :meth:`ApplicationService.import_manuscript`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from aizac.cli.errors import friendly
from aizac.cli.say import text
from aizac.cli.studio import StudioFactory, make_studio
from aizac.errors import InvalidInputError

if TYPE_CHECKING:
    from aizac.application.service import ImportReport
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
            text("cli.import.unread")]


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
) -> None:
    """Preview how a manuscript splits into episodes, or save it as a new project's story."""
    if not preview and not project:
        raise InvalidInputError("error.manuscript.import_project")
    steps = adjustments(merge or [], split or [])
    from aizac.application.exports import export_dir_for
    from aizac.application.service import ApplicationService
    from aizac.keywords import split_keywords

    studio = make_studio(ctx)
    service = ApplicationService(studio, export_dir=export_dir_for(studio.settings))
    if preview:
        lines = table(service.preview_manuscript(files, steps))
    else:
        words = split_keywords(keywords) if keywords.strip() else []
        lines = saved(service.import_manuscript(str(project), files, steps, genre=genre,
                                                keywords=words, language=lang))
    for line in lines:
        typer.echo(line)


def register(app: typer.Typer, studio_factory: StudioFactory | None = None) -> None:
    """Add ``aizac import``; tests pass a factory that injects fake models."""
    settings = {"obj": studio_factory} if studio_factory is not None else {}
    app.command("import", context_settings=settings)(import_command)
