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
import contextvars
import inspect
import queue
import threading
from collections.abc import Callable, Generator, Iterator
from contextvars import ContextVar
from typing import Any

import gradio as gr
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.tracers.context import register_configure_hook

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


Check = Callable[[], str | None]
"""Whether an event's credential still holds: ``None``, or what the page says now that it
ended (the session ended, the password changed, the account was disabled)."""
Watch = Callable[[gr.Request], Check | None]
"""The server's credential check for an event's request (``None``: nothing to check)."""
CHECK_EVERY_S = 0.25
"""How often a running event asks its check (the check itself may answer from a cache)."""


class CredentialEndedError(AizacError):
    """The credential an event runs under ended while it ran: model calls stop."""

    default_hint = "hint.sign_in"


class _StopWhenEnded(BaseCallbackHandler):
    """Raises :class:`CredentialEndedError` in a model call (at its start or at its next
    streamed token) once the event it runs for has lost its credential."""

    raise_error = True
    run_inline = True

    def __init__(self, ended: threading.Event) -> None:
        self.ended = ended

    def _check(self) -> None:
        if self.ended.is_set():
            raise CredentialEndedError("error.auth.credential_ended")

    def on_chat_model_start(self, *args: Any, **kwargs: Any) -> None:
        self._check()

    def on_llm_start(self, *args: Any, **kwargs: Any) -> None:
        self._check()

    def on_llm_new_token(self, *args: Any, **kwargs: Any) -> None:
        self._check()


_GUARD: ContextVar[_StopWhenEnded | None] = ContextVar("aizac_web_credential", default=None)
register_configure_hook(_GUARD, inheritable=True)


class _Watching:
    """An event's credential, asked every :data:`CHECK_EVERY_S` by a thread of its own while
    the event runs; once it ended, :attr:`said` is what the page says and every model call
    made for the event (in its context, or a thread started from it) stops."""

    def __init__(self, check: Check) -> None:
        self.check = check
        self.ended = threading.Event()
        self.said: str | None = None
        self._done = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> _Watching:
        self.poll()
        self._thread = threading.Thread(target=self._run, daemon=True, name="aizac-web-watch")
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()

    def _run(self) -> None:
        while not self._done.wait(CHECK_EVERY_S) and not self.ended.is_set():
            self.poll()

    def poll(self) -> None:
        try:
            said = self.check()
        except Exception:  # a check that fails (the database busy) is asked again
            return
        if said is not None:
            self.said = said
            self.ended.set()

    def stop_if_ended(self) -> None:
        if self.ended.is_set():
            raise gr.Error(self.said or "", print_exception=False)

    @contextlib.contextmanager
    def guarding(self) -> Iterator[None]:
        token = _GUARD.set(_StopWhenEnded(self.ended))
        try:
            yield
        finally:
            _GUARD.reset(token)


def _as_request_user(fn: Callable[..., Any], watch: Watch | None = None) -> Callable[..., Any]:
    """``fn`` taking the event's ``gr.Request`` first (Gradio fills it in) and running as
    its user; a generator stays a generator (each step runs as the user). With ``watch``, the
    event ends with an error within about a second once its credential ends, and the model
    calls it made stop (see :class:`_Watching`)."""
    if inspect.isasyncgenfunction(fn) or inspect.iscoroutinefunction(fn):
        raise TypeError(f"{fn!r}: async event functions are not bound to a user yet")

    def watching(request: gr.Request) -> _Watching | None:
        check = watch(request) if watch is not None else None
        return _Watching(check) if check is not None else None

    if inspect.isgeneratorfunction(fn):

        def stream(request: gr.Request, *args: Any) -> Iterator[Any]:
            user = _user_of(request)
            watched = watching(request)
            if watched is None:
                with acting_as(user):
                    steps = fn(*args)
                while True:
                    with acting_as(user):
                        try:
                            item = next(steps)
                        except StopIteration:
                            return
                    yield item
            with watched:
                watched.stop_if_ended()
                yield from _pumped(lambda: fn(*args), user, watched)

        return _dressed(stream, fn)

    def call(request: gr.Request, *args: Any) -> Any:
        user = _user_of(request)
        watched = watching(request)
        if watched is None:
            with acting_as(user):
                return fn(*args)
        with watched:
            watched.stop_if_ended()
            with acting_as(user), watched.guarding():
                result = fn(*args)
            watched.stop_if_ended()  # what a revoked credential asked for is not shown
            return result

    return _dressed(call, fn)


_END = object()


def _pumped(make: Callable[[], Generator[Any]], user: str, watched: _Watching
            ) -> Iterator[Any]:
    """The items of the generator ``make()`` gives, each made on demand by a thread of its
    own (as ``user``, its model calls guarded), while this side waits a bounded time for
    each and ends the event once the credential ended, whatever the step is waiting for."""
    items: queue.Queue[tuple[object, Any]] = queue.Queue()
    wanted = threading.Semaphore(0)
    closed = threading.Event()

    def pump() -> None:
        with acting_as(user), watched.guarding():
            steps = make()
            try:
                while True:
                    wanted.acquire()
                    if closed.is_set():
                        return
                    try:
                        item = next(steps)
                    except StopIteration:
                        items.put((_END, None))
                        return
                    items.put((None, item))
            except BaseException as e:
                items.put((e, None))
            finally:
                steps.close()

    threading.Thread(target=contextvars.copy_context().run, args=(pump,), daemon=True,
                     name="aizac-web-event").start()
    try:
        while True:
            wanted.release()
            while True:
                watched.stop_if_ended()
                try:
                    kind, item = items.get(timeout=CHECK_EVERY_S)
                    break
                except queue.Empty:
                    continue
            if kind is _END:
                return
            if isinstance(kind, BaseException):
                raise kind
            yield item
    finally:
        closed.set()
        wanted.release()


def _dressed(wrapper: Callable[..., Any], fn: Callable[..., Any]) -> Callable[..., Any]:
    """``wrapper`` named like ``fn``, typed ``(request: gr.Request, *args)`` with real
    classes (not ``functools.wraps``: Gradio reads the annotations to fill ``request``)."""
    wrapper.__name__ = getattr(fn, "__name__", "event")
    wrapper.__qualname__ = getattr(fn, "__qualname__", wrapper.__name__)
    wrapper.__doc__ = fn.__doc__
    wrapper.__annotations__ = {"request": gr.Request}
    return wrapper


def bind_request_user(blocks: gr.Blocks, watch: Watch | None = None) -> int:
    """Make every event function of ``blocks`` run as its request's user; returns how many
    were bound. Call it once, after the app is built and before it is served. ``watch`` (the
    server's) says how to check an event's credential while it runs."""
    count = 0
    for block_fn in blocks.fns.values():
        if block_fn.fn is None or getattr(block_fn.fn, "_aizac_user_bound", False):
            continue
        wrapped = _as_request_user(block_fn.fn, watch)
        wrapped._aizac_user_bound = True  # type: ignore[attr-defined]
        block_fn.fn = wrapped
        count += 1
    return count
