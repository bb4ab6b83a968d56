"""Every error the server answers, in one shape: ``{"code", "message", "hint"}``.

``code`` is the error's catalogue key (:attr:`~aizac.errors.AizacError.key`, stable across
wordings and languages); ``message`` and ``hint`` are rendered with
:func:`aizac.text.describe` for the ``api`` surface (hints name API calls, not commands), in the
caller's language: the account's own setting, else ``Accept-Language`` (en, ko, zh), else the
server's default. One table maps error kinds to statuses; FastAPI's own refusals (no route,
wrong method, a body that does not fit the schema) and unexpected failures get the same shape.
Nothing a caller sent is echoed back at length, and no server folder is ever named.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from aizac.errors import (
    AizacError,
    CancelledError,
    ConfigError,
    ConflictError,
    DamagedError,
    DeliveryError,
    InvalidInputError,
    LimitError,
    ModelError,
    NotFoundError,
    StorageError,
    damage_of,
)
from aizac.text import LANGUAGES, Text, describe, known, render

log = logging.getLogger("aizac.server")

MAX_MESSAGE = 600
"""Characters of a rendered message or hint sent back at most (a 900 KB id is not echoed)."""
SCHEMA_KEYS = ("error.server.",)
"""Input errors the server itself raises (a body against its schema, a password or name that
fails its rules): 422. The writer's rules on a well-formed request answer 409."""
MAX_PARAM = 120
"""Characters of one value a caller sent that a message may repeat."""
RETRY_DOWN_S = 10.0
"""``Retry-After`` of a 503 for a dependency that is down (the database, the memory server)."""


class UnauthorizedError(AizacError):
    """No valid session or API token (401)."""

    default_hint = "hint.server.sign_in"


class ForbiddenError(AizacError):
    """Signed in, but not allowed to do this (403)."""


class MethodNotAllowedError(AizacError):
    """The path exists, the method does not (405)."""


class TooLargeError(AizacError):
    """The request body is over the server's limit (413)."""


class UnavailableError(AizacError):
    """A dependency is down or the server is not ready (503)."""

    def __init__(self, key: str, /, *, retry_after: float = 0.0, **params: Any) -> None:
        self.retry_after = retry_after
        super().__init__(key, **params)


class InternalError(AizacError):
    """An unexpected failure (500); the log has the traceback under the request id."""


STATUS: list[tuple[type[AizacError], int]] = [
    (UnauthorizedError, 401), (ForbiddenError, 403), (NotFoundError, 404),
    (MethodNotAllowedError, 405), (ConflictError, 409), (CancelledError, 409),
    (TooLargeError, 413), (InvalidInputError, 422), (ConfigError, 500), (InternalError, 500),
    (ModelError, 502), (DeliveryError, 502), (UnavailableError, 503), (DamagedError, 500),
    (StorageError, 507),
]
"""Error kind -> status, first match wins (a :class:`LimitError` is 429, or 503 when the whole
server is busy; a dependency that is down — the memory server, the database — is 503 whatever
raised it; a damaged stored file is 500 with its own code, never "the disk"; an input error of
the writer's rules, raised for a request that fit the schema, is 409: see :func:`status_of`)."""


def clip(value: object, limit: int = MAX_PARAM) -> str:
    """``value`` as text of at most ``limit`` characters (what a caller sent, repeated)."""
    text = str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def negotiate(header: str | None, default: str = "en") -> str:
    """The interface language an ``Accept-Language`` header prefers among en/ko/zh (pure).

    ``ko-KR,ko;q=0.9,en;q=0.8`` -> ``ko``; ``*`` or nothing known -> ``default``."""
    best, best_q = default, -1.0
    for position, part in enumerate((header or "").split(",")[:20]):
        tag, _, params = part.strip().partition(";")
        primary = tag.strip().lower().split("-")[0]
        q = 1.0
        match = re.search(r"q=([0-9.]+)", params)
        if match:
            try:
                q = float(match.group(1))
            except ValueError:
                q = 0.0
        q -= position * 1e-6  # equal weights: the first listed wins
        if primary in LANGUAGES and q > best_q:
            best, best_q = primary, q
    return best


def language_of(request: Request) -> str:
    """The caller's language: the account's setting, else ``Accept-Language``."""
    context = request.scope.get("aizac") or {}
    user = context.get("user")
    chosen = getattr(user, "language", None)
    if chosen in LANGUAGES:
        return str(chosen)
    default = str(context.get("default_language") or "en")
    return negotiate(request.headers.get("accept-language"), default)


def _hide_paths(text: str, roots: Sequence[str]) -> str:
    """``text`` without the server's folders (a message may name a file in the sandbox)."""
    for root in roots:
        if root and root != "/":
            text = re.sub(re.escape(root) + r"[^\s'\"]*", "<data>", text)
    return text


def _roots(request: Request) -> list[str]:
    context = request.scope.get("aizac") or {}
    data_dir = context.get("data_dir")
    if not isinstance(data_dir, Path):
        return []
    found = {str(data_dir.resolve()), str(data_dir.absolute())}
    return sorted(found, key=len, reverse=True)


def status_of(error: AizacError) -> int:
    if isinstance(error, LimitError):
        return 503 if error.capacity else 429
    if memory_server_failed(error) or database_down(error):
        return 503
    if damage_of(error) is not None:
        return 500
    if isinstance(error, InvalidInputError) and not error.key.startswith(SCHEMA_KEYS):
        # The body fit the schema (else FastAPI refused it first): what the project's rules
        # refuse now (an accepted beat edited, no prose to export yet) conflicts with its state.
        return 409
    return next((code for kind, code in STATUS if isinstance(error, kind)), 400)


def memory_server_failed(error: BaseException) -> bool:
    """Whether ``error`` is the memory server not answering or refusing a connection: a
    storage error caused by a transport failure, or the transport failure itself (the Chroma
    client's; model providers' failures arrive as :class:`~aizac.errors.ModelError`). A
    dependency that is down is reported as one (503)."""
    import httpx

    if isinstance(error, httpx.TransportError):
        return True
    if not isinstance(error, StorageError):
        return False
    seen: BaseException | None = error
    for _ in range(12):
        if seen is None:
            return False
        if isinstance(seen, httpx.TransportError):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def database_down(error: BaseException) -> bool:
    """Whether ``error`` is the PostgreSQL database not answering (refused, dropped or shut
    down connections: SQLSTATE class 08, 57P01-57P03, or no SQLSTATE at all from the driver),
    as opposed to a query it refused. A dependency that is down is reported as one (503)."""
    if not isinstance(error, StorageError):
        return False
    if error.key == "error.db.unreachable":
        return True
    seen: BaseException | None = error
    for _ in range(12):
        if seen is None:
            return False
        if getattr(seen, "connection_invalidated", False):
            return True  # SQLAlchemy: the connection broke under the statement
        if type(seen).__module__.startswith("psycopg") and hasattr(seen, "sqlstate"):
            state = getattr(seen, "sqlstate", None)
            return state is None or str(state).startswith("08") or state in (
                "57P01", "57P02", "57P03")
        seen = seen.__cause__ or seen.__context__
    return False


def unavailable(error: AizacError, language: str) -> UnavailableError | None:
    """``error`` as the 503 of a dependency that is down (with ``Retry-After``), else
    ``None``."""
    if isinstance(error, UnavailableError):
        return None
    if memory_server_failed(error):
        said = describe(error, language, surface="api")
        return UnavailableError("error.server.memory_down", retry_after=RETRY_DOWN_S,
                                detail=clip(said.message, 300))
    if database_down(error):
        return UnavailableError("error.server.database_down", retry_after=RETRY_DOWN_S)
    return None


def _in_project(damage: DamagedError) -> DamagedError:
    """A damaged file named from its project's folder (``saga/memory/chroma.sqlite3``): the
    writer knows which file, the server's folders stay unnamed."""
    file = str(damage.params.get("file", ""))
    found = re.search(r"[/\\]projects[/\\](.+)$", file)
    if found is None:
        return damage
    params = {k: v for k, v in damage.params.items() if k not in ("file", "backup_name")}
    said = DamagedError(damage.text.key, **{**params, "file": found.group(1)})
    said.__cause__ = damage
    return said


def body_of(error: AizacError, language: str, roots: Sequence[str] = ()) -> dict[str, str]:
    """The response body of ``error`` for a reader of ``language`` (a refused model reply in
    the reader's words: :func:`aizac.writer.reply_problems.in_writers_words`)."""
    from aizac.writer.reply_problems import in_writers_words

    error = in_writers_words(error)
    damage = damage_of(error)
    error = (_in_project(damage) if damage is not None else None) or unavailable(
        error, language) or error
    said = describe(error, language, surface="api")
    hint = said.hint
    if _names_a_command(hint) and error.default_hint:
        # A hint written for the command line (an English sentence not yet in the catalogue):
        # the class's own hint, in its API variant, says what to do over HTTP instead.
        key = error.default_hint + (".api" if known(error.default_hint + ".api") else "")
        hint = render(Text(key, error.params), language)
    return {
        "code": said.code,
        "message": clip(_hide_paths(said.message, roots), MAX_MESSAGE),
        "hint": clip(_hide_paths(hint, roots), MAX_MESSAGE),
    }


def _names_a_command(hint: str) -> bool:
    return "`aizac " in hint or "--project" in hint or "aizac new" in hint


def error_response(
    error: AizacError, language: str, *, roots: Sequence[str] = (),
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    """``error`` as a JSON response with its status (and ``Retry-After`` where it fits)."""
    extra = dict(headers or {})
    down = unavailable(error, language)
    wait = getattr(down or error, "retry_after", 0.0) or 0.0
    if wait:
        extra["Retry-After"] = str(max(1, round(wait)))
    if isinstance(error, UnauthorizedError):
        extra.setdefault("WWW-Authenticate", 'Bearer realm="aizac"')
    return JSONResponse(body_of(error, language, roots), status_code=status_of(error),
                        headers=extra)


def problem_body(request: Request, error: AizacError) -> dict[str, str]:
    """``error`` in the error shape for ``request`` (its language, the server's folders
    hidden), e.g. what is wrong with a listed project."""
    return body_of(error, language_of(request), _roots(request))


def for_request(request: Request, error: AizacError,
                headers: dict[str, str] | None = None) -> JSONResponse:
    """``error`` answered to ``request`` (its language, the server's folders hidden)."""
    return error_response(error, language_of(request), roots=_roots(request), headers=headers)


# ------------------------------------------------------------------------------- handlers
def _aizac_error(request: Request, error: Exception) -> JSONResponse:
    if not isinstance(error, AizacError):  # registered for this class only
        raise error
    status = status_of(error)
    if status >= 500:
        log.warning("request failed: %s", error, extra={"code": error.key, "status": status})
    return for_request(request, damage_of(error) or error)


def flat_routes(routes: Iterable[Any]) -> list[Any]:
    """``routes`` with included routers opened up (FastAPI keeps ``include_router``'s routers
    as one entry each)."""
    out: list[Any] = []
    for route in routes:
        inner = getattr(route, "original_router", None)
        if inner is not None:
            out.extend(flat_routes(inner.routes))
        else:
            out.append(route)
    return out


def allowed_methods(app: Any, scope: dict[str, Any]) -> list[str]:
    """Every method some route of ``app`` answers at the request's path (for ``Allow``)."""
    methods: set[str] = set()
    for route in flat_routes(getattr(app, "routes", [])):
        if getattr(route, "methods", None) is None:
            continue  # a mount: its own routes answer for themselves
        match, _ = route.matches({**scope, "method": "__NONE__"})
        if match in (Match.PARTIAL, Match.FULL):
            methods.update(getattr(route, "methods", None) or ())
    return sorted(methods)


def _http_error(request: Request, error: Exception) -> JSONResponse:
    if not isinstance(error, StarletteHTTPException):  # registered for this class only
        raise error
    status = error.status_code
    headers = dict(error.headers or {})
    said: AizacError
    if status == 404:
        said = NotFoundError("error.server.no_route", path=clip(request.url.path, 200))
    elif status == 405:
        allowed = allowed_methods(request.app, dict(request.scope))
        headers["Allow"] = ", ".join(allowed)
        said = MethodNotAllowedError("error.server.method_not_allowed",
                                     method=clip(request.method, 12), allowed=", ".join(allowed))
    elif status == 401:
        said = UnauthorizedError("error.server.not_signed_in")
    elif status == 403:
        said = ForbiddenError("error.server.forbidden")
    elif status == 413:
        said = TooLargeError("error.server.body_too_large", limit="?")
    elif status == 503:
        said = UnavailableError("error.server.unavailable")
    elif status >= 500:
        said = InternalError("error.server.internal", request_id=_request_id(request))
    else:
        said = InvalidInputError("error.server.bad_request", status=status)
    return for_request(request, said, headers)


def fields_of(errors: Iterable[dict[str, Any]], limit: int = 6) -> str:
    """Where a body failed its schema and why, without the values (pure):
    ``body.name (string_too_long); path.beat_id (int_parsing)``."""
    parts = []
    for item in list(errors)[:limit]:
        where = ".".join(clip(x, 40) for x in item.get("loc", ()) if x != "__root__")
        parts.append(f"{where or 'body'} ({clip(item.get('type', 'invalid'), 40)})")
    return "; ".join(parts)


INT4 = (-(2**31), 2**31 - 1)
"""What an integer column of PostgreSQL holds (both engines refuse the same numbers)."""


def _outside_int4(value: Any) -> bool:
    """Whether ``value`` (a body's number, or a path's digits) is a number outside 32 bits."""
    if isinstance(value, str) and re.fullmatch(r"[+-]?\d{1,400}", value.strip()):
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return not INT4[0] <= value <= INT4[1]


def unstorable(errors: list[dict[str, Any]]) -> AizacError | None:
    """The refusal of a value the database could not store, said as such (pure): a text with
    a NUL character (U+0000: PostgreSQL's text columns refuse it) or an integer outside 32
    bits; ``None`` when the request failed its schema otherwise."""
    nul = [e for e in errors if e.get("type") == "nul_character"
           or (isinstance(e.get("input"), str) and "\x00" in e["input"])]
    if nul:
        return InvalidInputError("error.server.nul_character", fields=fields_of(nul))
    wide = [e for e in errors if e.get("type") in ("less_than_equal", "greater_than_equal")
            and _outside_int4(e.get("input"))]
    if wide:
        return InvalidInputError("error.server.number_range", fields=fields_of(wide))
    return None


def _validation_error(request: Request, error: Exception) -> JSONResponse:
    if not isinstance(error, RequestValidationError):  # registered for this class only
        raise error
    items = list(error.errors())
    said = unstorable(items) or InvalidInputError("error.server.invalid_request",
                                                  fields=fields_of(items))
    return for_request(request, said)


def _request_id(request: Request) -> str:
    return str((request.scope.get("aizac") or {}).get("request_id", "-"))


def _unexpected(request: Request, error: Exception) -> JSONResponse:
    if memory_server_failed(error):  # a Chroma call that timed out, raised as it is
        log.warning("the memory server failed: %r", error)
        return for_request(request, UnavailableError("error.server.memory_down",
                                                     retry_after=RETRY_DOWN_S,
                                                     detail=clip(type(error).__name__)))
    log.exception("unexpected failure", exc_info=error)
    return for_request(request, InternalError("error.server.internal",
                                              request_id=_request_id(request)))


def install(app: FastAPI) -> None:
    """Answer every error of ``app`` in the one shape."""
    app.add_exception_handler(AizacError, _aizac_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(Exception, _unexpected)


ERROR_SCHEMA = {
    "type": "object",
    "required": ["code", "message", "hint"],
    "additionalProperties": False,
    "properties": {
        "code": {"type": "string", "description": "The error's stable catalogue key."},
        "message": {"type": "string", "description": "What went wrong, in the caller's "
                    "language (the account's setting, else Accept-Language)."},
        "hint": {"type": "string", "description": "What to do next (may be empty)."},
    },
}
"""The JSON schema of every error body (the OpenAPI document refers to it)."""

__all__ = [
    "ERROR_SCHEMA",
    "STATUS",
    "ForbiddenError",
    "InternalError",
    "MethodNotAllowedError",
    "TooLargeError",
    "UnauthorizedError",
    "UnavailableError",
    "body_of",
    "clip",
    "database_down",
    "error_response",
    "for_request",
    "install",
    "language_of",
    "negotiate",
    "problem_body",
    "status_of",
    "unavailable",
]
