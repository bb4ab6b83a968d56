"""Domain rules of the writer that several steps share, each written once.

Pure functions over a project's records (:mod:`aizac.writer.project_rows`) or anything that
reads its plot (:class:`PlotSource`, which :class:`~aizac.writer.project.ProjectStore` is): the
store, the agent, the prose writer and the application service call these instead of repeating
the rule.
The store itself uses the checks, so this module knows it only through :class:`PlotSource`.
"""

from __future__ import annotations

from typing import Protocol

from aizac.errors import ConflictError, InvalidInputError
from aizac.text import Text, Verbatim
from aizac.writer.project_rows import BeatRecord, PlotRecord, ProjectInfo


class PlotSource(Protocol):
    """What the plot rules read of a project (a :class:`~aizac.writer.project.ProjectStore`)."""

    def plot(self) -> PlotRecord | None:
        """The project's plot, ``None`` before one is made."""

    def info(self) -> ProjectInfo:
        """The project's name, language, genre and keywords."""


def require_plot(store: PlotSource) -> PlotRecord:
    """The project's plot.

    Raises:
        InvalidInputError: the project has no plot yet.
    """
    record = store.plot()
    if record is None:
        raise InvalidInputError("error.plot.none")
    return record


def story_genre(store: PlotSource, default: str) -> str:
    """The genre prompts name: the project's, else the plot's, else ``default`` (the prompt
    language's word for a web novel, :attr:`aizac.writer.prompt_words.PromptWords.genre`)."""
    record = store.plot()
    return store.info().genre or (record.plot.genre if record else "") or default


STATUS_NAMES = {"draft": "beat.status.draft", "accepted": "beat.status.accepted",
                "rejected": "beat.status.rejected"}
"""A beat's status as the reader calls it."""


def status_name(status: str) -> Text | Verbatim:
    """A beat's status (``draft``...) in the catalogue's words; an unknown one as it is."""
    key = STATUS_NAMES.get(status)
    return Text(key) if key else Verbatim(status)


def beat_thing(episode: int, index: int) -> Text:
    """"beat 1-2", the thing an error names."""
    return Text("thing.beat", where=f"{episode}-{index}")


def check_version(what: Text, current: int, expected: int | None) -> None:
    """Optimistic concurrency: ``expected`` (the version the caller loaded) must be ``current``.

    Raises:
        ConflictError: the record changed since the caller loaded it; nothing was written.
    """
    if expected is not None and expected != current:
        raise ConflictError("error.conflict.changed", what=what, current=current,
                            expected=expected)


def check_draft(what: Text, status: str, version: int, expected: int | None) -> None:
    """Only a draft can be edited, regenerated, rejected or accepted, and only at the version
    the caller loaded (``expected``; ``None`` skips the version check).

    Raises:
        InvalidInputError: the beat is not a draft (any more).
        ConflictError: the draft changed since the caller loaded it.
    """
    if status != "draft":
        raise InvalidInputError("error.beat.not_draft", what=what, status=status_name(status))
    check_version(what, version, expected)


def require_draft(record: BeatRecord, expected_version: int | None = None) -> BeatRecord:
    """``record`` if it is a draft at ``expected_version`` (see :func:`check_draft`)."""
    check_draft(beat_thing(record.episode, record.index), record.status, record.version,
                expected_version)
    return record


def check_accepted(what: Text, status: str) -> None:
    """Prose is written and saved only for an accepted beat.

    Raises:
        InvalidInputError: the beat is a draft or was rejected.
    """
    if status != "accepted":
        raise InvalidInputError("error.beat.not_accepted", what=what, status=status_name(status))


MAX_QUESTION_CHARS = 500
"""The longest question to memory (it goes to the model verbatim)."""


def check_question(question: str) -> str:
    """A question to memory, stripped.

    Raises:
        InvalidInputError: it is empty or longer than :data:`MAX_QUESTION_CHARS`.
    """
    text = question.strip()
    if not text:
        raise InvalidInputError("error.question.empty")
    if len(text) > MAX_QUESTION_CHARS:
        raise InvalidInputError("error.question.long", n=len(text), limit=MAX_QUESTION_CHARS)
    return text
