"""The command line's one error boundary: an aizac error (or a bad setting) becomes
``error: ...`` and ``hint: ...`` on stderr and exit status 1, never a traceback."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

import typer

from aizac.errors import AizacError, damage_of
from aizac.text import describe

F = TypeVar("F", bound=Callable[..., Any])


def fail(error: AizacError) -> NoReturn:
    """Print ``error`` (message, then its hint) to stderr and exit with status 1: English, with
    the hint the catalogue has for the command line (it names commands and flags)."""
    from aizac.writer.reply_problems import in_writers_words

    said = describe(in_writers_words(error), "en", surface="cli")
    typer.echo(f"error: {said.message}", err=True)
    if said.hint:
        typer.echo(f"hint: {said.hint}", err=True)
    raise typer.Exit(1)


def as_aizac_error(exc: BaseException) -> AizacError | None:
    """``exc`` as an aizac error when it is one the user can act on: an :class:`AizacError`, or
    the settings' validation error (turned into a ConfigError naming the variable)."""
    if isinstance(exc, AizacError):
        return damage_of(exc) or exc  # a damaged file is said as such, whoever wrapped it
    from pydantic import ValidationError

    if isinstance(exc, ValidationError) and exc.title == "Settings":
        from aizac.settings import settings_error

        return settings_error(exc)
    return None


def friendly(fn: F) -> F:
    """Wrap a command so that :func:`as_aizac_error` cases print one error and a hint."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except Exception as e:
            error = as_aizac_error(e)
            if error is None:
                raise
            fail(error)

    return wrapper  # type: ignore[return-value]
