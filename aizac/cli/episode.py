"""``aizac length``: show or set a project's episode length (beats per episode, prose length).

``aizac new`` takes the same two options for a new project; ``AIZAC_BEATS_PER_EPISODE`` and
``AIZAC_EPISODE_LENGTH`` set the default of every project that has no values of its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from aizac.cli.errors import friendly
from aizac.cli.studio import StudioFactory, make_studio

if TYPE_CHECKING:
    from aizac.writer.episode import EpisodeLength

BeatsOpt = Annotated[
    int | None,
    typer.Option("--beats-per-episode", min=1, help="Beats (scenes) per episode."),
]
LengthOpt = Annotated[
    int | None,
    typer.Option(
        "--episode-length", min=1,
        help="Target prose per episode: characters for Korean and Chinese, words for English.",
    ),
]


def describe(length: EpisodeLength) -> str:
    """One line for the terminal, e.g. ``4 beats, 5,000 characters (1,250 per beat)``."""
    return (
        f"{length.beats} beats, {length.length:,} {length.unit} "
        f"({length.per_beat:,} per beat)"
    )


@friendly
def length_command(
    ctx: typer.Context,
    project: Annotated[
        str | None, typer.Option("--project", "-p", help="Project (default: the current one).")
    ] = None,
    beats: BeatsOpt = None,
    episode_length: LengthOpt = None,
    reset: Annotated[
        bool, typer.Option(help="Forget the project's own values (use the defaults).")
    ] = False,
) -> None:
    """Show the project's episode length, or set it with the options."""
    agent = make_studio(ctx).open(project)
    episodes = agent.episodes
    if reset:
        current = episodes.set(beats=None, length=None)
    elif beats is not None or episode_length is not None:
        own = episodes.own()
        current = episodes.set(
            beats=beats if beats is not None else own.get("beats"),
            length=episode_length if episode_length is not None else own.get("length"),
        )
    else:
        current = episodes.current()
    typer.echo(f"{agent.info.name}: {describe(current)}")


def register(app: typer.Typer, studio_factory: StudioFactory | None = None) -> None:
    """Add ``aizac length``; tests pass a factory that injects fake models."""
    settings = {"obj": studio_factory} if studio_factory is not None else {}
    app.command("length", context_settings=settings)(length_command)
