"""One web app, many users: each event runs against the signed-in user's own service.

``aizac serve`` builds the Gradio app once over a :class:`UserScopedService`: every attribute of it
is the attribute of the current user's :class:`~aizac.application.service.ApplicationService` (their
own sandbox). :func:`bind_request_user` wraps every event function of the app so that it runs as the
user of its request: ``gr.Request.username``, which Gradio fills from the server's
``auth_dependency`` (the session cookie), never from anything the page sends. The user is a context
variable, so it follows the event into the worker threads the runner starts (:mod:`aizac.web.runner`
starts them in a copy of the current context). ``python app.py`` never uses this module: it serves
one local writer's service as before.
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Any

import gradio as gr

from aizac.application.service import ApplicationService
from aizac.errors import AizacError

_USER: ContextVar[str | None] = ContextVar("aizac_web_user", default=None)


class NotSignedInError(AizacError):
    """An event arrived without a signed-in user (the page is older than the session)."""

    default_hint = "hint.sign_in"


@contextlib.contextmanager
def acting_as(user_id: str) -> Iterator[None]:
    """Run the block as ``user_id`` (what each wrapped event does)."""
    token = _USER.set(user_id)
    try:
        yield
    finally:
        _USER.reset(token)


def current_user() -> str | None:
    return _USER.get()


class UserScopedService:
    """Stands where the app expects a :class:`ApplicationService`; resolves to the current user's.

    Args:
        resolve: user id -> that user's ApplicationService (built on first use by the server).
    """

    def __init__(self, resolve: Callable[[str], ApplicationService]) -> None:
        self._resolve = resolve
        self._template: ApplicationService | None = None

    @contextlib.contextmanager
    def building(self, template: ApplicationService) -> Iterator[None]:
        """While the app is built (no request, no user), reads go to ``template``: a service
        over the server's shared settings (e.g. the default episode length shown in a box)."""
        self._template = template
        try:
            yield
        finally:
            self._template = None

    def current(self) -> ApplicationService:
        user = _USER.get()
        if user:
            return self._resolve(user)
        if self._template is not None:
            return self._template
        raise NotSignedInError("error.auth.not_signed_in")

    def __getattr__(self, name: str) -> Any:
        return getattr(self.current(), name)


def _user_of(request: gr.Request | None) -> str:
    user = getattr(request, "username", None) if request is not None else None
    if not user:
        raise NotSignedInError("error.auth.not_signed_in")
    return str(user)


def _as_request_user(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` taking the event's ``gr.Request`` first (Gradio fills it in) and running as
    its user; a generator stays a generator (each step runs as the user)."""
    if inspect.isasyncgenfunction(fn) or inspect.iscoroutinefunction(fn):
        raise TypeError(f"{fn!r}: async event functions are not bound to a user yet")
    if inspect.isgeneratorfunction(fn):

        def stream(request: gr.Request, *args: Any) -> Iterator[Any]:
            user = _user_of(request)
            with acting_as(user):
                steps = fn(*args)
            while True:
                with acting_as(user):
                    try:
                        item = next(steps)
                    except StopIteration:
                        return
                yield item

        return _dressed(stream, fn)

    def call(request: gr.Request, *args: Any) -> Any:
        with acting_as(_user_of(request)):
            return fn(*args)

    return _dressed(call, fn)


def _dressed(wrapper: Callable[..., Any], fn: Callable[..., Any]) -> Callable[..., Any]:
    """``wrapper`` named like ``fn``, typed ``(request: gr.Request, *args)`` with real
    classes (not ``functools.wraps``: Gradio reads the annotations to fill ``request``)."""
    wrapper.__name__ = getattr(fn, "__name__", "event")
    wrapper.__qualname__ = getattr(fn, "__qualname__", wrapper.__name__)
    wrapper.__doc__ = getattr(fn, "__doc__", None)
    wrapper.__annotations__ = {"request": gr.Request}
    return wrapper


def bind_request_user(blocks: gr.Blocks) -> int:
    """Make every event function of ``blocks`` run as its request's user; returns how many
    were bound. Call it once, after the app is built and before it is served."""
    count = 0
    for block_fn in blocks.fns.values():
        if block_fn.fn is None or getattr(block_fn.fn, "_aizac_user_bound", False):
            continue
        wrapped = _as_request_user(block_fn.fn)
        wrapped._aizac_user_bound = True  # type: ignore[attr-defined]
        block_fn.fn = wrapped
        count += 1
    return count
