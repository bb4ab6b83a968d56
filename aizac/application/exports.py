"""The export service: a project's manuscript as files in the export folder, or by email.

A collaborator of :class:`~aizac.application.service.ApplicationService` (passed the way to open a
project and the export folder). Accepted beats that have no prose yet are left out of a manuscript;
every export says which, so a writer never ships a novel with silent holes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from aizac.settings import Settings
from aizac.writer.agent import WriterAgent

if TYPE_CHECKING:
    from aizac.export.manuscript import Manuscript
    from aizac.export.upload import LengthReport


@dataclass(frozen=True)
class ExportResult:
    """What an export wrote and what it had to leave out.

    Attributes:
        target: the written file's path, or the address the export was mailed to.
        without_prose: ``"episode-index"`` of each accepted beat in the range that has no prose.
        lengths: for the upload zip, each episode's length against the project's target
            episode length (a report: an episode far from it is exported all the same).
    """

    target: str
    without_prose: list[str]
    lengths: LengthReport | None = None


def length_report(agent: WriterAgent, manuscript: Manuscript, fmt: str) -> LengthReport | None:
    """For the upload zip (``fmt == "zip"``), the exported episodes against the project's
    target length (:meth:`ApplicationService.set_episode_length`); ``None`` otherwise."""
    if fmt != "zip":
        return None
    from aizac.export.upload import check_lengths

    target = agent.episodes.current()
    return check_lengths(manuscript, target.length, target.unit)


def beats_without_prose(agent: WriterAgent, first: int | None, last: int | None) -> list[str]:
    """Accepted beats in ``first..last`` (episodes, inclusive) that have no prose."""
    return [
        f"{b.episode}-{b.index}"
        for b in agent.store.beats(status="accepted")
        if not (b.prose or "").strip()
        and (first is None or b.episode >= first)
        and (last is None or b.episode <= last)
    ]


class ExportService:
    """Export a project's accepted prose (no side effect on bad input).

    Args:
        agent_of: the open project by name (:meth:`ApplicationService.agent`).
        export_dir: folder under which each project's exports are written.
    """

    def __init__(self, agent_of: Callable[[str | None], WriterAgent], export_dir: Path) -> None:
        self.agent_of = agent_of
        self.export_dir = Path(export_dir)

    def export(
        self, name: str | None, fmt: str, first: int | None, last: int | None,
        filename: str | None, *, directory: Path | None = None,
    ) -> ExportResult:
        """Write the accepted prose of episodes ``first``..``last``: under the export folder
        (served to the browser: the name made safe in a URL), or in ``directory`` with
        ``filename`` as given (the command line's ``--out``)."""
        from aizac.export.files import safe_export_name, url_safe_name, write_export
        from aizac.export.manuscript import select_episodes
        from aizac.export.render import check_format
        from aizac.illustration.book import book_of

        checked = check_format(fmt)
        if filename:
            safe_export_name(filename, checked)
            if directory is None:
                filename = url_safe_name(filename)  # served by URL: no '#', '[', spaces...
        agent = self.agent_of(name)
        missing = beats_without_prose(agent, first, last)
        manuscript = select_episodes(book_of(agent, checked), first, last)
        folder = directory if directory is not None else self.export_dir / agent.info.name
        path = write_export(manuscript, checked, folder, filename or None)
        agent.store.log_step(
            "export", {"format": checked, "path": str(path), "without_prose": missing}
        )
        return ExportResult(str(path), missing, length_report(agent, manuscript, checked))

    def email(
        self, name: str | None, address: str, fmt: str, first: int | None, last: int | None
    ) -> ExportResult:
        from aizac.export.email import send_export, validate_address
        from aizac.export.manuscript import select_episodes
        from aizac.export.render import check_format
        from aizac.export.smtp_config import SmtpConfig
        from aizac.illustration.book import book_of

        to = validate_address(address)
        checked = check_format(fmt)
        agent = self.agent_of(name)
        missing = beats_without_prose(agent, first, last)
        manuscript = select_episodes(book_of(agent, checked), first, last)
        settings = SmtpConfig(agent.settings.data_dir).apply(agent.settings)  # the writer's own
        send_export(manuscript, to=to, settings=settings, fmt=checked)
        agent.store.log_step("email", {"format": checked, "to": to, "without_prose": missing})
        return ExportResult(to, missing, length_report(agent, manuscript, checked))


def export_dir_for(settings: Settings) -> Path:
    """Where a data directory's exports are written (the only extra folder the web app lets
    the browser read)."""
    return (settings.data_dir / "exports").resolve()
