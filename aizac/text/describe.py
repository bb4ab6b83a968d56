"""An error as an edge shows it: a stable code, the message and what to do next, in one
language, with the hint that fits the surface (a web page names buttons, the REST API names
API calls, the CLI names commands)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from aizac.text.catalogue import known
from aizac.text.message import Text, Verbatim
from aizac.text.render import render


class Describable(Protocol):
    """What :func:`describe` reads of an error (:class:`aizac.errors.AizacError` has it)."""

    @property
    def key(self) -> str: ...
    @property
    def params(self) -> Mapping[str, Any]: ...
    @property
    def text(self) -> Text | Verbatim: ...
    @property
    def hint_text(self) -> Text | Verbatim | None: ...
    @property
    def default_hint(self) -> str: ...

SURFACES = ("web", "api", "cli")


@dataclass(frozen=True)
class Described:
    """An error rendered for one reader.

    Attributes:
        code: the error's catalogue key (stable; the REST body's ``code``).
        message: what went wrong.
        hint: what to do next ("" when nothing is to be done).
    """

    code: str
    message: str
    hint: str

    def line(self) -> str:
        """Message and hint as one line."""
        return f"{self.message} {self.hint}".strip()


def hint_text(error: Describable, surface: str | None = None) -> Text | Verbatim | None:
    """The hint of ``error`` for ``surface``: the one it was raised with, else its key's own
    (``<key>.hint``), else its class's; each in the surface's variant where the catalogue has
    one (``hint.not_found.api``)."""
    found: Text | Verbatim | None = error.hint_text
    if found is None and known(f"{error.key}.hint"):
        found = Text(f"{error.key}.hint", error.params)
    if found is None and error.default_hint:
        found = Text(error.default_hint, error.params)
    if isinstance(found, Text) and surface and known(f"{found.key}.{surface}"):
        found = Text(f"{found.key}.{surface}", found.params)
    return found


def describe(error: Describable, language: str, surface: str = "web") -> Described:
    """``error`` for a reader of ``language`` on ``surface`` (``web``, ``api`` or ``cli``)."""
    found = hint_text(error, surface)
    return Described(
        code=error.key,
        message=render(error.text, language),
        hint=render(found, language) if found is not None else "",
    )


__all__ = ["SURFACES", "Describable", "Described", "describe", "hint_text"]
