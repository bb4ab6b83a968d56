"""Classifying provider failures (pure): transient or not, and a one-line, key-free summary."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

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


def _is_timeout(error: BaseException) -> bool:
    names = {cls.__name__ for cls in type(error).__mro__}
    return bool(names & {"TimeoutError", "TimeoutException", "APITimeoutError", "ReadTimeout"})


def _is_connection(error: BaseException) -> bool:
    names = {cls.__name__ for cls in type(error).__mro__}
    return bool(
        names
        & {
            "ConnectionError",
            "APIConnectionError",
            "ConnectError",
            "RemoteProtocolError",
            "TransportError",
        }
    )


def _is_malformed(error: BaseException) -> bool:
    seen: BaseException | None = error
    for _ in range(5):
        if seen is None:
            return False
        if isinstance(seen, json.JSONDecodeError) or type(seen).__name__ in {
            "APIResponseValidationError",
            "JSONDecodeError",
        }:
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def is_transient(error: BaseException) -> bool:
    """429, 5xx (and 408/409/529), timeouts and connection errors are worth retrying."""
    if _is_malformed(error):
        return False
    status = status_of(error)
    if status is not None:
        return status in _TRANSIENT_STATUS or 500 <= status < 600
    return _is_timeout(error) or _is_connection(error)


def summarize(error: BaseException) -> str:
    """A short description of ``error`` for a user (never includes the response body)."""
    if _is_malformed(error):
        return "the provider returned a malformed (non-JSON or unexpected) response"
    status = status_of(error)
    if status == 401 or status == 403:
        return f"HTTP {status}: the key was rejected"
    if status == 429:
        return "HTTP 429: rate limited"
    if status is not None:
        return f"HTTP {status}"
    if _is_timeout(error):
        return "the request timed out"
    if _is_malformed(error):
        return "the provider returned a malformed (non-JSON or unexpected) response"
    if _is_connection(error):
        return "could not connect to the server"
    text = str(error).splitlines()[0] if str(error) else ""
    return f"{type(error).__name__}: {text[:200]}".rstrip(": ")


def hint_for(error: BaseException, setting: str) -> str:
    """What to do next for ``error``."""
    if _is_malformed(error):
        return f"Check that the server in {setting} speaks the provider's API."
    status = status_of(error)
    if status in (401, 403):
        return "Check the provider key (it was not accepted) or change " + setting + "."
    if status == 404:
        return f"Check the model name in {setting}."
    if status is not None and status < 500 and status != 429:
        return f"The provider rejected the request; check {setting} and the prompt size."
    if _is_malformed(error):
        return f"Check that the server in {setting} speaks the provider's API."
    return (
        f"The provider seems unavailable; try again later, raise AIZAC_TRANSIENT_RETRIES, "
        f"or set a fallback ({setting.replace('_MODEL', '_FALLBACK')})."
    )


def redact(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every secret and anything key-shaped replaced by ``***``."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "***")
    return _KEYLIKE.sub("***", text)
