"""Build and serve the web app: the one place that turns settings into a running server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aizac.errors import InvalidInputError
from aizac.settings import Settings, get_settings
from aizac.text import LANGUAGES
from aizac.writer.service import Studio


def export_dir_for(settings: Settings) -> Path:
    """Where the web app writes exports (the only extra folder the browser may read)."""
    return (settings.data_dir / "exports").resolve()


def create_app(studio: Studio, *, language: str | None = None) -> tuple[Any, Path]:
    """(Gradio Blocks, export folder) for ``studio``.

    The interface language is ``language`` (default: ``AIZAC_UI_LANGUAGE``, the ``ui_language``
    setting): ``en``, ``ko`` or ``zh``; another is refused.

    Raises:
        InvalidInputError: ``language`` is not an interface language.
    """
    from aizac.offline import apply_offline_defaults

    apply_offline_defaults()  # before Gradio builds anything: no telemetry, no hub look-ups
    from aizac.application.service import ApplicationService
    from aizac.web.ui import build_app

    export_dir = export_dir_for(studio.settings)
    export_dir.mkdir(parents=True, exist_ok=True)
    service = ApplicationService(studio, export_dir=export_dir)
    chosen = language or studio.settings.ui_language
    if chosen not in LANGUAGES:
        raise InvalidInputError("error.ui_language", language=chosen, choices=", ".join(LANGUAGES))
    return build_app(service, language=chosen), export_dir


def serve(
    *,
    host: str | None = None,
    port: int | None = None,
    settings: Settings | None = None,
    studio: Studio | None = None,
    language: str | None = None,
    **launch_options: Any,
) -> Any:
    """Serve the app on ``host:port`` (default: the settings, 127.0.0.1:7860).

    Blocks until the server stops, unless ``prevent_thread_lock=True`` is passed (tests); the
    running ``gr.Blocks`` is returned (``.local_url``, ``.close()``).
    """
    from aizac.web.ui import launch

    settings = settings or (studio.settings if studio is not None else get_settings())
    studio = studio or Studio(settings)
    app, export_dir = create_app(studio, language=language)
    launch(
        app,
        host=host or settings.host,
        port=port or settings.port,
        allowed_paths=[str(export_dir)],
        **launch_options,
    )
    return app
