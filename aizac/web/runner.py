"""How the page runs an action: one status area, buttons that match the state, long operations
that show their progress and can be cancelled.

Every action's outputs end with the status line and then every action button (in
:attr:`Ui.button_names` order). An error goes to the status line only (the other outputs are
skipped, so what the writer typed stays); a long operation first disables every action button but
Cancel, shows the progress lines the pipeline sends, then puts the buttons back in the state the
project is in (an empty editor cannot Accept, a beat without history cannot Undo...).
"""

from __future__ import annotations

import contextvars
import logging
import queue
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import gradio as gr

from aizac.application.service import ApplicationService
from aizac.errors import AizacError, CancelledError
from aizac.export.render import escape_markdown
from aizac.text import Text, describe, known, render
from aizac.web.labels import Labels

log = logging.getLogger(__name__)
Work = Callable[..., tuple[list[Any], str]]
_DONE = object()
SPINNER = '<span class="aizac-spinner" aria-hidden="true"></span>'
"""Drawn by the app's CSS (:data:`aizac.web.ui.CSS`), so it needs no font."""


@dataclass
class Ui:
    """What every tab builder shares: the service, the labels, the project box, the status."""

    service: ApplicationService
    L: Labels
    language: str
    project: Any = None
    status: Any = None
    buttons: dict[str, Any] = field(default_factory=dict)

    def button(self, name: str, label: str, **kwargs: Any) -> Any:
        """A registered action button (its interactivity follows the project's state; until
        a project is open only the buttons that need none are enabled)."""
        from aizac.web.states import ALWAYS

        btn = gr.Button(label, elem_id=f"aizac-{name}", interactive=name in ALWAYS, **kwargs)
        self.buttons[name] = btn
        return btn

    @property
    def button_names(self) -> list[str]:
        return list(self.buttons)

    @property
    def button_list(self) -> list[Any]:
        return list(self.buttons.values())

    # ------------------------------------------------------------------------- messages
    def message(self, error: BaseException) -> str:
        """The status line for ``error``: no stack trace, no CLI flags, in the UI language."""
        if isinstance(error, CancelledError):
            return self.L["ui.cancelled"]
        if isinstance(error, AizacError):
            text = describe(error, self.language, "web").line()
        else:
            log.exception("unexpected error in a web handler", exc_info=error)
            text = self.L.t("ui.unexpected", detail=f"{type(error).__name__}: {str(error)[:200]}")
        # literal: the message may quote the model ('<name>' as a name hid the rest of it)
        return self.L.t("ui.error", message=escape_markdown(text))

    def progress_line(self, what: str, detail: Text | str = "") -> str:
        """The status while ``what`` runs: a CSS spinner (no emoji glyph, which a browser
        without an emoji font draws as a box) and the pipeline's latest progress line."""
        label = self.L[what] if known(what) else render(Text(what), self.language)
        line = self.L.t("ui.busy", what=label)
        said = render(detail, self.language) if isinstance(detail, Text) else detail
        detail = escape_markdown(said)  # may name the model's cast
        return f"{SPINNER} {line} {detail}".rstrip()

    # -------------------------------------------------------------------------- buttons
    def states(self, project: str | None) -> list[Any]:
        """Every action button, enabled or not for the project's current state."""
        from aizac.web.states import ALWAYS, button_states

        try:
            enabled = button_states(self.service, project)
        except Exception:  # never let a state query hide the real outcome
            log.exception("could not compute the button states")
            enabled = {}
        return [gr.Button(interactive=enabled.get(n, n in ALWAYS)) for n in self.button_names]

    def busy(self) -> list[Any]:
        return [gr.Button(interactive=n.startswith("cancel")) for n in self.button_names]

    def skip_buttons(self) -> list[Any]:
        return [gr.skip()] * len(self.buttons)

    # -------------------------------------------------------------------------- runners
    def act(self, work: Work, n: int) -> Callable[..., list[Any]]:
        """A quick action: ``work(project, *inputs) -> (values, status)``."""

        def run(project: str | None, *args: Any) -> list[Any]:
            try:
                values, said = work(project, *args)
            except Exception as e:
                return [*[gr.skip()] * n, self.message(e), *self.states(project)]
            return [*values, said, *self.states(project)]

        return run

    def long(self, work: Work, n: int, what: str) -> Callable[..., Iterator[list[Any]]]:
        """A long, cancellable action: ``work(project, *inputs, progress=...)`` runs in a
        thread while the page shows its progress lines with every other button disabled."""

        def run(project: str | None, *args: Any) -> Iterator[list[Any]]:
            skip = [gr.skip()] * n
            yield [*skip, self.progress_line(what), *self.busy()]
            lines: queue.Queue[Any] = queue.Queue()
            result: dict[str, Any] = {}

            def target() -> None:
                try:
                    result["value"] = work(project, *args, progress=lines.put)
                except BaseException as e:
                    result["error"] = e
                finally:
                    lines.put(_DONE)

            # A copy of the event's context: its user (aizac.web.per_user) follows into the thread.
            threading.Thread(target=contextvars.copy_context().run, args=(target,), daemon=True,
                             name="aizac-web-op").start()
            while (line := lines.get()) is not _DONE:
                yield [*skip, self.progress_line(what, line), *self.skip_buttons()]
            if "error" in result:
                yield [*skip, self.message(result["error"]), *self.states(project)]
                return
            values, said = result["value"]
            yield [*values, said, *self.states(project)]

        return run

    def stream(
        self, work: Callable[..., Iterator[Any]], n: int, what: str, done: str
    ) -> Callable[..., Iterator[list[Any]]]:
        """A streamed action (prose): each item ``work`` yields is the outputs so far. The
        stream runs in one worker thread (its cancel watch lives in that thread's context)."""

        def run(project: str | None, *args: Any) -> Iterator[list[Any]]:
            yield [*[gr.skip()] * n, self.progress_line(what), *self.busy()]
            items: queue.Queue[Any] = queue.Queue()
            result: dict[str, Any] = {}

            def target() -> None:
                try:
                    for item in work(project, *args):
                        items.put(item)
                except BaseException as e:
                    result["error"] = e
                finally:
                    items.put(_DONE)

            threading.Thread(target=contextvars.copy_context().run, args=(target,), daemon=True,
                             name="aizac-web-stream").start()
            values: list[Any] = [gr.skip()] * n
            while (item := items.get()) is not _DONE:
                values = item
                yield [*values, gr.skip(), *self.skip_buttons()]
            if "error" in result:
                yield [*[gr.skip()] * n, self.message(result["error"]), *self.states(project)]
                return
            yield [*values, self.L[done], *self.states(project)]

        return run
