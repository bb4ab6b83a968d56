"""Classifying provider failures (pure): transient or not, and a one-line, key-free summary."""

from __future__ import annotations

import email.utils
import json
import re
import sys
from collections.abc import Iterable
from datetime import UTC, datetime

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


def summarize(error: BaseException) -> str:
    """A short description of ``error`` for a user (never includes the response body)."""
    if _is_malformed(error):
        return "the provider returned a malformed (non-JSON or unexpected) response"
    if _closed_loop(error):
        return "an async HTTP client was used after its event loop closed (Event loop is closed)"
    status = status_of(error)
    if status == 401 or status == 403:
        return f"HTTP {status}: the key was rejected"
    if status == 429:
        return "HTTP 429: rate limited"
    if status is not None:
        return f"HTTP {status}"
    if _is_timeout(error):
        return "the request timed out"
    if _is_connection(error):
        return "could not connect to the server"
    text = str(error).splitlines()[0] if str(error) else ""
    return f"{type(error).__name__}: {text[:200]}".rstrip(": ")


def hint_for(error: BaseException, setting: str) -> str:
    """What to do next for ``error``."""
    if _is_malformed(error):
        return f"Check that the server in {setting} speaks the provider's API."
    if _closed_loop(error):
        return (
            "This is a bug in aizac, not the provider: async model work must run through "
            "aizac.llm.runtime.run_sync (one event loop per process), never asyncio.run. "
            "Restarting the process clears it; please report it."
        )
    status = status_of(error)
    if status in (401, 403):
        return "Check the provider key (it was not accepted) or change " + setting + "."
    if status == 404:
        return f"Check the model name in {setting}."
    if status is not None and status < 500 and status != 429:
        return f"The provider rejected the request; check {setting} and the prompt size."
    if not is_transient(error):
        return (
            f"Unexpected error while calling the model of {setting}; if it repeats, switch "
            "the setting to another model and report the message above."
        )
    return (
        f"The provider seems unavailable; try again later, raise AIZAC_TRANSIENT_RETRIES, "
        f"or set a fallback ({setting.replace('_MODEL', '_FALLBACK')})."
    )


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
