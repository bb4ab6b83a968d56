"""Markdown as a browser shows it: rendered by CommonMark with GFM tables (markdown-it-py)."""

from __future__ import annotations

import html
import re

from markdown_it import MarkdownIt

_MD = MarkdownIt("commonmark").enable(["table", "strikethrough"])

# Model text that Markdown would take for markup if it were not escaped.
MARKUP = "<name> **Mira** [x](y) _foo_ a|b"
HEADING = "# Episode 2"
# What the quality check lets through into a beat (it refuses '<name>' and a leading '#'):
# an HTML comment's start hides everything after it.
BEAT_MARKUP = "Aren reads **Mira** [x](y) <!-- a|b"


def html_of(markdown: str) -> str:
    return _MD.render(markdown)


def text_of(markdown: str) -> str:
    """What the reader sees: the rendered HTML's text, whitespace collapsed."""
    blocks = re.sub(r"</?(?:p|h\d|li|ul|ol|td|th|tr|blockquote|br)\b[^>]*>", " ",
                    html_of(markdown))
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", blocks)).split())


def tags_of(markdown: str) -> list[str]:
    """The rendered HTML's tag names, in order (``strong``, ``h3``, ``a``...)."""
    return re.findall(r"<([a-z0-9]+)[\s>]", html_of(markdown))


def assert_literal(markdown: str, *said: str, em: int = 0) -> None:
    """Each of ``said`` shows as written, and the model's markup made no tag of its own
    (``em``: how many emphases the app adds itself)."""
    shown = text_of(markdown)
    for text in said:
        assert " ".join(text.split()) in shown, (text, shown)
    tags = tags_of(markdown)
    assert "a" not in tags and "h1" not in tags and "name" not in tags, tags
    assert tags.count("em") == em, tags
