"""One gate in front of every route the server process serves, Gradio's included.

Two ASGI middlewares wrap the whole app (see :func:`aizac.server.app.create_app`):

* :class:`Envelope`, the outermost: gives each request an id (``X-Request-ID``), puts the
  security headers on every response (framing refused, ``nosniff``, a Content-Security-Policy
  that fits Gradio's page, a referrer policy), removes any CORS grant (this server serves no
  other origin; Gradio's own middleware would grant every ``localhost`` port), and writes one
  structured access-log line per request with the user id, the status and the time taken. Paths
  are logged without query strings, Gradio session hashes or file names.
* :class:`Gate`, inside the session middleware: knows the account (session cookie or API
  token), and **denies by default**. A route is public only if :func:`is_public` lists it (the
  sign-in page, sign-up and log-in, log-out, health, the API schema and its docs, static
  assets that carry no user data); every other request needs a signed-in user, an admin for
  ``/api/v1/admin``. A state-changing request that rides a session cookie must come from the
  server's own pages (``Origin``/``Referer``, see :func:`origin_allowed`); bearer-token
  requests are exempt (a browser never adds that header across sites by itself). Requests to
  the mounted beat editor go through :class:`~aizac.server.ui_gate.UiGate`.
"""

from __future__ import annotations

import contextvars
import logging
import re
import time
import urllib.parse
import uuid
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starlette.datastructures import Headers, MutableHeaders
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from aizac.errors import AizacError
from aizac.server.errors import ForbiddenError, UnauthorizedError, error_response, negotiate

if TYPE_CHECKING:
    from aizac.server.accounts import User
    from aizac.server.state import ServerState

log = logging.getLogger("aizac.server.access")

REQUEST_ID: contextvars.ContextVar[str] = contextvars.ContextVar("aizac_request_id",
                                                                 default="-")
USER_ID: contextvars.ContextVar[str] = contextvars.ContextVar("aizac_user_id", default="-")
UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{8,64}")

def content_policy(nonce: str | None = None) -> str:
    """The Content-Security-Policy of a response (pure): scripts and styles from this server
    only. With ``nonce`` (the web app's page, see :mod:`aizac.server.ui_gate`), the inline
    scripts that carry that nonce run too, and inline styles are allowed: Gradio's page
    carries its configuration in inline scripts (nonced per response) and styles itself
    inline (style attributes and the style elements its components add at run time)."""
    scripts = f"script-src 'self' 'nonce-{nonce}'" if nonce else "script-src 'self'"
    styles = "style-src 'self' 'unsafe-inline'" if nonce else "style-src 'self'"
    return "; ".join([
        "default-src 'self'",
        scripts,
        styles,
        "img-src 'self' data: blob:",
        "font-src 'self' data:",
        "media-src 'self' blob:",
        "connect-src 'self'",
        "worker-src 'self' blob:",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ])


CSP = content_policy()
"""The policy of every response but the web app's page: no inline script or style at all."""
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=()",
}
"""On every response (a fixed table: a header library would add nothing to six lines)."""
HSTS = "max-age=31536000"

PUBLIC_EXACT = frozenset({
    ("GET", "/"), ("GET", "/login"), ("GET", "/logout"), ("POST", "/logout"),
    ("GET", "/healthz"), ("GET", "/readyz"), ("GET", "/docs"), ("GET", "/openapi.json"),
    ("GET", "/favicon.ico"),
    ("POST", "/api/v1/auth/signup"), ("POST", "/api/v1/auth/login"),
    ("POST", "/api/v1/auth/logout"),
})
PUBLIC_PREFIXES = ("/docs-assets/", "/aizac-assets/")
"""Routes that need no account: they show no user's data."""


@dataclass
class UiSlot:
    """Where the web app is mounted and the gate of its routes (filled in once it is built)."""

    path: str = "/ui"
    gate: Any = None


@dataclass
class Caller:
    """Who a request speaks for, as the gate found it."""

    user: User | None = None
    via: str = ""  # "session" | "token" | ""
    writes: bool = True  # a read-only token may not change anything
    token_id: str = ""
    secret: str = field(default="", repr=False)
    """The session id or the token itself (an open stream checks it again while it runs)."""


_PUBLIC_PATHS = frozenset(path for _, path in PUBLIC_EXACT)


def is_public(method: str, path: str) -> bool:
    """Whether ``method path`` may be answered without an account (pure): a public path, by
    any method (the router answers a wrong one with 405; only the listed one does anything)."""
    if path in _PUBLIC_PATHS or (path.rstrip("/") or "/") in _PUBLIC_PATHS:
        return True
    return method in ("GET", "HEAD") and path.startswith(PUBLIC_PREFIXES)


def request_origin(scope: Scope) -> str:
    """``scheme://host[:port]`` this request was addressed to (the ``Host`` header and the
    scheme uvicorn determined, from a trusted proxy's ``X-Forwarded-Proto`` too)."""
    host = Headers(scope=scope).get("host", "")
    return normal_origin(f"{scope.get('scheme', 'http')}://{host}")


def normal_origin(origin: str) -> str:
    """``origin`` lower-cased with its default port dropped (pure); ``""`` if it is none."""
    parts = urllib.parse.urlsplit(origin.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return ""
    try:
        port = parts.port
    except ValueError:
        return ""
    default = {"http": 80, "https": 443}[parts.scheme]
    host = parts.hostname.lower()
    if ":" in host:
        host = f"[{host}]"
    return f"{parts.scheme}://{host}" + (f":{port}" if port and port != default else "")


def origin_allowed(scope: Scope, allowed: Iterable[str], has_cookie: bool) -> tuple[bool, str]:
    """Whether a state-changing request proves it comes from this server's pages, and the
    origin it named (for the message).

    ``Origin`` (every browser sends it on a POST) must be the server's own or one of
    ``allowed``; without it, the ``Referer``'s origin; with neither, a request is refused only
    if it carries the session cookie (a script without a cookie has nothing to abuse)."""
    headers = Headers(scope=scope)
    own = {request_origin(scope), *(normal_origin(a) for a in allowed)} - {""}
    named = headers.get("origin")
    if named is None and headers.get("referer"):
        named = headers.get("referer", "")
    if named is None:
        site = headers.get("sec-fetch-site")
        return (not has_cookie or site in ("same-origin", "none")), ""
    return normal_origin(named) in own, named[:100]


def _redacted(path: str) -> str:
    """A path fit for the log: no session hash, no file path."""
    if "/gradio_api/heartbeat/" in path:
        return path.split("/gradio_api/heartbeat/")[0] + "/gradio_api/heartbeat/…"
    if "/gradio_api/file" in path:
        return path.split("/gradio_api/file")[0] + "/gradio_api/file…"
    return path[:200]


class Envelope:
    """Request id, security headers, no CORS grant, one access-log line (see the module).

    Args:
        app: the wrapped app.
        https: add ``Strict-Transport-Security`` (the server sits behind HTTPS).
        data_dir: the server's data folder (hidden from error messages).
        default_language: the language of errors for a caller who names none.
    """

    def __init__(self, app: ASGIApp, *, https: bool = False, data_dir: Path | None = None,
                 default_language: str = "en") -> None:
        self.app = app
        self.https = https
        self.data_dir = data_dir
        self.default_language = default_language

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":  # nothing here speaks WebSocket
            await send({"type": "websocket.close", "code": 1008})
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        asked = Headers(scope=scope).get("x-request-id", "")
        request_id = asked if _REQUEST_ID.fullmatch(asked) else uuid.uuid4().hex
        context = scope.setdefault("aizac", {})
        context.update(request_id=request_id, data_dir=self.data_dir,
                       default_language=self.default_language)
        token = REQUEST_ID.set(request_id)
        status = {"code": 0}
        started = time.perf_counter()

        async def dressed(message: Message) -> None:
            if message["type"] == "http.response.start":
                status["code"] = int(message["status"])
                headers = MutableHeaders(scope=message)
                for name in [k for k in headers if k.lower().startswith("access-control-")]:
                    del headers[name]
                for name, value in SECURITY_HEADERS.items():
                    if name not in headers:
                        headers[name] = value
                if self.https:
                    headers["Strict-Transport-Security"] = HSTS
                headers["X-Request-ID"] = request_id
                if str(scope.get("path", "")).startswith("/api/") and (
                        "cache-control" not in headers):
                    headers["Cache-Control"] = "no-store"
            await send(message)

        try:
            await self.app(scope, receive, dressed)
        finally:
            REQUEST_ID.reset(token)
            user = context.get("user")
            log.info("request", extra={
                "request_id": request_id, "user_id": getattr(user, "id", "-"),
                "method": scope.get("method"), "path": _redacted(str(scope.get("path", ""))),
                "status": status["code"], "ms": round((time.perf_counter() - started) * 1000, 1),
                "client": (scope.get("client") or ("-",))[0],
            })


Refusal = Callable[[Scope, Receive, Send], Awaitable[None]]


async def refuse(scope: Scope, receive: Receive, send: Send, error: AizacError,
                 headers: dict[str, str] | None = None) -> None:
    """Answer ``error`` in the one error shape, in the caller's language."""
    context = scope.get("aizac") or {}
    user = context.get("user")
    language = getattr(user, "language", None) or negotiate(
        Headers(scope=scope).get("accept-language"), str(context.get("default_language", "en")))
    data_dir = context.get("data_dir")
    roots = [str(data_dir.resolve())] if isinstance(data_dir, Path) else []
    await error_response(error, language, roots=roots, headers=headers)(scope, receive, send)


class Gate:
    """Knows the account and denies by default (see the module docstring).

    Args:
        app: the routes (the API, the pages, the mounted web app).
        state: the server's accounts, sessions, sandboxes and settings.
        ui: where the beat editor is mounted, and its gate (set by
            :func:`aizac.server.mount.mount_ui`; none: no web app, its paths are 404).
    """

    def __init__(self, app: ASGIApp, state: ServerState, ui: UiSlot) -> None:
        self.app = app
        self.state = state
        self.slot = ui

    @property
    def ui_path(self) -> str:
        return self.slot.path

    def caller(self, scope: Scope) -> Caller:
        """Who the request speaks for: a bearer token wins (a bad one is no one), else the
        session cookie's server-side session."""
        from aizac.server.state import SESSION_KEY

        header = Headers(scope=scope).get("authorization", "")
        scheme, _, token = header.partition(" ")
        if scheme.lower() == "bearer":
            found = self.state.accounts.token_user(token.strip()) if token.strip() else None
            if found is None:
                return Caller(via="token")
            user, info = found
            return Caller(user, "token", writes=info.scope != "read", token_id=info.id,
                          secret=token.strip())
        session = scope.get("session") or {}
        sid = session.get(SESSION_KEY)
        if isinstance(sid, str) and sid:
            signed_in = self.state.sessions.user(sid)
            if signed_in is not None:
                return Caller(signed_in, "session", secret=sid)
        return Caller()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        method, path = str(scope["method"]), str(scope["path"])
        try:
            caller = self.caller(scope)
        except AizacError as e:  # the accounts' database is down: said, not a dropped request
            if not is_public(method, path):
                await refuse(scope, receive, send, e)
                return
            caller = Caller()  # /healthz and the sign-in page answer without an account
        context = scope.setdefault("aizac", {})
        context["user"], context["caller"] = caller.user, caller
        user_token = USER_ID.set(caller.user.id if caller.user else "-")
        try:
            refusal = self.check(scope, caller, method, path)
            if refusal is not None:
                await refuse(scope, receive, send, *refusal)
                return
            if self.slot.gate is not None and (path == self.ui_path or
                                               path.startswith(self.ui_path + "/")):
                await self.slot.gate(scope, receive, send, caller, self.app)
                return
            await self.app(scope, receive, send)
        finally:
            USER_ID.reset(user_token)

    def check(self, scope: Scope, caller: Caller, method: str, path: str
              ) -> tuple[AizacError, dict[str, str]] | None:
        """Why this request is refused here (``None``: let it through)."""
        headers = Headers(scope=scope)
        in_ui = path == self.ui_path or path.startswith(self.ui_path + "/")
        if method in UNSAFE and caller.via != "token":
            has_cookie = "aizac_session=" in headers.get("cookie", "")
            ok, named = origin_allowed(scope, self.state.config.allowed_origins, has_cookie)
            if not ok:
                return ForbiddenError("error.server.origin_refused", origin=named or "-"), {}
        if in_ui and self.slot.gate is not None:
            return None  # the web app's own gate decides (assets are public there)
        if is_public(method, path):
            return None
        if caller.user is None:
            return UnauthorizedError("error.server.not_signed_in"), {}
        if method in UNSAFE and not caller.writes:
            return ForbiddenError("error.server.token_read_only"), {}
        if path.startswith("/api/v1/admin") and caller.user.role != "admin":
            return ForbiddenError("error.server.admin_only"), {}
        return None


def caller_of(request: Request) -> Caller:
    context = request.scope.get("aizac") or {}
    found = context.get("caller")
    return found if isinstance(found, Caller) else Caller()


__all__ = [
    "CSP",
    "SECURITY_HEADERS",
    "Caller",
    "Envelope",
    "Gate",
    "content_policy",
    "is_public",
    "normal_origin",
    "origin_allowed",
    "refuse",
    "request_origin",
]
