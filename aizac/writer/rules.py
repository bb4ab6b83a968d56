"""Domain rules of the writer that several steps share, each written once.

Pure functions over a :class:`~aizac.writer.project.ProjectStore` or its records: the store,
the agent, the prose writer and the web service call these instead of repeating the rule.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aizac.errors import ConflictError, InvalidInputError

if TYPE_CHECKING:  # the store itself uses the checks below
    from aizac.writer.project import BeatRecord, PlotRecord, ProjectStore

DEFAULT_GENRE = "web novel"
"""The genre named in prompts when neither the project nor its plot names one."""


def require_plot(store: ProjectStore) -> PlotRecord:
    """The project's plot.

    Raises:
        InvalidInputError: the project has no plot yet.
    """
    record = store.plot()
    if record is None:
        raise InvalidInputError(
            "This project has no plot yet.", hint="Generate one first (`aizac plot`)."
        )
    return record


def story_genre(store: ProjectStore) -> str:
    """The genre prompts name: the project's, else the plot's, else :data:`DEFAULT_GENRE`."""
    record = store.plot()
    return store.info().genre or (record.plot.genre if record else "") or DEFAULT_GENRE


NOT_A_DRAFT_HINT = (
    "Refresh to see the beat as it is now (another tab or command may have changed it); "
    "an accepted beat changes only after its acceptance is undone, otherwise design a new beat."
)


def check_version(what: str, current: int, expected: int | None) -> None:
    """Optimistic concurrency: ``expected`` (the version the caller loaded) must be ``current``.

    Raises:
        ConflictError: the record changed since the caller loaded it; nothing was written.
    """
    if expected is not None and expected != current:
        raise ConflictError(
            f"The {what} changed since you loaded it (version {current}, you had {expected})."
        )


def check_draft(what: str, status: str, version: int, expected: int | None) -> None:
    """Only a draft can be edited, regenerated, rejected or accepted, and only at the version
    the caller loaded (``expected``; ``None`` skips the version check).

    Raises:
        InvalidInputError: the beat is not a draft (any more).
        ConflictError: the draft changed since the caller loaded it.
    """
    if status != "draft":
        raise InvalidInputError(
            f"The {what} is {status}; only a draft can be changed.", hint=NOT_A_DRAFT_HINT
        )
    check_version(what, version, expected)


def require_draft(record: BeatRecord, expected_version: int | None = None) -> BeatRecord:
    """``record`` if it is a draft at ``expected_version`` (see :func:`check_draft`)."""
    what = f"beat {record.episode}-{record.index}"
    check_draft(what, record.status, record.version, expected_version)
    return record


NOT_ACCEPTED_HINT = "Accept the beat first (`aizac beat --accept`, or Accept in the web app)."


def check_accepted(what: str, status: str) -> None:
    """Prose is written and saved only for an accepted beat.

    Raises:
        InvalidInputError: the beat is a draft or was rejected.
    """
    if status != "accepted":
        raise InvalidInputError(
            f"The {what} is {status}; prose is written for accepted beats.",
            hint=NOT_ACCEPTED_HINT,
        )
