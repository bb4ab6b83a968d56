"""The Studio a command works with, and the project list read without one.

:func:`register` of each command module puts a Studio factory in the click context (tests pass
one that injects fakes); :func:`make_studio` builds from it, else from :func:`default_studio`,
the product one. Every command module (story, length, style, autopilot) takes its Studio here,
so none of them imports another to get it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:  # the writer (Chroma, LangChain) is imported only by commands that use it
    from aizac.application.service import ApplicationService
    from aizac.writer.project_rows import ProjectInfo
    from aizac.writer.service import Studio

StudioFactory = Callable[..., "Studio"]


def default_studio(data_dir: Path | None = None, **options: Any) -> Studio:
    """The product Studio: settings from the environment, models from the settings."""
    from aizac.settings import get_settings
    from aizac.writer.service import Studio

    settings = get_settings()
    if data_dir is not None:
        settings = settings.model_copy(update={"data_dir": data_dir})
    return Studio(settings, **options)


def make_studio(ctx: typer.Context, **options: Any) -> Studio:
    """The Studio from the factory ``register`` put in the context (else the product one)."""
    factory = ctx.obj if callable(ctx.obj) else default_studio
    studio: Studio = factory(**options)
    return studio


def story_service(ctx: typer.Context, project: str | None, **options: Any
                  ) -> tuple[ApplicationService, str]:
    """The one way in for a command that changes a story: the application service over the
    command's Studio (the web app and the REST API call the same one), and the project it acts
    on (``project``, else the current one)."""
    from aizac.application.exports import export_dir_for
    from aizac.application.service import ApplicationService
    from aizac.errors import NotFoundError

    studio = make_studio(ctx, **options)
    name = project or studio.current_name()
    if not name:
        raise NotFoundError("error.project.none_selected")
    return ApplicationService(studio, export_dir=export_dir_for(studio.settings)), name


def list_projects() -> tuple[str | None, list[ProjectInfo]]:
    """``(current project, every project)`` read straight from the data directory, as
    :meth:`Studio.current_name` and :meth:`Studio.projects` do, without building a Studio."""
    from aizac.settings_fast import quick_data_dir
    from aizac.writer.project_dirs import list_names

    data_dir = quick_data_dir()
    database: str | None = None
    if data_dir is None:  # something else is configured: read (and validate) every setting
        from aizac.settings import get_settings

        settings = get_settings()
        data_dir, database = settings.data_dir, settings.database
    root = data_dir / "projects"
    catalog = None
    if database is not None:  # the projects of the PostgreSQL database (AIZAC_DATABASE_URL)
        from aizac.storage.catalog import Catalog
        from aizac.storage.database import server_database

        catalog = Catalog(server_database(database))
    if root.is_dir() and any(root.glob(".restore.*.json")):  # a restore was killed: finish it
        from aizac.upkeep.restore import finish_restores

        finish_restores(root, catalog=catalog, wait=0.0)
    if catalog is not None:
        from aizac.upkeep.layout import project_info

        # a project that cannot be read is listed with what is wrong; the others as always
        infos = [project_info(root, n, catalog) for n in catalog.names()]
    else:
        infos = [_embedded_info(root / n) for n in list_names(root)]
    infos.sort(key=lambda i: i.created_at)
    try:
        current: str | None = (data_dir / "current_project").read_text(encoding="utf-8").strip()
    except OSError:
        current = None
    names = {i.name for i in infos}
    return (current if current in names else None), infos


def _embedded_info(directory: Path) -> ProjectInfo:
    """An embedded project's info, read with ``sqlite3`` when its file is up to date (SQLAlchemy
    costs a listing four times its own time); else through its store, which updates the file.
    A damaged project (its folder's quick look, or what an open of it noted) is listed with
    what is wrong, its hint naming the newest backup; nothing of it is opened."""
    from aizac.upkeep.layout import damaged_error, noted_damage, project_info
    from aizac.writer.project_dirs import read_meta
    from aizac.writer.project_rows import ProjectInfo as Info
    from aizac.writer.project_rows import project_info as info_of

    damage = damaged_error(directory) or noted_damage(directory)
    if damage is not None:
        return Info.unreadable(directory.name, directory, damage)
    meta = read_meta(directory)
    if meta is None:
        return project_info(directory.parent, directory.name)
    return info_of(meta, directory)


def data_home() -> Path:
    """The data directory the commands use (read as :func:`list_projects` reads it: without
    pydantic when nothing else is configured)."""
    from aizac.settings_fast import quick_data_dir

    found = quick_data_dir()
    if found is not None:
        return found
    from aizac.settings import get_settings

    return get_settings().data_dir
