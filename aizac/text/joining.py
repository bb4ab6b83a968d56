"""Values a model or a writer wrote as sentences, set inside one line (pure).

A manner "차분하고 정중함.", a look "a scar over the left eye.", a name the model closed with a
full stop ("맹세가."): each is a value in a line the code composes, so its own closing
punctuation would double what the line adds ("..", ".,", "맹세가.에게"). :func:`bare` takes it
off; :func:`joined` joins several values the same way.
"""

from __future__ import annotations

from collections.abc import Iterable

CLOSING = " \t\r\n.,;:。，；：、"
"""What may close a value: spaces, full stops, commas, semicolons and colons (Latin and CJK)."""


def bare(value: str) -> str:
    """``value`` as a part of a line: its spaces collapsed, its own closing punctuation off."""
    return " ".join(str(value).split()).strip(CLOSING)


def joined(values: Iterable[str], sep: str) -> str:
    """The non-empty values, each :func:`bare`, joined by ``sep``."""
    return sep.join(b for b in (bare(v) for v in values) if b)


__all__ = ["CLOSING", "bare", "joined"]
