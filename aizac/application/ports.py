"""What the application service needs from its collaborators (structural types for mypy).

A project's memory is :class:`aizac.writer.ports.ProjectMemory`, as its agent holds it; the
projects come from a :class:`Projects` (:class:`aizac.writer.service.Studio`); every model
generation is admitted by a :class:`GenerationSlots` policy.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from aizac.settings import Settings
from aizac.text import Text
from aizac.writer.agent import WriterAgent
from aizac.writer.project import ProjectInfo, Seed

if TYPE_CHECKING:
    from aizac.memory.reindex import ReindexReport
    from aizac.upkeep.backup import BackupReport
    from aizac.upkeep.check import CheckReport


class Projects(Protocol):
    """Creates, opens, lists, deletes and re-embeds projects
    (:class:`~aizac.writer.service.Studio`); each open project is a :class:`WriterAgent`."""

    settings: Settings
    agent_options: dict[str, Any]
    """What every agent is built with (its episode length defaults among them)."""

    def projects(self) -> list[ProjectInfo]: ...
    def create(
        self, name: str, keywords: str | list[str], *, genre: str = "", language: str | None = None,
        beats_per_episode: int | None = None, episode_length: int | None = None,
        seed: Seed | None = None,
    ) -> WriterAgent: ...
    def open(self, name: str | None = None) -> WriterAgent: ...
    def delete(self, name: str) -> None: ...
    def reindex(
        self, name: str | None = None, progress: Callable[[Text], None] | None = None
    ) -> ReindexReport: ...
    def check(self, name: str) -> CheckReport: ...
    def backup(self, name: str, *, reason: str = "", target: Path | None = None
               ) -> BackupReport: ...


class GenerationSlots(Protocol):
    """Admits model generations: each one runs inside :meth:`generation`, which may wait or
    refuse (:class:`~aizac.errors.LimitError`). The single-writer app admits all
    (:class:`Unlimited`); the server counts per user and per server
    (:class:`aizac.server.sandbox.UserSlots`), so its web app and its API share one limit."""

    def generation(self) -> contextlib.AbstractContextManager[None]: ...


class Unlimited:
    """The slot policy of the single-writer app: every generation runs at once."""

    def generation(self) -> contextlib.AbstractContextManager[None]:
        return contextlib.nullcontext()
