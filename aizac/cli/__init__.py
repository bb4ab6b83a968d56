"""The ``aizac`` command line. Each concern registers its commands from its own module.

Start-up matters here (``aizac --help`` and ``aizac projects`` should answer at once): command
modules import typer and aizac's light modules only; providers, LangChain, Chroma and Gradio are
imported inside the commands that use them (``tests/cli/test_startup.py`` pins this). Help is
plain text unless ``TYPER_USE_RICH=1`` (rich formatting doubles the start-up CPU time).
"""

from __future__ import annotations

import os

os.environ.setdefault("TYPER_USE_RICH", "0")  # read by typer at import

import typer  # after the environment default above

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
