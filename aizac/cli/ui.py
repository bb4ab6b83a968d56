"""``aizac ui``: serve the co-writing web app."""

from __future__ import annotations

from typing import Annotated

import typer

from aizac.cli.errors import friendly


@friendly
def ui_command(
    host: Annotated[
        str | None,
        typer.Option("--host", help="Interface to bind (default: AIZAC_HOST, 127.0.0.1)."),
    ] = None,
    port: Annotated[
        int | None, typer.Option("--port", help="Port to listen on (default: AIZAC_PORT, 7860).")
    ] = None,
    ui_language: Annotated[
        str | None,
        typer.Option("--ui-language", help="Interface language: en, ko or zh (default: "
                     "AIZAC_UI_LANGUAGE, else the one last chosen on the first screen, else "
                     "English)."),
    ] = None,
) -> None:
    """Serve the web app (beat editor, memory inspector, export) in the browser."""
    from aizac.web import serve

    serve(host=host, port=port, language=ui_language)


def register(app: typer.Typer) -> None:
    """Add ``aizac ui``."""
    app.command("ui")(ui_command)
