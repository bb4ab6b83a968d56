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

NO_KEYWORDS_HINT = 'Give a few, comma-separated, e.g. "회귀, 복수" or "regression, revenge".'


def split_keywords(value: str | Iterable[str], *, hint: str = NO_KEYWORDS_HINT) -> list[str]:
    """Distinct non-empty keywords, stripped, in the order given.

    Args:
        value: one string, or several (each is split too).
        hint: what the error tells the writer to do (each surface names its own input).

    Raises:
        InvalidInputError: no keyword is left after splitting.
    """
    items = [value] if isinstance(value, str) else list(value)
    words = (w.strip() for item in items if item for w in SEPARATORS.split(item))
    out = list(dict.fromkeys(w for w in words if w))
    if not out:
        raise InvalidInputError("No keywords given.", hint=hint)
    return out
