"""Render a :class:`~aizac.export.manuscript.Manuscript` as a Word document (.docx) with
python-docx: the title, a ``Heading 1`` per episode (each on a new page), its paragraphs.

Word picks a font for Hangul and Chinese characters from the East Asian slot of a run's fonts
(``w:eastAsia`` in ``w:rFonts``), not from the Latin one; the default template leaves it to the
theme, which on a Western installation is a font without Hangul. So the styles used here name
one: Malgun Gothic (맑은 고딕, Windows' Korean UI font, which Word for Mac substitutes with
Apple SD Gothic Neo) for Korean, Microsoft YaHei (微软雅黑) for Chinese; and they mark the text's
language (``w:lang``) so that spelling and line breaking follow it. Pictures are not put in the
document (the EPUB carries them).
"""

from __future__ import annotations

import io
from datetime import UTC, datetime
from typing import Any

from aizac.export.manuscript import Manuscript

EAST_ASIAN_FONTS: dict[str, str] = {"ko": "Malgun Gothic", "zh": "Microsoft YaHei"}
"""The East Asian font each story language's document names."""
LANGUAGE_TAGS: dict[str, str] = {"ko": "ko-KR", "zh": "zh-CN", "en": "en-US"}
STYLES = ("Normal", "Title", "Subtitle", "Heading 1")
"""The styles the document uses (each gets the fonts and the language)."""


def _set_language_and_fonts(style: Any, language: str) -> None:
    """Name the East Asian font and the language in ``style``'s run properties."""
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    properties = style.element.get_or_add_rPr()
    font = EAST_ASIAN_FONTS.get(language)
    if font is not None:
        fonts = properties.get_or_add_rFonts()
        fonts.set(qn("w:eastAsia"), font)
        # a theme font, where the template names one, wins over the named font: drop it
        fonts.attrib.pop(qn("w:eastAsiaTheme"), None)
    tag = LANGUAGE_TAGS.get(language, "en-US")
    lang = properties.find(qn("w:lang"))
    if lang is None:
        lang = OxmlElement("w:lang")
        properties.append(lang)  # lang comes after every element the template's styles hold
    if language in EAST_ASIAN_FONTS:
        lang.set(qn("w:eastAsia"), tag)
    else:
        lang.set(qn("w:val"), tag)


def write_docx(manuscript: Manuscript, headings: list[str], *,
               modified: datetime | None = None) -> bytes:
    """The .docx file of ``manuscript`` (bytes); ``headings``: each episode's heading.

    Args:
        manuscript: What to write (at least one episode; the caller checks).
        headings: Each episode's heading in the book's language, in order.
        modified: The document's created/modified time (UTC); the current time when omitted.
    """
    import docx  # python-docx, imported only when a .docx is written

    when = (modified or datetime.now(UTC)).astimezone(UTC).replace(tzinfo=None)
    document = docx.Document()
    for name in STYLES:
        _set_language_and_fonts(document.styles[name], manuscript.language)
    core = document.core_properties
    core.title, core.author, core.language = (manuscript.title, manuscript.author,
                                              LANGUAGE_TAGS.get(manuscript.language, ""))
    core.created = core.modified = when
    core.last_modified_by = manuscript.author
    document.add_paragraph(manuscript.title, style="Title")
    if manuscript.author:
        document.add_paragraph(manuscript.author, style="Subtitle")
    for episode, heading in zip(manuscript.episodes, headings, strict=True):
        document.add_heading(heading, level=1).paragraph_format.page_break_before = True
        for paragraph in episode.paragraphs:
            document.add_paragraph(paragraph)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


__all__ = ["EAST_ASIAN_FONTS", "LANGUAGE_TAGS", "write_docx"]
