"""The message catalogues: one gettext ``.po`` file per interface language.

``aizac/text/locales/<lang>/LC_MESSAGES/aizac.po`` is the standard gettext layout, so Babel,
Poedit, Weblate and ``msgfmt --check`` read it. The ``msgid`` is a stable key
(``error.project.exists``), not English source text: the English words live in ``en`` like any
other language's, so fixing an English sentence never changes a key (or a REST ``code``).
``msgstr`` uses Python brace placeholders (``#, python-brace-format``); Korean particles are a
format spec (``{name:이}``, see :mod:`aizac.text.particles`).

Catalogues are read once per process, on the first message rendered in that language.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Mapping
from pathlib import Path

log = logging.getLogger(__name__)

LANGUAGES = ("en", "ko", "zh")
"""The interface languages; ``en`` is the fallback for a key another language lacks."""
DOMAIN = "aizac"
LOCALES = Path(__file__).parent / "locales"


def po_path(language: str) -> Path:
    """Where ``language``'s catalogue lives."""
    return LOCALES / language / "LC_MESSAGES" / f"{DOMAIN}.po"


@functools.cache
def entries(language: str) -> Mapping[str, str]:
    """Every translated entry of ``language``'s catalogue: key -> template (fuzzy and empty
    entries left out, as gettext does)."""
    from babel.messages.pofile import read_po

    path = po_path(language)
    if not path.exists():
        return {}
    with path.open("rb") as handle:
        catalog = read_po(handle, locale=language, domain=DOMAIN)
    return {
        str(m.id): str(m.string)
        for m in catalog
        if m.id and isinstance(m.id, str) and m.string and not m.fuzzy
    }


def template(key: str, language: str) -> str | None:
    """The template of ``key`` in ``language``, else in English, else ``None``."""
    found = entries(language).get(key) if language in LANGUAGES else None
    if found is None and language != "en":
        found = entries("en").get(key)
    return found


def known(key: str) -> bool:
    """Whether ``key`` is in the English catalogue (every key must be)."""
    return key in entries("en")


__all__ = ["DOMAIN", "LANGUAGES", "LOCALES", "entries", "known", "po_path", "template"]
