"""Reading a manuscript file into lines (each a paragraph, or a heading the file marks).

What each format gives:

- ``.txt``: UTF-8 (with or without a byte-order mark), else the encoding charset-normalizer
  detects (CP949/EUC-KR, what older Korean tools write, and any other it knows); each line.
- ``.md``: each line; a line opening with ``#`` is a heading (its ``#`` dropped).
- ``.docx`` (python-docx): the body's paragraphs in order; a paragraph in a Heading style is
  a heading (one in the Title or Subtitle style is the book's title page, plain text).
  Tables, text boxes, footnotes and comments are not read.
- ``.epub`` (zipfile, lxml): container.xml, the package document, its spine's documents in
  reading order (not the navigation document, nor a cover or title page its ``epub:type``
  marks); ``h1``-``h6`` are headings, every other block
  (``p``, ``div`` without blocks inside) a line. Images are not read.
- ``.hwpx`` (python-hwpx): every section's body paragraphs in order. Tables, footnotes, memos,
  text boxes and heading styles are not read (an episode heading is found by its text).
- ``.hwp`` (the binary format of Hangul): not read. The established reader (pyhwp) is
  AGPL-3.0, which an Apache-2.0 program cannot ship; save the file as .hwpx or .docx in Hangul.

Every reader imports its library inside the function that uses it (``aizac --help`` imports
none of them).
"""

from __future__ import annotations

import posixpath
import re
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from aizac.errors import InvalidInputError

SUFFIXES: tuple[str, ...] = (".txt", ".md", ".docx", ".epub", ".hwpx")
"""What :func:`read_file` reads."""
MAX_BYTES = 64 * 1024 * 1024
"""Largest manuscript file read (a serial of 1,000 episodes in txt is about 15 MB)."""
_DIGITS = re.compile(r"(\d+)")


@dataclass(frozen=True)
class Line:
    """A paragraph of the manuscript, or a heading the file itself marks as one."""

    text: str
    heading: bool = False


@dataclass(frozen=True)
class Source:
    """One file as read: its name, its lines, and the encoding a text file was read in."""

    name: str
    lines: tuple[Line, ...]
    encoding: str = ""


def natural_key(name: str) -> tuple[tuple[int, object], ...]:
    """Sort key that orders ``2화.txt`` before ``10화.txt`` (numbers compared as numbers).
    Three lines, so no library (natsort) for it."""
    return tuple((0, int(part)) if part.isdigit() else (1, part.casefold())
                 for part in _DIGITS.split(name) if part)


def in_order(paths: Sequence[Path]) -> list[Path]:
    """``paths`` in natural order of their names (a folder of ``1화.txt`` .. ``80화.txt``)."""
    return sorted(paths, key=lambda p: natural_key(p.name))


def expand(paths: Sequence[Path]) -> list[Path]:
    """The files ``paths`` name, a folder standing for the manuscript files in it; in natural
    order within each folder, folders and files in the order given."""
    out: list[Path] = []
    for path in paths:
        if path.is_dir():
            out += in_order([p for p in path.iterdir()
                             if p.is_file() and p.suffix.lower() in SUFFIXES])
        else:
            out.append(path)
    return out


def read_file(path: Path) -> Source:
    """The lines of the manuscript file ``path`` (its format by its suffix).

    Raises:
        InvalidInputError: a missing, empty, too large or unreadable file, or a format aizac
            does not read (``.hwp`` says what to do instead).
    """
    suffix = path.suffix.lower()
    if suffix == ".hwp":
        raise InvalidInputError("error.manuscript.hwp", file=path.name)
    reader = _READERS.get(suffix)
    if reader is None:
        raise InvalidInputError("error.manuscript.format", file=path.name,
                                formats=", ".join(SUFFIXES))
    try:
        size = path.stat().st_size
    except OSError as e:
        raise InvalidInputError("error.manuscript.missing", file=str(path)) from e
    if size > MAX_BYTES:
        raise InvalidInputError("error.manuscript.too_large", file=path.name,
                                mb=MAX_BYTES // (1024 * 1024))
    try:
        lines, encoding = reader(path)
    except InvalidInputError:
        raise
    except Exception as e:  # a damaged zip or XML: the file, not aizac
        raise InvalidInputError("error.manuscript.unreadable", file=path.name,
                                cause=f"{type(e).__name__}: {e}"[:200]) from e
    kept = tuple(Line(_clean(line.text), line.heading) for line in lines)
    if not any(line.text.strip() for line in kept):
        raise InvalidInputError("error.manuscript.empty", file=path.name)
    return Source(path.name, kept, encoding)


def _clean(text: str) -> str:
    return text.replace("\r", "").replace("\ufeff", "").rstrip()


# ------------------------------------------------------------------------------ the readers
def decode(data: bytes) -> tuple[str, str]:
    """``(text, encoding)`` of a text file: UTF-8 if it is, else what charset-normalizer
    detects (CP949 for what it calls EUC-KR: CP949 is the superset Windows tools write)."""
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", errors="replace"), "utf-8-sig"
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    from charset_normalizer import from_bytes

    best = from_bytes(data).best()
    if best is None:
        raise InvalidInputError("error.manuscript.encoding")
    encoding = str(best.encoding)
    if encoding.replace("-", "_").lower() in ("euc_kr", "cp949", "johab", "iso2022_kr"):
        encoding = "cp949"
    return data.decode(encoding, errors="replace"), encoding


def _txt(path: Path) -> tuple[list[Line], str]:
    text, encoding = decode(path.read_bytes())
    return [Line(line) for line in text.splitlines()], encoding


_MD_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")


def _md(path: Path) -> tuple[list[Line], str]:
    text, encoding = decode(path.read_bytes())
    out = []
    for line in text.splitlines():
        found = _MD_HEADING.match(line)
        out.append(Line(found.group(2), True) if found else Line(line))
    return out, encoding


def _docx(path: Path) -> tuple[list[Line], str]:
    import docx  # python-docx, imported only when a .docx is read
    from docx.enum.style import WD_STYLE_TYPE

    document = docx.Document(str(path))
    # Paragraph.style walks every style of the document for a paragraph in the default style
    # (6 ms each: 40 s for a 100-episode serial); the names are looked up once instead.
    names = {style.style_id: style.name or "" for style in document.styles}
    default = document.styles.default(WD_STYLE_TYPE.PARAGRAPH)
    plain = (default.name or "") if default is not None else ""
    out = []
    for paragraph in document.paragraphs:
        style_id = paragraph._p.style  # the w:pStyle id (python-docx has no public accessor)
        style = names.get(style_id, plain) if style_id is not None else plain
        # a Title or Subtitle is the book's (front matter), not an episode's
        heading = style.lower().startswith("heading")
        out += [Line(part, heading) for part in (paragraph.text.split("\n") or [""])]
    return out, ""


_BLOCKS = ("p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "li", "blockquote", "pre")


_CONTAINER = "{urn:oasis:names:tc:opendocument:xmlns:container}"
_OPF = "{http://www.idpf.org/2007/opf}"
_DOCUMENT_TYPES = ("application/xhtml+xml", "text/html")
# Pages around the story (EPUB structural semantics): their headings are no episodes.
_NOT_STORY = {"cover", "titlepage", "halftitlepage", "toc", "landmarks", "copyright-page"}


def _zip_entry(archive: zipfile.ZipFile, name: str) -> bytes:
    """An entry of the EPUB, refused when it unpacks larger than :data:`MAX_BYTES` (a zip bomb
    is as unreadable as a damaged zip)."""
    info = archive.getinfo(name)
    if info.file_size > MAX_BYTES:
        raise InvalidInputError("error.manuscript.too_large", file=name,
                                mb=MAX_BYTES // (1024 * 1024))
    return archive.read(info)


def spine_documents(archive: zipfile.ZipFile) -> list[bytes]:
    """The content documents of the EPUB in ``archive`` in reading order: container.xml names
    the package document, whose spine orders its manifest's items (the navigation document,
    a table of contents, is left out)."""
    from lxml import etree

    # no DTD, no entities, no network: the file is the writer's, but it is still input
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
    container = etree.fromstring(_zip_entry(archive, "META-INF/container.xml"), parser)
    rootfile = container.find(f"{_CONTAINER}rootfiles/{_CONTAINER}rootfile")
    if rootfile is None or not rootfile.get("full-path"):
        raise InvalidInputError("error.manuscript.unreadable", file="META-INF/container.xml",
                                cause="no rootfile")
    opf_path = str(rootfile.get("full-path"))
    package = etree.fromstring(_zip_entry(archive, opf_path), parser)
    folder = posixpath.dirname(opf_path)
    manifest = {item.get("id"): item for item in package.iter(f"{_OPF}item")}
    out = []
    for itemref in package.iter(f"{_OPF}itemref"):
        item = manifest.get(itemref.get("idref"))
        if item is None or item.get("media-type") not in _DOCUMENT_TYPES:
            continue
        if "nav" in (item.get("properties") or "").split():
            continue
        href = unquote(str(item.get("href") or "")).split("#")[0]
        out.append(_zip_entry(archive, posixpath.normpath(posixpath.join(folder, href))))
    return out


def _epub(path: Path) -> tuple[list[Line], str]:
    from lxml import html

    with zipfile.ZipFile(path) as archive:
        documents = spine_documents(archive)
    out: list[Line] = []
    for document in documents:
        root = html.fromstring(document)
        body = root.find("body")
        if body is not None and _NOT_STORY & set((body.get("epub:type") or "").split()):
            continue
        for element in root.iter(*_BLOCKS):
            if any(child.tag in _BLOCKS for child in element.iterdescendants()):
                continue  # a container: its blocks are read on their own
            text = " ".join(element.text_content().split())
            out.append(Line(text, str(element.tag).startswith("h")))
        out.append(Line(""))
    return out, ""


def _hwpx(path: Path) -> tuple[list[Line], str]:
    from hwpx import HwpxDocument  # python-hwpx, imported only when a .hwpx is read

    document = HwpxDocument.open(str(path))
    try:
        return [Line(str(p.text or "")) for p in document.paragraphs], ""
    finally:
        close = getattr(document, "close", None)
        if close is not None:
            close()


_READERS: dict[str, Callable[[Path], tuple[list[Line], str]]] = {
    ".txt": _txt, ".md": _md, ".docx": _docx, ".epub": _epub, ".hwpx": _hwpx,
}

__all__ = ["MAX_BYTES", "SUFFIXES", "Line", "Source", "decode", "expand", "in_order",
           "natural_key", "read_file", "spine_documents"]
