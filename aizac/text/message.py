"""What a writer will read, as data: a catalogue key and its parameters (pure).

Code says *what happened* (``Text("project.exists", name="회귀")``); the words are chosen only at
the edge that shows them (the web page, the server's error body, the CLI), in that edge's
language, by :func:`aizac.text.render`. A parameter may itself be a :class:`Text` (a field's
label, a cause) or a list of them; it is rendered in the same language.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Text:
    """A catalogue key with the values its placeholders take.

    Attributes:
        key: the catalogue entry (``"error.project.exists"``); stable, also the REST ``code``.
        params: the placeholders' values; a value may be a ``Text`` or a list of them.
    """

    key: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def __init__(self, key: str, params: Mapping[str, Any] | None = None, /, **kwargs: Any):
        object.__setattr__(self, "key", key)
        object.__setattr__(self, "params", {**(params or {}), **kwargs})

    def __hash__(self) -> int:
        return hash((self.key, tuple(sorted((k, repr(v)) for k, v in self.params.items()))))


@dataclass(frozen=True)
class Verbatim:
    """Text that is not from the catalogue and is shown as it is: what the writer typed, what
    a model wrote, a file name, an exception's own words. Never translated."""

    text: str

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class Clauses:
    """Several texts read as one sentence's clauses, joined by the language's semicolon
    (``a; b`` in English and Korean, ``a；b`` in Chinese); a plain list parameter is joined as a
    list instead (``a, b``, ``a、b``)."""

    items: tuple[Text | Verbatim, ...]


def to_data(text: Text | Verbatim | Clauses) -> dict[str, Any]:
    """``text`` as plain JSON data, to store what happened and say it later (a paused run's
    reason, an event's note): ``{"key": ..., "params": {...}}``, ``{"verbatim": ...}`` or
    ``{"clauses": [...]}``. A parameter that is not JSON is stored as its ``str``."""
    if isinstance(text, Verbatim):
        return {"verbatim": text.text}
    if isinstance(text, Clauses):
        return {"clauses": [to_data(x) for x in text.items]}
    return {"key": text.key, "params": {k: _value_data(v) for k, v in text.params.items()}}


def _value_data(value: Any) -> Any:
    if isinstance(value, Text | Verbatim | Clauses):
        return to_data(value)
    if isinstance(value, list | tuple):
        return [_value_data(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


def from_data(data: Any) -> Text | Verbatim | Clauses:
    """The text :func:`to_data` stored; anything else (a plain string written before texts were
    data, an English note of an older run) is shown as it is."""
    if isinstance(data, dict) and isinstance(data.get("key"), str):
        params = data.get("params") or {}
        return Text(data["key"], {k: _value_from(v) for k, v in dict(params).items()})
    if isinstance(data, dict) and "verbatim" in data:
        return Verbatim(str(data["verbatim"]))
    if isinstance(data, dict) and isinstance(data.get("clauses"), list):
        return Clauses(tuple(_as_item(from_data(x)) for x in data["clauses"]))
    return Verbatim("" if data is None else str(data))


def _value_from(value: Any) -> Any:
    if isinstance(value, dict) and ({"key", "verbatim", "clauses"} & set(value)):
        return from_data(value)
    if isinstance(value, list):
        return [_value_from(v) for v in value]
    return value


def _as_item(text: Text | Verbatim | Clauses) -> Text | Verbatim:
    return text if isinstance(text, Text | Verbatim) else Verbatim("")


LANGUAGE_NAMES = {"en": "language.en", "ko": "language.ko", "zh": "language.zh"}
"""Each story and interface language's name in the catalogue."""


def language_name(code: str) -> Text | Verbatim:
    """The language ``code`` (``ko``) as the reader calls it (Korean, 한국어, 韩语)."""
    key = LANGUAGE_NAMES.get(code)
    return Text(key) if key else Verbatim(code)


Renderable = Text | Verbatim | Clauses
"""What an edge can render."""

__all__ = ["LANGUAGE_NAMES", "Clauses", "Renderable", "Text", "Verbatim", "from_data",
           "language_name", "to_data"]
