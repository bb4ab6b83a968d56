"""The errors aizac raises on purpose.

Every error says what went wrong and what to do next (``hint``); adapters chain the underlying
exception with ``raise ... from e`` so nothing is lost when debugging.
"""

from __future__ import annotations


class AizacError(Exception):
    """Base class: a message for the user plus a hint on what to do next."""

    default_hint = ""

    def __init__(
        self, message: str, *, hint: str | None = None, localized: dict[str, str] | None = None
    ) -> None:
        self.message = message
        self.hint = hint if hint is not None else self.default_hint
        # message and hint in another interface language ("ko"), where the English one cannot be
        # translated by pattern (it names fields a validator found wanting)
        self.localized = dict(localized or {})
        super().__init__(f"{message} {self.hint}".strip() if self.hint else message)


class ConfigError(AizacError):
    """A setting is missing, malformed or names something unknown."""

    default_hint = "Fix the setting named above (environment variable, .env or aizac.toml)."


class ModelError(AizacError):
    """A model provider failed after retries (network, HTTP status, bad payload)."""

    default_hint = "Check the provider's status and your key, or set a fallback model for the role."


class StructuredOutputError(ModelError):
    """A model kept returning output that does not validate against the requested schema.

    Attributes:
        content_rejected: the last attempt parsed and validated, but the caller's ``check``
            refused its content (the caller can then say what it found wanting).
    """

    default_hint = (
        "Try again, use a stronger model for this role, or raise AIZAC_STRUCTURED_RETRIES."
    )

    def __init__(
        self, message: str, *, hint: str | None = None, content_rejected: bool = False
    ) -> None:
        super().__init__(message, hint=hint)
        self.content_rejected = content_rejected


class UnusableReplyError(StructuredOutputError):
    """A model's replies were valid JSON but degenerate (the quality check refused every one).

    Attributes:
        described: what was wrong, per interface language (``"en"``, ``"ko"``, ``"zh"``), in
            the writer's words; ``message`` carries the English one.
    """

    def __init__(
        self, message: str, *, hint: str | None = None, described: dict[str, str] | None = None
    ) -> None:
        super().__init__(message, hint=hint)
        self.described = dict(described or {})


class IncompleteReplyError(ModelError):
    """A model's reply did not come to its end: the stream stopped without a finish reason, or
    the model hit its token limit (``finish_reason: "length"``) where a whole answer was needed.

    Attributes:
        reason: ``"cut"`` (no finish reason: the connection or server stopped early) or
            ``"length"`` (the token limit was reached).
        started: whether any of the reply had already been delivered (then it is never retried:
            a retry would duplicate output).
    """

    default_hint = (
        "Nothing was saved. Try again; if it repeats, raise the role's token limit or use a "
        "model with a larger output budget."
    )

    def __init__(
        self, message: str, *, reason: str, started: bool, hint: str | None = None
    ) -> None:
        self.reason = reason
        self.started = started
        super().__init__(message, hint=hint)


class InvalidInputError(AizacError, ValueError):
    """User or caller input was rejected at the boundary; nothing was written."""

    default_hint = "Correct the input and try again."


class NotFoundError(AizacError, KeyError):
    """An id, project or name does not exist."""

    default_hint = "List what exists first (e.g. `aizac projects` or the memory inspector)."

    def __str__(self) -> str:  # KeyError would otherwise quote the message
        return Exception.__str__(self)


class StorageError(AizacError):
    """Reading or writing the data directory failed; the previous state is kept."""

    default_hint = "Check that AIZAC_DATA_DIR is writable and has free space."


class CancelledError(AizacError):
    """A long operation was cancelled by the user; the project is left as it was."""

    default_hint = "Start the operation again when ready."


class ConflictError(AizacError):
    """A stale edit: the record changed since it was read; nothing was written."""

    default_hint = "Reload the latest version and apply your change again."


class DeliveryError(AizacError):
    """Sending something out (an export by email) failed; nothing was delivered."""

    default_hint = "Check the AIZAC_SMTP_* settings and that the mail server is reachable."


class FilterError(InvalidInputError):
    """A memory filter (usually written by a model) cannot be used as is.

    The self-query retriever catches it and falls back to a safe query, so it reaches a user only
    through direct calls to the translator or the alias resolver.
    """

    default_hint = "Rephrase the question or drop the filter; plain similarity search still works."


class UnknownFieldError(FilterError):
    """The filter names a metadata field that memories do not have."""


class InvalidFilterValueError(FilterError):
    """A value has the wrong type for its field, or a tag/comparator is not allowed."""


class UnknownCharacterError(FilterError):
    """A character name (or alias) matches no known character, or matches several."""

    default_hint = "Use a name or alias of a character the story already knows."


class LimitError(AizacError):
    """A limit was reached: a per-user limit of the server (projects, storage, generations at
    once), the server's capacity, or failed logins. Nothing was written.

    Attributes:
        retry_after: seconds after which trying again may succeed (0 when waiting won't help).
        capacity: the whole server is busy (not this user's own limit).
    """

    default_hint = "Wait for your running generation to finish, or free some space."

    def __init__(
        self, message: str, *, retry_after: float = 0.0, capacity: bool = False,
        hint: str | None = None,
    ) -> None:
        self.retry_after = retry_after
        self.capacity = capacity
        super().__init__(message, hint=hint)
