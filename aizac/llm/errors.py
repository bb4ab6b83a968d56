"""Classifying provider failures (pure): transient or not, and a one-line, key-free summary."""

from __future__ import annotations

import email.utils
import json
import re
import sys
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import overload

from aizac.text import Text, Verbatim

_TRANSIENT_STATUS = {408, 409, 425, 429, 500, 502, 503, 504, 529}
_KEYLIKE = re.compile(r"\b(sk-[A-Za-z0-9_\-]{6,}|nv-[A-Za-z0-9_\-]{6,}|Bearer\s+\S+)")


def status_of(error: BaseException) -> int | None:
    """The HTTP status carried by an SDK / httpx error, if any."""
    for attr in ("status_code", "status"):
        value = getattr(error, attr, None)
        if isinstance(value, int):
            return value
    response = getattr(error, "response", None)
    value = getattr(response, "status_code", None)
    return value if isinstance(value, int) else None


# SDK error classes by role; looked up in already-imported modules only (an error of an SDK that
# was never imported cannot occur, and importing SDKs here would slow every start-up).
_SDK_ERRORS: dict[str, tuple[tuple[str, str], ...]] = {
    "timeout": (
        ("httpx", "TimeoutException"),
        ("openai", "APITimeoutError"),
        ("anthropic", "APITimeoutError"),
    ),
    "connection": (
        ("httpx", "TransportError"),
        ("openai", "APIConnectionError"),
        ("anthropic", "APIConnectionError"),
    ),
    "malformed": (
        ("openai", "APIResponseValidationError"),
        ("anthropic", "APIResponseValidationError"),
    ),
}


def _sdk_types(kind: str) -> tuple[type, ...]:
    found: list[type] = []
    for module_name, name in _SDK_ERRORS[kind]:
        cls = getattr(sys.modules.get(module_name), name, None)
        if isinstance(cls, type):
            found.append(cls)
    return tuple(found)


def _is_timeout(error: BaseException) -> bool:
    return isinstance(error, (TimeoutError, *_sdk_types("timeout")))


def _is_connection(error: BaseException) -> bool:
    return isinstance(error, (ConnectionError, *_sdk_types("connection")))


def _is_malformed(error: BaseException) -> bool:
    kinds = (json.JSONDecodeError, *_sdk_types("malformed"))
    return any(isinstance(e, kinds) for e in _causes(error))


def _causes(error: BaseException) -> list[BaseException]:
    """``error`` and up to four errors it was raised from."""
    chain: list[BaseException] = []
    seen: BaseException | None = error
    while seen is not None and len(chain) < 5:
        chain.append(seen)
        seen = seen.__cause__ or seen.__context__
    return chain


def _closed_loop(error: BaseException) -> bool:
    """An async client used after its event loop closed (a caller bug, not the provider's)."""
    return any(
        isinstance(e, RuntimeError) and "Event loop is closed" in str(e) for e in _causes(error)
    )


def is_length_cut(error: BaseException) -> bool:
    """The SDK refused a reply because it hit the token limit (``finish_reason: length``);
    the OpenAI SDK raises this for ``response_format`` requests instead of returning them."""
    openai = sys.modules.get("openai")  # its errors exist only once it is imported
    kind = getattr(openai, "LengthFinishReasonError", None) if openai else None
    return isinstance(kind, type) and isinstance(error, kind)


def is_transient(error: BaseException) -> bool:
    """429, 5xx (and 408/409/529), timeouts and connection errors are worth retrying."""
    if _is_malformed(error) or _closed_loop(error):
        return False
    status = status_of(error)
    if status is not None:
        return status in _TRANSIENT_STATUS or 500 <= status < 600
    return _is_timeout(error) or _is_connection(error)


def summarize(error: BaseException) -> Text | Verbatim:
    """A short description of ``error`` for a user (never includes the response body): a
    catalogue text, or the exception's own first line (its type and words, as they are)."""
    if _is_malformed(error):
        return Text("error.model.cause.malformed")
    if _closed_loop(error):
        return Text("error.model.cause.closed_loop")
    status = status_of(error)
    if status == 401 or status == 403:
        return Text("error.model.cause.key_rejected", status=status)
    if status == 429:
        return Text("error.model.cause.rate_limited")
    if status is not None:
        return Text("error.model.cause.http", status=status)
    if _is_timeout(error):
        return Text("error.model.cause.timeout")
    if _is_connection(error):
        return Text("error.model.cause.connect")
    text = str(error).splitlines()[0] if str(error) else ""
    return Verbatim(f"{type(error).__name__}: {text[:200]}".rstrip(": "))


ROLE_NAMES = {"planner": "role.planner", "writer": "role.writer", "extractor": "role.extractor",
              "reviewer": "role.reviewer", "image": "role.image"}
"""Each model role's name in the catalogue."""


def role_name(role: str) -> Text | Verbatim:
    """A model role (``planner``...) as the reader calls it; an unknown one as it is."""
    key = ROLE_NAMES.get(role)
    return Text(key) if key else Verbatim(role)


def hint_for(error: BaseException, setting: str) -> Text:
    """What to do next for ``error`` (``setting`` names the role's model setting)."""
    if _is_malformed(error):
        return Text("hint.model.malformed", setting=setting)
    if _closed_loop(error):
        return Text("hint.model.closed_loop")
    status = status_of(error)
    if status in (401, 403):
        return Text("hint.model.key", setting=setting)
    if status == 404:
        return Text("hint.model.not_found", setting=setting)
    if status is not None and status < 500 and status != 429:
        return Text("hint.model.rejected", setting=setting)
    if not is_transient(error):
        return Text("hint.model.unexpected", setting=setting)
    return Text("hint.model.unavailable", setting=setting,
                fallback=setting.replace("_MODEL", "_FALLBACK"))


def retry_after(error: BaseException) -> float | None:
    """Seconds the server asked to wait (``Retry-After`` / ``retry-after-ms``), if it said."""
    headers = getattr(getattr(error, "response", None), "headers", None)
    if headers is None:
        return None
    millis = headers.get("retry-after-ms")
    value = headers.get("retry-after")
    try:
        if millis is not None:
            return max(0.0, float(millis) / 1000)
        if value is not None:
            return max(0.0, float(value))
    except ValueError:
        pass
    if value is None:
        return None
    try:  # an HTTP date
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, (when - datetime.now(when.tzinfo or UTC)).total_seconds())


def redact(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every secret and anything key-shaped replaced by ``***``."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "***")
    return _KEYLIKE.sub("***", text)


@overload
def redact_text(text: Text, secrets: Iterable[str]) -> Text: ...
@overload
def redact_text(text: Verbatim, secrets: Iterable[str]) -> Verbatim: ...
def redact_text(text: Text | Verbatim, secrets: Iterable[str]) -> Text | Verbatim:
    """``text`` with :func:`redact` applied to what it quotes (its string parameters, nested
    texts, a verbatim value); the catalogue's own words hold no secret."""
    kept = list(secrets)
    if isinstance(text, Verbatim):
        return Verbatim(redact(text.text, kept))
    return Text(text.key, {k: _redact_value(v, kept) for k, v in text.params.items()})


def _redact_value(value: object, secrets: list[str]) -> object:
    if isinstance(value, str):
        return redact(value, secrets)
    if isinstance(value, Text | Verbatim):
        return redact_text(value, secrets)
    return value
