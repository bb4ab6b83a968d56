"""Catalogue text on the command line: a key and its parameters, rendered in the CLI's language
(``AIZAC_UI_LANGUAGE``: ``en``, ``ko`` or ``zh``; English otherwise)."""

from __future__ import annotations

import os
from typing import Any

import typer

LANGUAGES = ("en", "ko", "zh")


def cli_language() -> str:
    """The language the command line speaks (read from the environment: no settings load)."""
    language = os.environ.get("AIZAC_UI_LANGUAGE", "en").strip().lower()
    return language if language in LANGUAGES else "en"


def text(key: str, language: str | None = None, /, **params: Any) -> str:
    """``key`` rendered in ``language`` (default: the CLI's)."""
    from aizac.text import t

    return t(key, language or cli_language(), **params)


def say(key: str, /, *, err: bool = False, language: str | None = None, **params: Any) -> None:
    """Print ``key`` rendered (to stderr with ``err``)."""
    typer.echo(text(key, language, **params), err=err)
