"""Build and serve the web app: the one place that turns settings into a running server.

The interface language is chosen on the first screen too: the app is built in one language (its
labels, and every message its handlers render), so a change serves the app built anew in the
chosen language on the same address (:class:`Served`), and the page reloads into it. The choice
is kept in the data directory for the next start (:mod:`aizac.web.interface`).
"""

from __future__ import annotations

import contextlib
import io
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from aizac.application.exports import export_dir_for
from aizac.errors import InvalidInputError
from aizac.settings import Settings, get_settings
from aizac.text import LANGUAGES
from aizac.writer.service import Studio

log = logging.getLogger(__name__)
SWITCH_PAUSE_S = 0.5
"""How long the old app goes on after a language change, so its answer reaches the page."""


def interface_language(settings: Settings, language: str | None = None) -> str:
    """The interface language to start in: ``language`` (``--ui-language``), else
    ``AIZAC_UI_LANGUAGE`` when it is configured, else the writer's choice on the first screen
    (kept in the data directory), else ``ui_language``'s default.

    Raises:
        InvalidInputError: the language is not an interface language.
    """
    from aizac.web.interface import stored_language

    chosen = language
    if chosen is None and "ui_language" not in settings.model_fields_set:
        chosen = stored_language(settings.data_dir)
    chosen = chosen or settings.ui_language
    if chosen not in LANGUAGES:
        raise InvalidInputError("error.ui_language", language=chosen, choices=", ".join(LANGUAGES))
    return chosen


def create_app(studio: Studio, *, language: str | None = None, service: Any = None,
               on_language: Callable[[str], None] | None = None) -> tuple[Any, Path]:
    """(Gradio Blocks, export folder) for ``studio``.

    The interface language is ``language`` (default: :func:`interface_language`): ``en``,
    ``ko`` or ``zh``; another is refused. ``service``: the application service to reuse (a
    language change keeps the one whose operations may be running); ``on_language``: what the
    first screen's interface-language choice calls (``None``: the choice is not offered).

    Raises:
        InvalidInputError: ``language`` is not an interface language.
    """
    from aizac.offline import apply_offline_defaults

    apply_offline_defaults()  # before Gradio builds anything: no telemetry, no hub look-ups
    from aizac.application.service import ApplicationService
    from aizac.web.ui import build_app

    export_dir = export_dir_for(studio.settings)
    export_dir.mkdir(parents=True, exist_ok=True)
    service = service or ApplicationService(studio, export_dir=export_dir)
    chosen = interface_language(studio.settings, language)
    return build_app(service, language=chosen, on_language=on_language), export_dir


class Served:
    """The single-writer web app on one address, rebuilt in another interface language when
    the writer chooses one on the first screen (see the module docstring)."""

    def __init__(self, studio: Studio, *, host: str, port: int, language: str,
                 launch_options: dict[str, Any]) -> None:
        from aizac.application.service import ApplicationService

        self.studio = studio
        self.host, self.port = host, port
        self.language = language
        self.options = {"quiet": True, **launch_options, "prevent_thread_lock": True}
        self.service = ApplicationService(studio, export_dir=export_dir_for(studio.settings))
        self.app: Any = None
        self._asked: str | None = None
        self._wake = threading.Event()
        self._closed = False
        self._lock = threading.Lock()

    @property
    def local_url(self) -> str:
        return f"http://{self.host}:{self.port}/"

    def start(self) -> Served:
        """Build the app in the current language and serve it."""
        from aizac.web.ui import launch

        app, export_dir = create_app(self.studio, language=self.language, service=self.service,
                                     on_language=self.request_language)
        launch(app, host=self.host, port=self.port, allowed_paths=[str(export_dir)],
               **self.options)
        self.app = app
        return self

    def request_language(self, language: str) -> None:
        """The first screen's choice: keep it for the next start and serve the app in it
        (after :data:`SWITCH_PAUSE_S`, from the serving loop, not the event that asked).

        Raises:
            InvalidInputError: not an interface language.
        """
        from aizac.web.interface import store_language

        if language not in LANGUAGES:
            raise InvalidInputError("error.ui_language", language=language,
                                    choices=", ".join(LANGUAGES))
        store_language(self.studio.settings.data_dir, language)
        with self._lock:
            self._asked = language
        self._wake.set()

    def switch_pending(self) -> str | None:
        with self._lock:
            asked, self._asked = self._asked, None
        return asked if asked and asked != self.language else None

    def run(self) -> None:
        """Serve until :meth:`close` (or Ctrl-C), switching language when asked."""
        try:
            while not self._closed:
                self._wake.wait(0.5)
                self._wake.clear()
                asked = self.switch_pending()
                if asked is not None and not self._closed:
                    self._switch(asked)
        except KeyboardInterrupt:
            pass
        finally:
            self.close()

    def run_in_background(self) -> Served:
        threading.Thread(target=self.run, daemon=True, name="aizac-web-serve").start()
        return self

    def _switch(self, language: str) -> None:
        threading.Event().wait(SWITCH_PAUSE_S)
        old = self.app
        self.language = language
        try:
            with contextlib.redirect_stdout(io.StringIO()):  # Gradio's own closing line
                old.close(verbose=False)
            self.start()
        except Exception:
            log.exception("could not serve the app in %s", language)
            raise
        log.info("the web app now speaks %s", language)

    def close(self) -> None:
        self._closed = True
        self._wake.set()
        if self.app is not None:
            with contextlib.redirect_stdout(io.StringIO()):
                self.app.close(verbose=False)


def serve(
    *,
    host: str | None = None,
    port: int | None = None,
    settings: Settings | None = None,
    studio: Studio | None = None,
    language: str | None = None,
    **launch_options: Any,
) -> Served:
    """Serve the app on ``host:port`` (default: the settings, 127.0.0.1:7860) and say where
    it is, in which language and where the projects are kept (Gradio's own start lines, such
    as its advice to share the app publicly, are left out).

    Blocks until the server stops, unless ``prevent_thread_lock=True`` is passed (tests); the
    running :class:`Served` is returned (``.local_url``, ``.app``, ``.close()``).
    """
    settings = settings or (studio.settings if studio is not None else get_settings())
    studio = studio or Studio(settings)
    background = bool(launch_options.pop("prevent_thread_lock", False))
    served = Served(studio, host=host or settings.host, port=port or settings.port,
                    language=interface_language(settings, language),
                    launch_options=launch_options).start()
    say_started(served)
    if background:
        return served.run_in_background()
    served.run()
    return served


def say_started(served: Served) -> None:
    """Where the app is, its interface language and where the projects are kept (stdout)."""
    from aizac.settings_fast import where_data_lives
    from aizac.text import Text, language_name, render

    language = served.language
    said = Text("note.web_started", url=served.local_url, language=language_name(language))
    print(render(said, language), flush=True)
    print(render(where_data_lives(served.studio.settings.data_dir), language), flush=True)
