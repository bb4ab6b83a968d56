"""Domain rules of the writer that several steps share, each written once.

Pure functions over a :class:`~aizac.writer.project.ProjectStore` or its records: the agent,
the prose writer and the web service call these instead of repeating the rule.
"""

from __future__ import annotations

from aizac.errors import InvalidInputError
from aizac.writer.project import PlotRecord, ProjectStore

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
