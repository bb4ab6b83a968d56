"""Episode length in the web app: beats per episode and target prose length, the writer's choice.

Plain handlers over the :class:`~aizac.application.service.ApplicationService` (nothing here
imports Gradio):
:func:`parse_count` checks what the writer typed, :func:`defaults` gives the length a new project
in a language gets, :func:`episode_view` and :func:`set_episode_length` read and change the open
project's own values (see :mod:`aizac.writer.episode` for units, ranges and precedence).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from aizac.application.service import ApplicationService
from aizac.errors import InvalidInputError
from aizac.text import Text
from aizac.writer import episode


@dataclass(frozen=True)
class EpisodeView:
    """The episode length of a project: in force, its own values, and the default without them."""

    beats: int
    length: int
    unit: str  # "characters" (ko, zh) or "words" (en)
    per_beat: int
    own_beats: int | None
    own_length: int | None
    default_beats: int
    default_length: int


def parse_count(what: str, value: Any) -> int | None:  # what: the field's catalogue key
    """A whole number the writer typed (``None`` when left empty, meaning "the default").

    Accepts numbers from the number boxes and text such as ``"5,000"``; anything else is an
    :class:`InvalidInputError` naming the field.
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    number: float
    if isinstance(value, str):
        try:
            number = float(value.replace(",", "").replace("_", "").strip())
        except ValueError as e:
            raise InvalidInputError("error.form.whole", field=Text(what), got=value) from e
    elif isinstance(value, int | float) and not isinstance(value, bool):
        number = float(value)
    else:
        raise InvalidInputError("error.form.whole", field=Text(what), got=repr(value))
    if number != number or number in (float("inf"), float("-inf")) or int(number) != number:
        raise InvalidInputError("error.form.whole", field=Text(what), got=str(value))
    return int(number)


def parse(beats: Any, length: Any) -> tuple[int | None, int | None]:
    """(beats, length) from the page's boxes, each checked (range included)."""
    b = parse_count("ui.ep.beats", beats)
    n = parse_count("ui.ep.title", length)
    episode.check(b, n)
    return b, n


def defaults(service: ApplicationService, language: str) -> episode.EpisodeLength:
    """The episode length a new project in ``language`` gets unless the writer sets one."""
    options, settings = service.studio.agent_options, service.studio.settings
    return episode.resolve(
        language,
        service_beats=options.get("beats_per_episode"),
        service_length=options.get("episode_length"),
        settings_beats=settings.beats_per_episode,
        settings_length=settings.episode_length,
    )


def episode_view(service: ApplicationService, project: str | None) -> EpisodeView:
    """The open project's episode length."""
    agent = service.agent(project)
    current = agent.episodes.current()
    own = agent.episodes.own()
    base = defaults(service, agent.info.language)
    return EpisodeView(
        beats=current.beats, length=current.length, unit=current.unit,
        per_beat=current.per_beat, own_beats=own.get("beats"), own_length=own.get("length"),
        default_beats=base.beats, default_length=base.length,
    )


def set_episode_length(
    service: ApplicationService, project: str | None, beats: Any, length: Any
) -> EpisodeView:
    """Store the project's own episode length (an empty box: that part goes back to the
    default); it applies from the next beat and the next prose on."""
    b, n = parse(beats, length)
    service.set_episode_length(project, beats=b, length=n)
    return episode_view(service, project)
