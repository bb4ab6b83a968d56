"""Render a :class:`~aizac.export.manuscript.Manuscript` as plain text, Markdown, EPUB 3, a Word
document or a zip of one text file per episode (for upload).

Pure functions: no file, network or clock access (``render_epub`` takes the modification time
as an argument; only when it is omitted is the current time used). Every renderer refuses an
empty manuscript with :class:`~aizac.errors.InvalidInputError` — there is nothing to export.
"""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime
from typing import Literal, get_args

from aizac.errors import InvalidInputError
from aizac.export.manuscript import EpisodeText, Figure, Manuscript
from aizac.text import Verbatim, t

ExportFormat = Literal["txt", "md", "epub", "docx", "zip"]
FORMATS: tuple[str, ...] = get_args(ExportFormat)

#: MIME type of each format, as sent in email attachments and HTTP downloads.
MEDIA_TYPES: dict[str, str] = {
    "txt": "text/plain; charset=utf-8",
    "md": "text/markdown; charset=utf-8",
    "epub": "application/epub+zip",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "zip": "application/zip",
}

IMAGE_DIR = "images"
"""Where pictures go: inside the EPUB, and beside an exported Markdown file (its links)."""
_BOOK_NAMESPACE = uuid.UUID("5b0c2c58-2f1e-4a57-9d4e-6a1d1f0e7a11")  # aizac's own namespace


def check_format(fmt: str) -> ExportFormat:
    """``fmt`` as an export format, or :class:`InvalidInputError` naming the valid ones."""
    normalized = fmt.strip().lower().lstrip(".") if isinstance(fmt, str) else fmt
    if normalized not in FORMATS:
        raise InvalidInputError("error.export.format", fmt=str(fmt), choices=", ".join(FORMATS))
    return normalized  # type: ignore[return-value]


def episode_heading(episode: EpisodeText, language: str) -> str:
    """The heading of an episode in the book's language (the catalogue's ``book.*``):
    ``"3화 제목"``, ``"Episode 3: Title"``, ``"第3章 标题"``."""
    if not episode.title:
        return t("book.episode", language, n=episode.number)
    return t("book.episode_titled", language, n=episode.number, title=Verbatim(episode.title))


def book_identifier(manuscript: Manuscript) -> str:
    """The manuscript's identifier, or a stable ``urn:uuid:`` derived from its metadata."""
    if manuscript.identifier:
        return manuscript.identifier
    key = "\x1f".join((manuscript.title, manuscript.author, manuscript.language))
    return f"urn:uuid:{uuid.uuid5(_BOOK_NAMESPACE, key)}"


def _require_episodes(manuscript: Manuscript) -> None:
    if not manuscript.episodes:
        raise InvalidInputError("error.export.no_episodes", title=manuscript.title)


# --- plain text ------------------------------------------------------------------------------


def render_txt(manuscript: Manuscript) -> str:
    """The novel as plain text: title, author, then each heading and its paragraphs.

    Paragraphs are separated by one blank line, episodes by two. The text ends with a newline.
    """
    _require_episodes(manuscript)
    blocks = [manuscript.title + (f"\n{manuscript.author}" if manuscript.author else "")]
    for episode in manuscript.episodes:
        body = "\n\n".join([episode_heading(episode, manuscript.language), *episode.paragraphs])
        blocks.append(body)
    return "\n\n\n".join(blocks) + "\n"


# --- Markdown --------------------------------------------------------------------------------

# Inline characters that could start emphasis, code, links, HTML or strikethrough.
_MD_INLINE = re.compile(r"([\\`*_\[\]<~])")
# In headings '#' is escaped everywhere, so that a trailing one is not a closing sequence.
_MD_INLINE_HEADING = re.compile(r"([\\`*_\[\]<~#])")
_MD_ENTITY = re.compile(r"&(?=#?[0-9A-Za-z]+;)")
# A paragraph that would otherwise start a heading, quote, list, thematic break or setext line.
_MD_LEADING = re.compile(r"^([#>+=-])")
_MD_ORDERED = re.compile(r"^(\d{1,9})([.)])(?=\s|$)")


def escape_markdown(text: str, *, heading: bool = False) -> str:
    """``text`` escaped so that CommonMark renders it literally (as a paragraph or heading)."""
    text = (_MD_INLINE_HEADING if heading else _MD_INLINE).sub(r"\\\1", text)
    text = _MD_ENTITY.sub(r"\\&", text)
    if not heading:
        text = _MD_LEADING.sub(r"\\\1", text)
    return _MD_ORDERED.sub(r"\1\\\2", text)


def escape_markdown_lines(text: str) -> str:
    """``text`` of any number of lines escaped line by line, so that Markdown shows it literally
    with its line breaks (a later line starting with ``#`` or ``-`` is no heading or list item).

    Leading spaces and tabs go (Markdown drops them from a paragraph, and four of them would
    start a code block showing the escapes; an ideographic space indenting a Korean paragraph
    stays); ``|`` is escaped too, so that no two lines make a table.
    """
    return "\n".join(escape_markdown(line.lstrip(" \t")).replace("|", "\\|")
                     for line in text.split("\n"))


def escape_markdown_cell(text: str) -> str:
    """``text`` escaped for one cell of a Markdown table: literal, ``|`` escaped, on one line."""
    return " ".join(escape_markdown_lines(text).split("\n"))


def _md_heading(level: int, text: str) -> str:
    return "#" * level + " " + escape_markdown(text, heading=True)


def _md_image(figure: Figure) -> str:
    alt = escape_markdown(figure.alt).replace("]", "\\]")
    return f"![{alt}]({IMAGE_DIR}/{figure.name})"


def _with_figures(episode: EpisodeText, paragraph: object, figure: object) -> list[object]:
    """The episode's paragraphs with its figures before the paragraphs they were placed at (a
    figure past the last paragraph goes at the end)."""
    paragraphs = episode.paragraphs
    out: list[object] = []
    figures = list(episode.figures)
    for n, text in enumerate(paragraphs):
        while figures and figures[0].before <= n:
            out.append(figure(figures.pop(0)))  # type: ignore[operator]
        out.append(paragraph(text))  # type: ignore[operator]
    out.extend(figure(f) for f in figures)  # type: ignore[operator]
    return out


def render_md(manuscript: Manuscript) -> str:
    """The novel as Markdown: ``#`` title, author line, the cover, ``##`` per episode, escaped
    paragraphs; pictures are links to :data:`IMAGE_DIR` beside the file (:func:`figures`)."""
    _require_episodes(manuscript)
    blocks = [_md_heading(1, manuscript.title)]
    if manuscript.author:
        blocks.append(escape_markdown(manuscript.author))
    if manuscript.cover is not None:
        blocks.append(_md_image(manuscript.cover))
    for episode in manuscript.episodes:
        blocks.append(_md_heading(2, episode_heading(episode, manuscript.language)))
        blocks.extend(str(b) for b in _with_figures(episode, escape_markdown, _md_image))
    return "\n\n".join(blocks) + "\n"


def figures(manuscript: Manuscript) -> list[Figure]:
    """Every picture of the manuscript (the cover first), each once."""
    found = [manuscript.cover] if manuscript.cover is not None else []
    found += [f for e in manuscript.episodes for f in e.figures]
    return list({f.name: f for f in found}.values())


# --- EPUB 3 ----------------------------------------------------------------------------------


def render_epub(manuscript: Manuscript, *, modified: datetime | None = None) -> bytes:
    """The novel as an EPUB 3 file (bytes), valid under EPUBCheck (:mod:`aizac.export.epub`).

    Contains a title page, a navigation document (also an NCX for old readers) and one XHTML
    content document per episode, all in the manuscript's language; with a cover, the cover
    image (``properties="cover-image"``) and a cover page first; each illustration where it was
    placed in its episode.

    Args:
        manuscript: What to render.
        modified: The ``dcterms:modified`` time (UTC); the current time when omitted.
    """
    from aizac.export.epub import write_epub  # imported here: only EPUB export needs lxml

    _require_episodes(manuscript)
    when = (modified or datetime.now(UTC)).astimezone(UTC)
    headings = [episode_heading(e, manuscript.language) for e in manuscript.episodes]
    return write_epub(manuscript, identifier=book_identifier(manuscript), modified=when,
                      headings=headings, pictures=figures(manuscript))


def render_docx(manuscript: Manuscript, *, modified: datetime | None = None) -> bytes:
    """The novel as a Word document (:mod:`aizac.export.word`): the title, a ``Heading 1`` per
    episode, its paragraphs; the East Asian font named for Korean and Chinese."""
    from aizac.export.word import write_docx  # imported here: only .docx export needs it

    _require_episodes(manuscript)
    headings = [episode_heading(e, manuscript.language) for e in manuscript.episodes]
    return write_docx(manuscript, headings, modified=modified)


def render_zip(manuscript: Manuscript, *, modified: datetime | None = None) -> bytes:
    """One text file per episode, zipped for upload (:mod:`aizac.export.upload`)."""
    from aizac.export.upload import render_episodes_zip

    _require_episodes(manuscript)
    return render_episodes_zip(manuscript, modified=modified)


def render(manuscript: Manuscript, fmt: str, *, modified: datetime | None = None) -> bytes:
    """The manuscript rendered in ``fmt`` (one of :data:`FORMATS`) as bytes."""
    checked = check_format(fmt)
    if checked == "epub":
        return render_epub(manuscript, modified=modified)
    if checked == "docx":
        return render_docx(manuscript, modified=modified)
    if checked == "zip":
        return render_zip(manuscript, modified=modified)
    text = render_txt(manuscript) if checked == "txt" else render_md(manuscript)
    return text.encode("utf-8")
