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


Renderable = Text | Verbatim
"""What an edge can render."""

__all__ = ["Renderable", "Text", "Verbatim"]
