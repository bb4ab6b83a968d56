"""Rendering a :class:`~aizac.text.message.Text` in one language (the only place words are
chosen). Pure apart from reading the catalogue once."""

from __future__ import annotations

import logging
import string
import unicodedata
from collections.abc import Iterable
from typing import Any

from aizac.text.catalogue import LANGUAGES, template
from aizac.text.message import Clauses, Text, Verbatim
from aizac.text.particles import PARTICLES, attach

log = logging.getLogger(__name__)

_LIST_SEPARATOR = {"en": ", ", "ko": ", ", "zh": "、"}
_CLAUSE_SEPARATOR = {"en": "; ", "ko": "; ", "zh": "；"}
_FULL_STOPS = ".。"
_SENTENCE_ENDS = ".。!?！？…"


class _Formatter(string.Formatter):
    """``str.format`` with two additions: a Korean particle as a format spec (``{name:이}``;
    ``{name:'이}`` quotes the value first: ``'검'이``), and parameters that are themselves texts
    or lists, rendered in the same language."""

    def __init__(self, language: str) -> None:
        self.language = language

    def format_field(self, value: Any, format_spec: str) -> str:
        if format_spec in PARTICLES:
            said = self.convert(value)
            return _isolated(value, said) + attach(said, format_spec)[len(said):]
        if format_spec[:1] == "'" and format_spec[1:] in PARTICLES:  # '{x:'이}' -> 'x'이
            said = self.convert(value)
            quoted = attach(f"'{said}'", format_spec[1:])
            return f"'{_isolated(value, said)}'{quoted[len(said) + 2:]}"
        if isinstance(value, Text | Verbatim | Clauses | list | tuple):
            return _isolated(value, format(self.convert(value), format_spec))
        return _isolated(value, super().format_field(value, format_spec))

    def fill(self, template_text: str, params: dict[str, Any]) -> str:
        """``template_text`` filled with ``params``; a full stop right after a value that
        ends its own sentence is left out ("…: Permission denied." not "….." when the template
        says ``{cause}.``), as a writer would."""
        out: list[str] = []
        after_value = False
        for literal, field, spec, conversion in self.parse(template_text):
            if after_value and literal[:1] in _FULL_STOPS and out[-1][-1:] in _SENTENCE_ENDS:
                literal = literal[1:]
            out.append(literal)
            after_value = False
            if field is not None:
                value, _ = self.get_field(field, (), params)
                value = self.convert_field(value, conversion)
                out.append(self.format_field(value, spec or ""))
                after_value = True
        return "".join(out)

    def convert(self, value: Any) -> str:
        if isinstance(value, Text):
            return render(value, self.language)
        if isinstance(value, Verbatim):
            return value.text
        if isinstance(value, Clauses):
            return render(value, self.language)
        if isinstance(value, list | tuple):
            return _LIST_SEPARATOR.get(self.language, ", ").join(self.convert(v) for v in value)
        return str(value)


_RIGHT_TO_LEFT = ("R", "AL")
"""Unicode's strong right-to-left classes (Hebrew, Arabic, Syriac ...)."""
FIRST_STRONG_ISOLATE, POP_ISOLATE = "\u2068", "\u2069"


def _isolated(value: Any, said: str) -> str:
    """``said`` (a value's words) set apart from the line around it when it holds
    right-to-left letters: the bidirectional algorithm otherwise reorders the whole line
    around them (a refused Hebrew project name reversed a Korean error). The catalogue's own
    words (a :class:`Text` parameter) are never isolated: they are the line's language."""
    if isinstance(value, Text | Clauses) or not any(
            unicodedata.bidirectional(c) in _RIGHT_TO_LEFT for c in said):
        return said
    return f"{FIRST_STRONG_ISOLATE}{said}{POP_ISOLATE}"


def render(text: Text | Verbatim | Clauses, language: str) -> str:
    """``text`` in ``language`` (``en``, ``ko`` or ``zh``; another falls back to English).

    A key no catalogue has renders as the key itself (and is logged): the catalogue test keeps
    that from reaching a writer.
    """
    if isinstance(text, Verbatim):
        return text.text
    language = language if language in LANGUAGES else "en"
    if isinstance(text, Clauses):
        return _CLAUSE_SEPARATOR[language].join(render(x, language) for x in text.items)
    found = template(text.key, language)
    if found is None:
        log.warning("no catalogue entry for %r", text.key)
        return text.key
    try:
        return _Formatter(language).fill(found, dict(text.params))
    except (KeyError, IndexError, ValueError) as e:  # a template and its caller disagree
        log.warning("cannot fill %r in %s: %s", text.key, language, e)
        return found


def t(key: str, language: str, /, **params: Any) -> str:
    """Shorthand for ``render(Text(key, **params), language)``."""
    return render(Text(key, params), language)


def placeholders(template_text: str) -> set[str]:
    """The placeholder names a template uses (``{name:이}`` -> ``name``)."""
    return {name.split(".")[0].split("[")[0]
            for _, name, _, _ in string.Formatter().parse(template_text) if name}


def render_all(texts: Iterable[Text | Verbatim | Clauses], language: str, sep: str = "\n") -> str:
    """Several texts, one after another."""
    return sep.join(render(x, language) for x in texts)


__all__ = ["placeholders", "render", "render_all", "t"]
