"""The small embedded model's JSON grammar: per-language patterns for names, places, times and
text (pure apart from reading the pattern table once).

Under schema-constrained decoding (:mod:`aizac.llm.providers.local`) llama.cpp turns the JSON
schema into a grammar, so what the schema leaves out cannot be written. A field says what it
holds with :data:`KIND` in its schema (``name``, ``place``, ``time``, ``verbatim`` for what is
copied as it is; any other string is ``text``); :func:`wire_strings` gives each string of the
small model's schema the pattern of its kind in the prompt's language, read from
``grammar_patterns.toml`` (language data stays in that file). A name is one to three words of
letters in the language's script (capitalised in English), never digits or a sentence; no string
holds a digit, a label colon or Markdown, which rules out the echoes the quality check kept
refusing ("Episode 1", "57694", "Genre: ...").

Other models get the same schema without the marks (:func:`wire_strings` with ``small=False``):
their output is judged by the quality check alone (:mod:`aizac.writer.quality`).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

KIND = "x-aizac-kind"
"""The schema keyword naming what a string holds (``name``, ``place``, ``time``, or
``verbatim``: copied as it is, e.g. a memory id or a quote from the prose, never patterned)."""
KINDS: tuple[str, ...] = ("name", "place", "time")
VERBATIM = "verbatim"
PATTERNS_FILE = "grammar_patterns.toml"


@dataclass(frozen=True)
class LanguagePatterns:
    """One language's pattern pieces (see ``grammar_patterns.toml``)."""

    words: dict[str, tuple[str, int]]
    """kind -> (one word's pattern, most words)."""
    first: str
    rest: str
    min_text: int

    def word_pattern(self, kind: str) -> str:
        """``^word( word){0,n-1}$`` for ``kind``."""
        word, most = self.words[kind]
        more = f"( {word}){{0,{most - 1}}}" if most > 1 else ""
        return f"^{word}{more}$"

    def text_pattern(self, min_length: int, max_length: int) -> str:
        """``^first rest{m,n}$``: a letter first, then ``min_length..max_length`` characters
        in all; a required text (``min_length`` of 1 or more) has at least the language's
        ``min_text`` (a bare label such as "Title" is not a sentence)."""
        most = max(1, max_length)
        least = min(max(min_length, self.min_text), most) if min_length >= 1 else 1
        body = f"{self.first}{self.rest}{{{least - 1},{most - 1}}}"
        # an optional text (a keyword, a filter) may stay empty
        return f"^{body}$" if min_length >= 1 else f"^({body})?$"


@lru_cache(maxsize=1)
def patterns() -> dict[str, LanguagePatterns]:
    """The pattern table by language (read once from the package data)."""
    raw = tomllib.loads(resources.files(__package__).joinpath(PATTERNS_FILE).read_text("utf-8"))
    rest = str(raw["shared"]["rest"])
    out: dict[str, LanguagePatterns] = {}
    for language, row in raw.items():
        if language == "shared":
            continue
        words = {k: (str(row[k]), int(row[f"{k}_words"])) for k in KINDS}
        out[language] = LanguagePatterns(words, str(row["first"]), rest, int(row["min_text"]))
    return out


def language_patterns(language: str) -> LanguagePatterns:
    """``language``'s patterns (English for a language the table does not have)."""
    table = patterns()
    return table.get(language, table["en"])


DEFAULT_TEXT_LENGTH = 80
"""The bound of a free-text string whose schema sets none."""


def wire_strings(schema: dict[str, Any], language: str, *, small: bool) -> dict[str, Any]:
    """``schema`` with every string's kind mark replaced by its pattern (``small``: the small
    embedded model), or with the marks dropped (any other model) (pure; the input is kept).

    A string that already has a ``pattern``, an ``enum``/``const`` or a ``format`` keeps it.
    """
    table = language_patterns(language) if small else None
    out: dict[str, Any] = _strings(schema, table)
    return out


def _strings(node: Any, table: LanguagePatterns | None) -> Any:
    if isinstance(node, list):
        return [_strings(v, table) for v in node]
    if not isinstance(node, dict):
        return node
    out = {k: _strings(v, table) for k, v in node.items() if k != KIND}
    if table is None or node.get("type") != "string":
        return out
    if any(k in node for k in ("pattern", "enum", "const", "format")):
        return out
    kind = node.get(KIND)
    if kind == VERBATIM:
        return out
    if kind in KINDS:
        out["pattern"] = table.word_pattern(str(kind))
    else:
        out["pattern"] = table.text_pattern(
            int(node.get("minLength", 0)), int(node.get("maxLength", DEFAULT_TEXT_LENGTH))
        )
    return out
