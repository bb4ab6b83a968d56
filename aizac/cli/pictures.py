"""``aizac pictures``: a project's cover and illustrations from the command line.

The same operations as the web app's Gallery and the REST API's ``/pictures`` routes, through
the one application service (:class:`~aizac.application.service.ApplicationService`): list
what was made and where it is placed, make one picture (its prompt drawn from the story as it
stood at that beat, shown with what it costs; made only once the writer confirms, ``--yes`` in
scripts), place one in the book or take it out (a node of the undo tree, as in the web app).
The offline default image role, ``typographic``, sets a cover or a scene card in type, free.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from aizac.cli.errors import friendly
from aizac.cli.say import say, text
from aizac.cli.studio import story_service
from aizac.errors import InvalidInputError

if TYPE_CHECKING:  # the service (Chroma, LangChain) is imported only by the commands
    from aizac.application.service import ApplicationService

ProjectOpt = Annotated[
    str | None, typer.Option("--project", "-p", help="Project name (default: the current one).")
]
CoverOpt = Annotated[bool, typer.Option("--cover", help="The book's cover.")]
BeatOpt = Annotated[
    int | None, typer.Option("--beat", min=1, help="An accepted beat's id (its illustration).")
]

pictures_app = typer.Typer(
    help="The project's cover and illustrations: list them (no command), make, place, remove.",
    invoke_without_command=True,
    no_args_is_help=False,
)


def _slot(cover: bool, beat: int | None) -> str:
    """``cover`` or ``beat:<id>`` from the options (exactly one of them)."""
    from aizac.illustration.store import COVER, beat_slot

    if cover == (beat is not None):
        raise InvalidInputError("error.image.cover_or_beat")
    return COVER if cover else beat_slot(int(beat or 0))


def _where(slot: str, service: ApplicationService, name: str) -> str:
    """A slot as the writer reads it: ``cover``, or the beat's ``episode-index``."""
    from aizac.illustration.store import COVER

    if slot == COVER:
        return text("cli.pictures.cover")
    record = service.beat(name, int(slot.split(":", 1)[1]))
    return text("cli.pictures.beat", where=f"{record.episode}-{record.index}")


@pictures_app.callback()
@friendly
def pictures_command(ctx: typer.Context, project: ProjectOpt = None) -> None:
    """List the project's pictures, newest first (* placed in the book, and where)."""
    if ctx.invoked_subcommand is not None:
        return
    service, name = story_service(ctx, project)
    ill = service.illustrator(name)
    records = ill.pictures()
    if not records:
        say("cli.pictures.none")
        return
    placed = {image: slot for slot, image in ill.placements().items()}
    for record in records:
        slot = placed.get(record.id)
        where = _where(slot, service, name) if slot else "-"
        made_for = (text("cli.pictures.cover") if record.kind == "cover"
                    else f"{record.episode}-{record.beat}")
        typer.echo(f"{'*' if slot else ' '} {record.id}\t{made_for}\t{where}\t{record.model}"
                   f"\t{ill.images.path(record)}")


@pictures_app.command("make")
@friendly
def make_command(
    ctx: typer.Context,
    cover: CoverOpt = False,
    beat: BeatOpt = None,
    prompt: Annotated[str | None, typer.Option(
        "--prompt", help="The prompt to send (default: the one drawn from the story).")] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Make it without asking.")] = False,
    project: ProjectOpt = None,
) -> None:
    """Make one picture for the cover (--cover) or an accepted beat (--beat ID): shows the
    prompt and what it costs, then makes it once you confirm (not placed: see `place`)."""
    service, name = story_service(ctx, project)
    slot = _slot(cover, beat)
    ill = service.illustrator(name)
    wording = prompt if prompt is not None else ill.prompt(slot).text
    typer.echo(wording)
    quote = ill.quote()
    if quote.billable:
        say("cli.pictures.quote_billable", model=quote.model, left=quote.left,
            budget=quote.budget)
    else:
        say("cli.pictures.quote_free", model=quote.model)
    if not yes and not typer.confirm(text("cli.pictures.confirm"), default=False):
        raise InvalidInputError("error.image.unconfirmed")
    record = service.generate_image(name, slot, wording)
    say("cli.pictures.made", id=record.id, model=record.model,
        path=str(ill.images.path(record)))


@pictures_app.command("place")
@friendly
def place_command(
    ctx: typer.Context,
    image: Annotated[str, typer.Argument(help="The picture's id (`aizac pictures` lists them).")],
    cover: CoverOpt = False,
    beat: BeatOpt = None,
    project: ProjectOpt = None,
) -> None:
    """Put a picture in the book: on the cover (--cover) or before an accepted beat
    (--beat ID); a step of the undo history (the web app's Undo takes it back)."""
    service, name = story_service(ctx, project)
    slot = _slot(cover, beat)
    before = service.place_image(name, slot, image)
    say("cli.pictures.placed", id=image, where=_where(slot, service, name))
    if before and before != image:
        say("cli.pictures.replaced", id=before)


@pictures_app.command("remove")
@friendly
def remove_command(
    ctx: typer.Context,
    cover: CoverOpt = False,
    beat: BeatOpt = None,
    project: ProjectOpt = None,
) -> None:
    """Take the picture out of the cover (--cover) or a beat (--beat ID); it stays listed."""
    service, name = story_service(ctx, project)
    slot = _slot(cover, beat)
    before = service.place_image(name, slot, None)
    if before is None:
        say("cli.pictures.nothing_placed", where=_where(slot, service, name))
    else:
        say("cli.pictures.removed", id=before, where=_where(slot, service, name))


def register(app: typer.Typer, studio_factory: Any = None) -> None:
    """Add ``aizac pictures`` (tests pass a factory that injects fake models)."""
    settings = {"obj": studio_factory} if studio_factory is not None else {}
    app.add_typer(pictures_app, name="pictures", context_settings=settings)
