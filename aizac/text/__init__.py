"""Every sentence a writer reads, as data rendered at the edge from one catalogue.

Code raises and reports :class:`Text` values (a key and its parameters); the web runner, the
server's error responses and the CLI render them with :func:`render` / :func:`describe` in their
reader's language from ``locales/<lang>/LC_MESSAGES/aizac.po``. What the writer or a model wrote
travels as :class:`Verbatim` and is never translated. See ``aizac/text/README.md``.
"""

from aizac.text.catalogue import LANGUAGES, known
from aizac.text.describe import Described, describe
from aizac.text.message import Clauses, Renderable, Text, Verbatim, language_name
from aizac.text.particles import attach
from aizac.text.render import render, t

__all__ = [
    "LANGUAGES",
    "Clauses",
    "Described",
    "Renderable",
    "Text",
    "Verbatim",
    "attach",
    "describe",
    "known",
    "language_name",
    "render",
    "t",
]
