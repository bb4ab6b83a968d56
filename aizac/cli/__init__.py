"""The ``aizac`` command line. Each concern registers its commands from its own module."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="aizac",
    help="aizac: an AI co-writing agent for long-form serial fiction.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def main() -> None:
    """Console-script entry point."""
    from aizac.cli import _register

    _register.register_all(app)
    app()
