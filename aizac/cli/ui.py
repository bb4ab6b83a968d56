"""``aizac ui``: serve the co-writing web app."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    @app.command("ui")
    def ui(
        host: str | None = typer.Option(
            None, "--host", help="Interface to bind (default: AIZAC_HOST, 127.0.0.1)."
        ),
        port: int | None = typer.Option(
            None, "--port", help="Port to listen on (default: AIZAC_PORT, 7860)."
        ),
        ui_language: str | None = typer.Option(
            None, "--ui-language", help="Interface language: en or ko (default: English)."
        ),
    ) -> None:
        """Serve the web app (beat editor, memory inspector, export) in the browser."""
        from aizac.errors import AizacError
        from aizac.web import serve

        try:
            serve(host=host, port=port, language=ui_language)
        except AizacError as e:
            typer.echo(f"error: {e.message}", err=True)
            if e.hint:
                typer.echo(f"hint: {e.hint}", err=True)
            raise typer.Exit(1) from None
