"""The multi-user server: :func:`create_app` builds the FastAPI app of ``aizac serve``.

``/api/v1`` is the REST API (OpenAPI docs at ``/docs``), ``/ui/`` the Gradio beat editor,
``/login`` the sign-in page. Both the API and the web app call the same per-user
:class:`~aizac.web.service.WebService` (see :mod:`aizac.server.sandbox`).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from starlette.middleware.sessions import SessionMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from aizac.errors import (
    AizacError,
    CancelledError,
    ConflictError,
    InvalidInputError,
    LimitError,
    ModelError,
    NotFoundError,
    StorageError,
)
from aizac.server import api_content, api_projects, auth, pages
from aizac.server.accounts import AccountStore, LoginLimiter, SessionStore
from aizac.server.config import ServerConfig
from aizac.server.sandbox import Sandboxes, StudioFactory
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
            await _too_large(send, self.limit)
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
                await _too_large(send, self.limit)


class _TooLarge(BaseException):
    """Raised from ``receive`` past the limit; a BaseException so that no body parser on the
    way (FastAPI answers any parsing Exception with 400) turns it into another status."""


async def _too_large(send: Send, limit: int) -> None:
    await JSONResponse(
        {"error": f"The request body is larger than {limit} bytes.",
         "hint": "Send less at once (AIZAC_SERVER_MAX_BODY_BYTES)."},
        status_code=413,
    )({"type": "http"}, _no_receive, send)


async def _no_receive() -> Message:
    return {"type": "http.disconnect"}


_STATUS: list[tuple[type[AizacError], int]] = [
    (NotFoundError, 404), (InvalidInputError, 422), (ConflictError, 409),
    (CancelledError, 409), (StorageError, 507), (ModelError, 502),
]


def _hide_paths(text: str, roots: list[str]) -> str:
    """``text`` without the server's folders (a message may name a file in the sandbox)."""
    for root in roots:
        text = re.sub(re.escape(root) + r"[^\s'\"]*", "<data>", text)
    return text


def _error_response(request: Request, error: Exception) -> JSONResponse:
    if not isinstance(error, AizacError):  # registered for AizacError only
        raise error
    data_dir = request.app.state.aizac.sandboxes.settings.data_dir
    roots = sorted({str(data_dir.resolve()), str(data_dir.absolute())}, key=len, reverse=True)
    headers: dict[str, str] = {}
    if isinstance(error, LimitError):
        code = 503 if error.capacity else 429
        if error.retry_after:
            headers["Retry-After"] = str(max(1, round(error.retry_after)))
    else:
        code = next((c for kind, c in _STATUS if isinstance(error, kind)), 400)
    said = {"error": _hide_paths(error.message, roots), "hint": _hide_paths(error.hint, roots)}
    return JSONResponse(said, status_code=code, headers=headers)


def create_app(
    settings: Settings,
    *,
    config: ServerConfig | None = None,
    studio_factory: StudioFactory | None = None,
    accounts: AccountStore | None = None,
    ui: bool = True,
    ui_language: str | None = None,
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
    """
    config = config or ServerConfig()
    accounts = accounts or AccountStore.open(settings)
    max_age = int(config.session_days * 86400)
    state = auth.ServerState(
        config=config, accounts=accounts, sessions=SessionStore(accounts, max_age),
        sandboxes=Sandboxes(settings, config, studio_factory),
        limiter=LoginLimiter(config.login_attempts, config.login_window_s),
        signups=LoginLimiter(config.signup_attempts, config.signup_window_s),
    )

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        state.sandboxes.close()  # let other processes open the users' projects

    app = FastAPI(title="aizac", lifespan=lifespan, version="1", docs_url="/docs", redoc_url=None,
                  description="The aizac co-writing server: projects, plot, beats, prose, "
                  "memory and exports of the signed-in user.")
    app.state.aizac = state
    app.add_exception_handler(AizacError, _error_response)
    for router in (auth.router, api_projects.router, api_content.router, pages.router):
        app.include_router(router)
    if ui:
        from aizac.server.mount import mount_ui

        mount_ui(app, state, path=UI_PATH, language=ui_language or settings.ui_language)
    app.add_middleware(
        SessionMiddleware, secret_key=config.session_secret(settings.data_dir),
        session_cookie=SESSION_COOKIE, max_age=max_age, same_site="lax",
        https_only=config.https_only,
    )
    app.add_middleware(BodyLimit, limit=config.max_body_bytes)
    return app
