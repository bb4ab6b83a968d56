"""The errors aizac raises on purpose.

An error is data: a catalogue key (:attr:`AizacError.key`, also the REST ``code``) and the
values of its placeholders (:attr:`AizacError.params`). The words — what went wrong and what to
do next — are rendered only at the edge that shows them (:func:`aizac.text.describe`), in that
edge's language; ``str(error)`` is the English text, for logs and the CLI. Adapters chain the
underlying exception with ``raise ... from e`` so nothing is lost when debugging.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from aizac.text.message import Text, Verbatim

log = logging.getLogger(__name__)


UNKEYED = "error.unkeyed"
"""The key of an error raised with an English sentence instead of a key. Only code that has not
moved to the catalogue yet does that (the server's, until its own move lands); every other raise
site names a key (``tests/text/test_catalogue.py`` scans them), and this fallback goes once the
last one has moved."""


def _as_text(value: str | Text, params: dict[str, Any]) -> Text:
    """A catalogue key (with ``params``) as a text. An English sentence (code not moved to the
    catalogue yet) is kept as it is under :data:`UNKEYED` and logged, so a reader still gets the
    error; ``tests/text/test_catalogue.py`` keeps it out of every module that has moved."""
    if isinstance(value, Text):
        return value
    from aizac.text.catalogue import known

    if known(value):
        return Text(value, params)
    log.warning("an error raised without a catalogue key: %r", value)
    return Text(UNKEYED, sentence=Verbatim(value))


class AizacError(Exception):
    """Base class: what went wrong (a catalogue key and its parameters) and what to do next.

    Args:
        key: the catalogue key of the message (``"error.project.exists"``).
        hint: the key (or text) of what to do next; by default ``<key>.hint`` when the
            catalogue has one, else the class's :attr:`default_hint`.
        **params: the message's placeholders (the hint's too).

    Attributes:
        default_hint: the catalogue key of the hint every error of the class shares ("" for
            none).
    """

    default_hint = ""

    def __init__(
        self, key: str | Text, /, *, hint: str | Text | Verbatim | None = None,
        **params: Any,
    ) -> None:
        self.text: Text = _as_text(key, params)
        self.key = self.text.key
        self.params = dict(self.text.params)
        self.hint_text: Text | Verbatim | None = (
            hint if isinstance(hint, Verbatim) or hint is None else _as_text(hint, self.params))
        super().__init__(self.english())

    @property
    def message(self) -> str:
        """The English message (no hint)."""
        from aizac.text.render import render

        return render(self.text, "en")

    @property
    def hint(self) -> str:
        """The English hint for the command line ("" when there is none)."""
        from aizac.text.describe import hint_text
        from aizac.text.render import render

        found = hint_text(self, "cli")
        return render(found, "en") if found is not None else ""

    def english(self) -> str:
        """Message and hint in English, as ``str(error)`` gives them (logs, the CLI)."""
        return f"{self.message} {self.hint}".strip()

    def __str__(self) -> str:
        return self.english()


class ConfigError(AizacError):
    """A setting is missing, malformed or names something unknown."""

    default_hint = "hint.config"


class ModelError(AizacError):
    """A model provider failed after retries (network, HTTP status, bad payload)."""

    default_hint = "hint.model"


class StructuredOutputError(ModelError):
    """A model kept returning output that does not validate against the requested schema.

    Attributes:
        content_rejected: the last attempt parsed and validated, but the caller's ``check``
            refused its content (the caller can then say what it found wanting).
    """

    default_hint = "hint.structured"

    def __init__(
        self, message: str | Text, *, hint: str | Text | Verbatim | None = None,
        content_rejected: bool = False, **params: Any,
    ) -> None:
        super().__init__(message, hint=hint, **params)
        self.content_rejected = content_rejected


class UnusableReplyError(StructuredOutputError):
    """A model's replies were valid JSON but degenerate (the quality check refused every one);
    its ``problems`` parameter says what was wrong, field by field, in the writer's words."""


class IncompleteReplyError(ModelError):
    """A model's reply did not come to its end: the stream stopped without a finish reason, or
    the model hit its token limit (``finish_reason: "length"``) where a whole answer was needed.

    Attributes:
        reason: ``"cut"`` (no finish reason: the connection or server stopped early) or
            ``"length"`` (the token limit was reached).
        started: whether any of the reply had already been delivered (then it is never retried:
            a retry would duplicate output).
    """

    default_hint = "hint.incomplete"

    def __init__(
        self, message: str | Text, *, reason: str, started: bool,
        hint: str | Text | Verbatim | None = None, **params: Any,
    ) -> None:
        self.reason = reason
        self.started = started
        super().__init__(message, hint=hint, **params)


class InvalidInputError(AizacError, ValueError):
    """User or caller input was rejected at the boundary; nothing was written."""

    default_hint = "hint.invalid_input"


class NotFoundError(AizacError, KeyError):
    """An id, project or name does not exist."""

    default_hint = "hint.not_found"

    def __str__(self) -> str:  # KeyError would otherwise quote the message
        return Exception.__str__(self)


class StorageError(AizacError):
    """Reading or writing the data directory failed; the previous state is kept."""

    default_hint = "hint.storage"


class DamagedError(StorageError):
    """A stored file is damaged (empty, cut short, overwritten, missing): aizac refuses to
    use it and changes nothing in it. ``file`` names it and ``problem`` (a text) says what is
    wrong; with ``backup`` (the newest backup of its project: a path, and ``backup_name`` its
    file name) the hint says to restore it, else to check the project and keep the folder."""

    default_hint = "hint.damaged"

    def __init__(
        self, key: str | Text, /, *, hint: str | Text | Verbatim | None = None,
        **params: Any,
    ) -> None:
        params.setdefault("backup", "")
        params.setdefault("backup_name", Path(str(params["backup"])).name
                          if params["backup"] else "")
        if hint is None and params["backup"]:
            hint = "hint.damaged.restore"
        super().__init__(key, hint=hint, **params)

    def with_backup(self, backup: Path | None) -> DamagedError:
        """The same error, its hint naming ``backup`` (``None``: as it is)."""
        if backup is None:
            return self
        params = {k: v for k, v in self.params.items() if k not in ("backup", "backup_name")}
        found = DamagedError(self.text.key, backup=str(backup), **params)
        found.__cause__ = self.__cause__
        return found


def damage_of(error: BaseException | None) -> DamagedError | None:
    """The :class:`DamagedError` ``error`` is or was caused by (a store wraps its own errors
    in a key of its own), else ``None``."""
    seen = error
    for _ in range(12):
        if seen is None:
            return None
        if isinstance(seen, DamagedError):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


class EmbeddingError(ModelError, StorageError):
    """The embeddings failed (their provider: a model error), so the memory write or read
    that needed them did not happen (the store is as it was: a storage error to callers that
    guard the store)."""

    default_hint = "hint.model"


class CancelledError(AizacError):
    """A long operation was cancelled by the user; the project is left as it was."""

    default_hint = "hint.cancelled"


class ConflictError(AizacError):
    """A stale edit: the record changed since it was read; nothing was written."""

    default_hint = "hint.conflict"


class DeliveryError(AizacError):
    """Sending something out (an export by email) failed; nothing was delivered."""

    default_hint = "hint.delivery"


class FilterError(InvalidInputError):
    """A memory filter (usually written by a model) cannot be used as is.

    The self-query retriever catches it and falls back to a safe query, so it reaches a user only
    through direct calls to the translator or the alias resolver.
    """

    default_hint = "hint.filter"


class UnknownFieldError(FilterError):
    """The filter names a metadata field that memories do not have."""


class InvalidFilterValueError(FilterError):
    """A value has the wrong type for its field, or a tag/comparator is not allowed."""


class UnknownCharacterError(FilterError):
    """A character name (or alias) matches no known character, or matches several."""

    default_hint = "hint.unknown_character"


class LimitError(AizacError):
    """A limit was reached: a per-user limit of the server (projects, storage, generations at
    once), the server's capacity, or failed logins. Nothing was written.

    Attributes:
        retry_after: seconds after which trying again may succeed (0 when waiting won't help).
        capacity: the whole server is busy (not this user's own limit).
    """

    default_hint = "hint.limit"

    def __init__(
        self, message: str | Text, *, retry_after: float = 0.0,
        capacity: bool = False, hint: str | Text | Verbatim | None = None, **params: Any,
    ) -> None:
        self.retry_after = retry_after
        self.capacity = capacity
        super().__init__(message, hint=hint, **params)
