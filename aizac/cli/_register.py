"""Collects the command modules; each exposes ``register(app)``.

``aizac NAME ...`` imports and builds only the module that owns ``NAME`` (:data:`COMMAND_HOMES`):
typer turns every registered command into a click command before it dispatches, which reads each
command's signature. ``aizac --help``, no command, or a name not in the table register them all,
so help and "No such command" stay complete. ``tests/cli/test_startup.py`` checks the table
against what :func:`register_all` registers.
"""

from __future__ import annotations

import importlib

import typer

# Modules are added here as their concerns land (e.g. "aizac.cli.models").
COMMAND_MODULES: list[str] = [
    "aizac.cli.models", "aizac.cli.story", "aizac.cli.episode", "aizac.cli.ui",
    "aizac.cli.autopilot", "aizac.cli.serve", "aizac.cli.db", "aizac.cli.style",
    "aizac.cli.upkeep",
    "aizac.cli.pictures", "aizac.cli.importing", "aizac.cli.report", "aizac.cli.estimate",
]

COMMAND_HOMES: dict[str, str] = {
    "models": "aizac.cli.models", "ask-model": "aizac.cli.models",
    "new": "aizac.cli.story", "projects": "aizac.cli.story", "plot": "aizac.cli.story",
    "beat": "aizac.cli.story", "write": "aizac.cli.story", "ask": "aizac.cli.story",
    "export": "aizac.cli.story", "demo": "aizac.cli.story", "reindex": "aizac.cli.story",
    "length": "aizac.cli.episode", "ui": "aizac.cli.ui",
    "autopilot": "aizac.cli.autopilot", "runs": "aizac.cli.autopilot",
    "serve": "aizac.cli.serve", "users": "aizac.cli.serve", "db": "aizac.cli.db",
    "style": "aizac.cli.style", "voices": "aizac.cli.style",
    "check": "aizac.cli.upkeep", "backup": "aizac.cli.upkeep", "restore": "aizac.cli.upkeep",
    "pictures": "aizac.cli.pictures", "import": "aizac.cli.importing",
    "read": "aizac.cli.importing",
    "report": "aizac.cli.report",
    "estimate-read": "aizac.cli.estimate",
}
"""The module that registers each top-level command (or command group)."""


def register_all(app: typer.Typer) -> None:
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(app)


def register_for(app: typer.Typer, argv: list[str]) -> None:
    """Register what ``aizac *argv`` needs: the module owning its command, else everything.

    A module that adds a single command gets the others too: typer runs an app of one command
    as that command (``aizac ui`` would then take ``ui`` as an argument)."""
    home = COMMAND_HOMES.get(argv[0]) if argv and not argv[0].startswith("-") else None
    if home is None:
        register_all(app)
        return
    importlib.import_module(home).register(app)
    if len(app.registered_commands) < 2 and not app.registered_groups:
        for name in COMMAND_MODULES:
            if name != home:
                importlib.import_module(name).register(app)
