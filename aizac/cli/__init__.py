"""The ``aizac`` command line. Each concern registers its commands from its own module.

Start-up matters here (``aizac --help`` and ``aizac projects`` should answer at once): command
modules import typer and aizac's light modules only; providers, LangChain, Chroma and Gradio are
imported inside the commands that use them (``tests/cli/test_startup.py`` pins this). Help is
plain text unless ``TYPER_USE_RICH=1`` (rich formatting doubles the start-up CPU time).
"""

from __future__ import annotations

import os

os.environ.setdefault("TYPER_USE_RICH", "0")  # read by typer at import

from typing import Any

import typer  # after the environment default above
from typer.core import TyperGroup


def _plain_help_flag(option: Any) -> Any:
    """``--help`` defaults to ``False`` instead of ``None``: typer coerces a flag that is not a
    bool through a pydantic TypeAdapter, which would import pydantic for every command."""
    if option is not None and option.default is None:
        option.default = False
    return option


class _Group(TyperGroup):
    """The root group: its own and its commands' ``--help`` flags skip typer's coercion."""

    def get_help_option(self, ctx: Any) -> Any:
        return _plain_help_flag(super().get_help_option(ctx))

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            _plain_help_flag(command.get_help_option(ctx))
        return command


app = typer.Typer(
    cls=_Group,
    name="aizac",
    help="aizac: an AI co-writing agent for long-form serial fiction.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def main() -> None:
    """Console-script entry point: registers only the invoked command's module
    (:func:`aizac.cli._register.register_for`)."""
    import sys

    from aizac.cli import _register

    _register.register_for(app, sys.argv[1:])
    app()
