"""The multi-user server: :func:`create_app` builds the FastAPI app of ``aizac serve``.

``/api/v1`` is the REST API (OpenAPI at ``/openapi.json``, docs at ``/docs``), ``/ui/`` the
Gradio beat editor, ``/login`` the sign-in page, ``/healthz`` and ``/readyz`` the operator's
probes. Both the API and the web app call the same per-user
:class:`~aizac.application.service.ApplicationService` (see :mod:`aizac.server.sandbox`).

From the outside in, every request passes: :class:`~aizac.server.gate.Envelope` (request id,
security headers, access log), :class:`BodyLimit` (413), the signed session cookie, and
:class:`~aizac.server.gate.Gate` (who is asking; deny by default; the origin check; the web
app's own routes through :class:`~aizac.server.ui_gate.UiGate`). Every error is answered in
one shape (:mod:`aizac.server.errors`).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable

from fastapi import FastAPI
from starlette.middleware.sessions import SessionMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from aizac.server import api_admin, api_content, api_projects, auth, docs, errors, health, pages
from aizac.server import openapi as openapi_doc
from aizac.server.accounts import AccountStore, KnownAddresses, LoginLimiter, SessionStore
from aizac.server.api_pictures import router as pictures_router
from aizac.server.config import ServerConfig
from aizac.server.errors import TooLargeError
from aizac.server.gate import Envelope, Gate, UiSlot, refuse
from aizac.server.sandbox import Sandboxes, StudioFactory
from aizac.server.state import ServerState
from aizac.settings import Settings

SESSION_COOKIE = "aizac_session"
UI_PATH = "/ui"


class BodyLimit:
    """Refuse request bodies over ``limit`` bytes with 413, whether the client declares the
    length or streams the body (uploads included); nothing over the limit is read."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers", [])).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.limit:
            await self._too_large(scope, send)
            return
        seen = 0
        started = False

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise _TooLarge
            return message

        async def tracked(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, tracked)
        except _TooLarge:
            if not started:
                await self._too_large(scope, send)

    async def _too_large(self, scope: Scope, send: Send) -> None:
        await refuse(scope, _no_receive, send,
                     TooLargeError("error.server.body_too_large", limit=self.limit))


class _TooLarge(BaseException):
    """Raised from ``receive`` past the limit; a BaseException so that no body parser on the
    way (FastAPI answers any parsing Exception with 400) turns it into another status."""


async def _no_receive() -> Message:
    return {"type": "http.disconnect"}


async def _sweep_spools(settings: Settings, keep_s: float) -> None:
    """Remove exports nobody downloaded in time, now and then (see
    :class:`~aizac.server.lifecycle.ExportSpool`)."""
    from aizac.server.lifecycle import sweep_spools

    while True:
        with contextlib.suppress(OSError):
            await asyncio.to_thread(sweep_spools, settings, keep_s)
        await asyncio.sleep(max(5.0, keep_s / 4))


def create_app(
    settings: Settings,
    *,
    config: ServerConfig | None = None,
    studio_factory: StudioFactory | None = None,
    accounts: AccountStore | None = None,
    ui: bool = True,
    ui_language: str | None = None,
    on_ready: Callable[[float], None] | None = None,
    started: float | None = None,
) -> FastAPI:
    """The server app over ``settings.data_dir`` (users live in ``users/<id>/``, accounts and
    the session key in ``server/``).

    Args:
        settings: the writer settings every user's sandbox starts from.
        config: accounts, sessions and limits (default: ``ServerConfig()`` from the env).
        studio_factory: builds a user's Studio (tests and benches inject scripted models).
        accounts: the account store (default: :meth:`AccountStore.open`, on the PostgreSQL
            database with ``AIZAC_DATABASE_URL``, else ``<data_dir>/server/accounts.sqlite3``).
        ui: mount the Gradio beat editor at ``/ui`` (off: API only).
        ui_language: the web app's language (default: the ``ui_language`` setting).
        on_ready: called once the start-up work is done, with the seconds it took.
        started: when the process started (``time.monotonic()``), for that figure.
    """
    started = time.monotonic() if started is None else started
    config = config or ServerConfig()
    accounts = accounts or AccountStore.open(
        settings, hash_slots=config.hash_slots, hash_wait_s=config.hash_wait_s,
        min_password_score=config.min_password_score)
    accounts.min_password_score = config.min_password_score
    max_age = int(config.session_days * 86400)
    window = config.login_window_s
    state = ServerState(
        config=config, accounts=accounts, sessions=SessionStore(accounts, max_age),
        sandboxes=Sandboxes(settings, config, studio_factory),
        limiter=LoginLimiter(config.login_attempts, window),
        signups=LoginLimiter(config.signup_attempts, config.signup_window_s),
        per_address=LoginLimiter(config.login_attempts_per_address, window),
        per_name=LoginLimiter(config.login_attempts_per_name, window),
        known=KnownAddresses(max_age),
    )
    state.health = health.Readiness(state, started=started, on_ready=on_ready)

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        state.health.start()
        sweeper = asyncio.create_task(_sweep_spools(settings, config.export_keep_s))
        yield
        sweeper.cancel()
        state.sandboxes.close()  # let other processes open the users' projects

    app = FastAPI(title="aizac", lifespan=lifespan, version="1", docs_url=None, redoc_url=None,
                  description="The aizac co-writing server: projects, plot, beats, prose, "
                  "memory and exports of the signed-in user. Every error is "
                  "`{code, message, hint}` in the caller's language (the account's setting, "
                  "else Accept-Language: en, ko, zh).")
    app.state.aizac = state
    errors.install(app)
    openapi_doc.install(app)
    for router in (auth.router, api_admin.router, api_projects.router, api_content.router,
                   pictures_router, health.router, pages.router):
        app.include_router(router)
    docs.install(app)
    secret = config.session_secret(settings.data_dir)
    slot = UiSlot(UI_PATH)
    app.state.ui_slot = slot
    if ui:
        from aizac.server.mount import mount_ui

        mount_ui(app, state, slot, language=ui_language or settings.ui_language, secret=secret)
    # add_middleware wraps the outside: the last one added sees a request first.
    app.add_middleware(Gate, state=state, ui=slot)
    app.add_middleware(
        SessionMiddleware, secret_key=secret, session_cookie=SESSION_COOKIE, max_age=max_age,
        same_site="lax", https_only=config.https_only,
    )
    app.add_middleware(BodyLimit, limit=config.max_body_bytes)
    app.add_middleware(Envelope, https=config.https_only, data_dir=settings.data_dir,
                       default_language=settings.ui_language)
    return app
