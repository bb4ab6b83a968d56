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
from aizac.errors import AizacError, CancelledError, damage_of
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
    notes: dict[str, Any] = field(default_factory=dict)
    live: dict[tuple[str | None, str], tuple[str, Text | str]] = field(default_factory=dict)
    """What runs on each (user, project) and its latest progress line: a page opened or
    reloaded meanwhile shows it running (:func:`aizac.web.ui.watch`)."""
    outcome: dict[tuple[str | None, str], str] = field(default_factory=dict)
    """The last long operation's outcome line per (user, project), shown when it ends."""

    def button(self, name: str, label: str, **kwargs: Any) -> Any:
        """A registered action button (its interactivity follows the project's state). None
        is enabled until the page's load has opened what it opens and set every button: an
        action clicked before would be undone by that late open (on a busy machine the load's
        open of no project blanked the project Create had just made, and disabled its
        buttons)."""
        btn = gr.Button(label, elem_id=f"aizac-{name}", interactive=False, **kwargs)
        self.buttons[name] = btn
        return btn

    def note(self, name: str) -> Any:
        """A status line beside an action row (``name``): a long action started there shows
        its progress and its outcome there too, where the writer's eyes are, not only in the
        page-top status (see :meth:`outputs`)."""
        md = gr.Markdown("", elem_id=f"aizac-note-{name}", elem_classes="aizac-note")
        self.notes[name] = md
        return md

    def outputs(self, values: list[Any], near: str | None = None) -> list[Any]:
        """An action's outputs: ``values``, the status (and the note beside the button,
        ``near``), then every action button: what :meth:`act`, :meth:`long` and
        :meth:`stream` given the same ``near`` return."""
        return [*values, self.status, *([self.notes[near]] if near else []), *self.button_list]

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
            from aizac.writer.reply_problems import in_writers_words

            text = describe(damage_of(error) or in_writers_words(error), self.language,
                            "web").line()
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
        """Every action button, enabled or not for the project's current state; while an
        operation runs on the project (started by this page or before a reload), only the
        cancel buttons (a page that opens the project then must not offer what would wait)."""
        from aizac.web.states import ALWAYS, button_states

        if project and self.live.get(self.key(project)) is not None:
            return self.busy()

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
    def act(self, work: Work, n: int, near: str | None = None) -> Callable[..., list[Any]]:
        """A quick action: ``work(project, *inputs) -> (values, status)`` (``near``: the
        note beside its button says the outcome too)."""

        def run(project: str | None, *args: Any) -> list[Any]:
            try:
                values, said = work(project, *args)
            except Exception as e:
                return _said([*[gr.skip()] * n], self.message(e), self.states(project), near)
            return _said(values, said, self.states(project), near)

        return run

    def key(self, project: str | None) -> tuple[str | None, str]:
        """Whose and which project an operation runs on (users share one app when served)."""
        from aizac.web.per_user import current_user

        return current_user(), project or ""

    def long(self, work: Work, n: int, what: str, near: str | None = None
             ) -> Callable[..., Iterator[list[Any]]]:
        """A long, cancellable action: ``work(project, *inputs, progress=...)`` runs in a
        thread while the page shows its progress lines with every other button disabled
        (in the status, and in the note beside the button when ``near`` names one).

        The thread, not the page, owns what runs (:attr:`live`) and how it ended
        (:attr:`outcome`): a page reloaded meanwhile shows it running and then its result."""

        def run(project: str | None, *args: Any) -> Iterator[list[Any]]:
            skip = [gr.skip()] * n
            key = self.key(project)
            yield _said(skip, self.progress_line(what), self.busy(), near)
            lines: queue.Queue[Any] = queue.Queue()
            result: dict[str, Any] = {}

            def report(line: Any) -> None:
                self.live[key] = (what, line)
                lines.put(line)

            def target() -> None:
                try:
                    result["value"] = work(project, *args, progress=report)
                    self.outcome[key] = result["value"][1]
                except BaseException as e:
                    result["error"] = e
                    self.outcome[key] = self.message(e)
                finally:
                    self.live.pop(key, None)
                    lines.put(_DONE)

            self.live[key] = (what, "")
            # A copy of the event's context: its user (aizac.web.per_user) follows into the thread.
            threading.Thread(target=contextvars.copy_context().run, args=(target,), daemon=True,
                             name="aizac-web-op").start()
            while (line := lines.get()) is not _DONE:
                yield _said(skip, self.progress_line(what, line), self.skip_buttons(), near)
            if "error" in result:
                yield _said(skip, self.outcome[key], self.states(project), near)
                return
            values, said = result["value"]
            yield _said(values, said, self.states(project), near)

        return run

    def stream(
        self, work: Callable[..., Iterator[Any]], n: int, what: str, done: str,
        near: str | None = None,
    ) -> Callable[..., Iterator[list[Any]]]:
        """A streamed action (prose): each item ``work`` yields is the outputs so far. The
        stream runs in one worker thread (its cancel watch lives in that thread's context),
        which owns :attr:`live` and :attr:`outcome` as in :meth:`long`."""

        def run(project: str | None, *args: Any) -> Iterator[list[Any]]:
            key = self.key(project)
            yield _said([gr.skip()] * n, self.progress_line(what), self.busy(), near)
            items: queue.Queue[Any] = queue.Queue()
            result: dict[str, Any] = {}

            def target() -> None:
                try:
                    for item in work(project, *args):
                        items.put(item)
                    self.outcome[key] = self.L[done]
                except BaseException as e:
                    result["error"] = e
                    self.outcome[key] = self.message(e)
                finally:
                    self.live.pop(key, None)
                    items.put(_DONE)

            self.live[key] = (what, "")
            threading.Thread(target=contextvars.copy_context().run, args=(target,), daemon=True,
                             name="aizac-web-stream").start()
            values: list[Any] = [gr.skip()] * n
            while (item := items.get()) is not _DONE:
                values = item
                yield _said(values, gr.skip(), self.skip_buttons(), near)
            if "error" in result:
                yield _said([gr.skip()] * n, self.outcome[key], self.states(project), near)
                return
            yield _said(values, self.L[done], self.states(project), near)

        return run


def _said(values: list[Any], said: Any, buttons: list[Any], near: str | None) -> list[Any]:
    """One update of an action's outputs (see :meth:`Ui.outputs`): the status line is said
    twice when the note beside the button shows it too."""
    return [*values, said, *([said] if near else []), *buttons]
