"""Collects the command modules; each exposes ``register(app)``."""

from __future__ import annotations

import importlib

import typer

# Modules are added here as their concerns land (e.g. "aizac.cli.models").
COMMAND_MODULES: list[str] = [
    "aizac.cli.models", "aizac.cli.story", "aizac.cli.episode", "aizac.cli.ui",
    "aizac.cli.autopilot", "aizac.cli.serve",
]


def register_all(app: typer.Typer) -> None:
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(app)
