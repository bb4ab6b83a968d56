"""Keywords as a writer types them: the one splitting rule of the CLI, the web app and clichés.

``"회귀, 복수"``, ``"회귀，복수、빙의"``, one per line, or a list whose items hold several: every
surface splits them here, so a keyword list means the same thing wherever it was typed (pure).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from aizac.errors import InvalidInputError

SEPARATORS = re.compile(r"[,，、;；\n]+")
"""What separates keywords: ASCII and full-width commas, the ideographic comma, semicolons
(ASCII and full-width) and line breaks."""

def split_keywords(value: str | Iterable[str]) -> list[str]:
    """Distinct non-empty keywords, stripped, in the order given.

    Args:
        value: one string, or several (each is split too).

    Raises:
        InvalidInputError: no keyword is left after splitting (its hint names each surface's
            own input: ``error.keywords.none.hint.cli`` names ``--keywords``).
    """
    items = [value] if isinstance(value, str) else list(value)
    words = (w.strip() for item in items if item for w in SEPARATORS.split(item))
    out = list(dict.fromkeys(w for w in words if w))
    if not out:
        raise InvalidInputError("error.keywords.none")
    return out
