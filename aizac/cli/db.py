"""``aizac db``: the PostgreSQL database of several processes (``AIZAC_DATABASE_URL``).

``aizac db upgrade`` creates or migrates its tables (and the autopilot's checkpoint tables);
``aizac db import DATA_DIR`` moves an embedded installation's accounts and projects into it
(:mod:`aizac.upkeep.importing`): run again after an interruption, it finishes the job.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from aizac.cli.errors import friendly

db_app = typer.Typer(help="The PostgreSQL database of AIZAC_DATABASE_URL (several processes).",
                     no_args_is_help=True)


def _say(key: str, **params: object) -> None:
    from aizac.text import Text, render

    typer.echo(render(Text(key, params), "en"))


def _database_url() -> str:
    from aizac.errors import ConfigError
    from aizac.settings import get_settings

    url = get_settings().database
    if url is None:
        raise ConfigError("error.import.no_database")
    return url


@db_app.command("upgrade")
@friendly
def upgrade(
    no_backup: Annotated[bool, typer.Option(
        "--no-backup", help="Migrate without dumping the database first (not advised).")
    ] = False,
) -> None:
    """Create or migrate the database's tables to this aizac's schema (safe to run again, and
    from several replicas at once). A database that holds data and needs migrating is dumped
    first with pg_dump, into <data>/backups/database/."""
    from aizac.settings import get_settings
    from aizac.storage.checkpointer import setup_postgres_saver
    from aizac.storage.database import Database, redact
    from aizac.storage.schema import upgrade_server

    url = _database_url()
    folder = get_settings().data_dir / "backups" / "database"

    def dump(stamped: set[str]) -> None:
        if no_backup:
            return
        from aizac.storage.dump import dump_database

        _say("cli.db.dumped", file=str(dump_database(url, folder)),
             revisions=", ".join(sorted(stamped)))

    db = Database.postgresql(url)
    try:
        before, after = upgrade_server(db, before_migrating=dump)
    finally:
        db.dispose()
    setup_postgres_saver(url)
    if before == after:
        _say("cli.db.current", where=redact(url), revisions=", ".join(sorted(after)))
    else:
        _say("cli.db.upgraded", where=redact(url), before=", ".join(sorted(before)) or "-",
             after=", ".join(sorted(after)))


@db_app.command("import")
@friendly
def import_command(
    data_dir: Annotated[Path, typer.Argument(
        help="The embedded installation's data directory (its AIZAC_DATA_DIR).",
        exists=True, file_okay=False, dir_okay=True, resolve_path=True)],
) -> None:
    """Move an embedded installation's accounts and projects into the database; every project
    is counted and checked afterwards. Interrupted, run it again: it finishes the job."""
    from aizac.settings import get_settings
    from aizac.text import Text, render
    from aizac.upkeep.importing import import_installation

    _database_url()

    def say(text: Text) -> None:
        typer.echo(render(text, "en"))

    report = import_installation(data_dir, get_settings(), say=say)
    for problem in report.account_problems[:20]:
        _say("cli.db.problem", name="accounts", problem=problem)
    for moved in report.projects:
        for problem in moved.problems[:20]:
            _say("cli.db.problem", name=moved.name, problem=problem)
    imported = sum(p.status == "imported" for p in report.projects)
    verified = sum(p.status == "verified" for p in report.projects)
    _say("cli.db.imported", projects=len(report.projects), imported=imported,
         verified=verified, failed=len(report.projects) - imported - verified,
         rows=sum(p.rows for p in report.projects))
    if not report.clean:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add ``aizac db``."""
    app.add_typer(db_app, name="db")
