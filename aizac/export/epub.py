"""Write a :class:`~aizac.export.manuscript.Manuscript` as an EPUB 3 file with zipfile and lxml.

Written here rather than with a library: EbookLib, the established one, is AGPL-3.0 (aizac is
Apache-2.0), and the permissive writers on PyPI (mkepub, the most used) set every document's
language to English, title its contents page "Table of Contents" and stamp the current time,
which a Korean or Chinese book valid under EPUBCheck cannot have. What a book needs is small:

- ``mimetype`` first, stored uncompressed (OCF);
- ``META-INF/container.xml`` pointing at ``EPUB/content.opf``;
- the package document: metadata (identifier, title, language, creator, ``dcterms:modified``),
  the manifest and the spine (cover page, title page, contents, one document per episode);
- ``nav.xhtml`` (EPUB 3 navigation) and ``toc.ncx`` (for EPUB 2 readers);
- the XHTML documents, each in the book's language, and the pictures under ``images/``.

Pure: the bytes depend only on the manuscript and the modification time given (the zip
entries carry that time too).
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass
from datetime import datetime

from lxml import etree

from aizac.export.manuscript import EpisodeText, Figure, Manuscript
from aizac.text import t

OPF_NS = "http://www.idpf.org/2007/opf"
DC_NS = "http://purl.org/dc/elements/1.1/"
XHTML_NS = "http://www.w3.org/1999/xhtml"
EPUB_NS = "http://www.idpf.org/2007/ops"
NCX_NS = "http://www.daisy.org/z3986/2005/ncx/"
CONTAINER_NS = "urn:oasis:names:tc:opendocument:xmlns:container"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
ROOT = "EPUB"
"""The folder inside the zip that holds the package document and every content file."""
XHTML_TYPE = "application/xhtml+xml"


@dataclass(frozen=True)
class _Item:
    """One manifest entry: its id, its path under :data:`ROOT`, its media type and content."""

    id: str
    href: str
    media_type: str
    data: bytes
    properties: str = ""


def _xml(root: etree._Element, *, doctype: str | None = None) -> bytes:
    return etree.tostring(root, xml_declaration=True, encoding="utf-8", pretty_print=True,
                          doctype=doctype)


def _element(parent: etree._Element, tag: str, text: str | None = None,
             **attributes: str) -> etree._Element:
    child = etree.SubElement(parent, tag, attributes)
    child.text = text
    return child


def xhtml(title: str, language: str, kind: str = "") -> tuple[etree._Element, etree._Element]:
    """An empty XHTML content document in ``language``: ``(html, body)``; ``kind`` is the
    body's ``epub:type`` (``cover``, ``titlepage``, ``chapter``: how a reader, and aizac's
    manuscript import, tells the pages around the story from the story)."""
    html = etree.Element(f"{{{XHTML_NS}}}html", nsmap={None: XHTML_NS, "epub": EPUB_NS})
    html.set("lang", language)
    html.set(XML_LANG, language)
    head = _element(html, f"{{{XHTML_NS}}}head")
    _element(head, f"{{{XHTML_NS}}}title", title)
    body = _element(html, f"{{{XHTML_NS}}}body")
    if kind:
        body.set(f"{{{EPUB_NS}}}type", kind)
    return html, body


def _document(html: etree._Element) -> bytes:
    return _xml(html, doctype="<!DOCTYPE html>")


def _h(body: etree._Element, tag: str, text: str) -> etree._Element:
    return _element(body, f"{{{XHTML_NS}}}{tag}", text)


def _img(parent: etree._Element, figure: Figure, alt: str) -> None:
    _element(parent, f"{{{XHTML_NS}}}img", src=f"images/{figure.name}", alt=alt)


def _cover_page(cover: Figure, language: str) -> bytes:
    label = t("book.cover", language)
    html, body = xhtml(label, language, "cover")
    _img(body, cover, label)
    return _document(html)


def _title_page(manuscript: Manuscript) -> bytes:
    html, body = xhtml(manuscript.title, manuscript.language, "titlepage")
    _h(body, "h1", manuscript.title)
    if manuscript.author:
        _h(body, "p", manuscript.author)
    return _document(html)


def _episode_page(heading: str, episode: EpisodeText, language: str) -> bytes:
    """An episode: its heading, then its paragraphs with each illustration before the paragraph
    it was placed at (one placed past the last paragraph at the end)."""
    html, body = xhtml(heading, language, "chapter")
    _h(body, "h1", heading)
    figures = list(episode.figures)

    def figure(placed: Figure) -> None:
        box = _element(body, f"{{{XHTML_NS}}}figure", **{"class": "illustration"})
        _img(box, placed, placed.alt)

    for n, text in enumerate(episode.paragraphs):
        while figures and figures[0].before <= n:
            figure(figures.pop(0))
        _h(body, "p", text)
    for placed in figures:
        figure(placed)
    return _document(html)


def _nav(entries: list[tuple[str, str]], language: str) -> bytes:
    contents = t("book.contents", language)
    html, body = xhtml(contents, language)
    nav = _element(body, f"{{{XHTML_NS}}}nav", id="toc", role="doc-toc")
    nav.set(f"{{{EPUB_NS}}}type", "toc")
    _h(nav, "h2", contents)
    listing = _element(nav, f"{{{XHTML_NS}}}ol")
    for href, label in entries:
        _element(_element(listing, f"{{{XHTML_NS}}}li"), f"{{{XHTML_NS}}}a", label, href=href)
    return _document(html)


def _ncx(identifier: str, title: str, entries: list[tuple[str, str]], language: str) -> bytes:
    ncx = etree.Element(f"{{{NCX_NS}}}ncx", nsmap={None: NCX_NS}, version="2005-1")
    ncx.set(XML_LANG, language)
    head = _element(ncx, f"{{{NCX_NS}}}head")
    for name, content in (("dtb:uid", identifier), ("dtb:depth", "1"),
                          ("dtb:totalPageCount", "0"), ("dtb:maxPageNumber", "0")):
        _element(head, f"{{{NCX_NS}}}meta", name=name, content=content)
    _element(_element(ncx, f"{{{NCX_NS}}}docTitle"), f"{{{NCX_NS}}}text", title)
    nav_map = _element(ncx, f"{{{NCX_NS}}}navMap")
    for order, (href, label) in enumerate(entries, start=1):
        point = _element(nav_map, f"{{{NCX_NS}}}navPoint", id=f"point-{order}",
                         playOrder=str(order))
        _element(_element(point, f"{{{NCX_NS}}}navLabel"), f"{{{NCX_NS}}}text", label)
        _element(point, f"{{{NCX_NS}}}content", src=href)
    return _xml(ncx)


def _container() -> bytes:
    root = etree.Element(f"{{{CONTAINER_NS}}}container", nsmap={None: CONTAINER_NS},
                         version="1.0")
    rootfiles = _element(root, f"{{{CONTAINER_NS}}}rootfiles")
    _element(rootfiles, f"{{{CONTAINER_NS}}}rootfile", **{
        "full-path": f"{ROOT}/content.opf", "media-type": "application/oebps-package+xml"})
    return _xml(root)


def _package(manuscript: Manuscript, identifier: str, modified: datetime, items: list[_Item],
             spine: list[str], cover_id: str | None) -> bytes:
    package = etree.Element(f"{{{OPF_NS}}}package", nsmap={None: OPF_NS}, version="3.0")
    package.set("unique-identifier", "book-id")
    package.set(XML_LANG, manuscript.language)
    metadata = etree.SubElement(package, f"{{{OPF_NS}}}metadata", nsmap={"dc": DC_NS})
    _element(metadata, f"{{{DC_NS}}}identifier", identifier, id="book-id")
    _element(metadata, f"{{{DC_NS}}}title", manuscript.title)
    _element(metadata, f"{{{DC_NS}}}language", manuscript.language)
    if manuscript.author:
        _element(metadata, f"{{{DC_NS}}}creator", manuscript.author, id="creator")
    _element(metadata, f"{{{OPF_NS}}}meta", modified.strftime("%Y-%m-%dT%H:%M:%SZ"),
             property="dcterms:modified")
    if cover_id is not None:  # how EPUB 2 readers find the cover
        _element(metadata, f"{{{OPF_NS}}}meta", name="cover", content=cover_id)
    manifest = _element(package, f"{{{OPF_NS}}}manifest")
    for item in items:
        entry = _element(manifest, f"{{{OPF_NS}}}item", id=item.id, href=item.href)
        entry.set("media-type", item.media_type)
        if item.properties:
            entry.set("properties", item.properties)
    order = _element(package, f"{{{OPF_NS}}}spine", toc="ncx")
    for idref in spine:
        _element(order, f"{{{OPF_NS}}}itemref", idref=idref)
    return _xml(package)


def write_epub(manuscript: Manuscript, *, identifier: str, modified: datetime,
               headings: list[str], pictures: list[Figure]) -> bytes:
    """The EPUB 3 file of ``manuscript`` (bytes).

    Args:
        manuscript: What to write (at least one episode; the caller checks).
        identifier: ``dc:identifier``.
        modified: ``dcterms:modified`` and the zip entries' time, in UTC.
        headings: each episode's heading, in order.
        pictures: every picture, the cover among them, each once.
    """
    lang = manuscript.language
    items: list[_Item] = []
    spine: list[str] = []
    cover = manuscript.cover
    cover_id = None
    for n, picture in enumerate(pictures, start=1):
        is_cover = cover is not None and picture.name == cover.name
        item_id = "cover-image" if is_cover else f"image-{n}"
        cover_id = item_id if is_cover else cover_id
        items.append(_Item(item_id, f"images/{picture.name}", picture.media_type, picture.data,
                           "cover-image" if is_cover else ""))
    if cover is not None:
        items.append(_Item("cover", "cover.xhtml", XHTML_TYPE, _cover_page(cover, lang)))
        spine.append("cover")  # the first page a reader turns to: in the reading order
    items.append(_Item("title", "title.xhtml", XHTML_TYPE, _title_page(manuscript)))
    entries = []
    episodes = []
    for index, (episode, heading) in enumerate(zip(manuscript.episodes, headings, strict=True),
                                               start=1):
        href = f"episode-{index:04d}.xhtml"
        entries.append((href, heading))
        episodes.append(_Item(f"episode-{index:04d}", href, XHTML_TYPE,
                              _episode_page(heading, episode, lang)))
    items.append(_Item("nav", "nav.xhtml", XHTML_TYPE, _nav(entries, lang), "nav"))
    items.append(_Item("ncx", "toc.ncx", "application/x-dtbncx+xml",
                       _ncx(identifier, manuscript.title, entries, lang)))
    items += episodes
    spine += ["title", "nav", *(item.id for item in episodes)]
    package = _package(manuscript, identifier, modified, items, spine, cover_id)

    stamp = modified.timetuple()[:6]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        # OCF: the first entry, uncompressed and without an extra field
        archive.writestr(zipfile.ZipInfo("mimetype", stamp), b"application/epub+zip",
                         compress_type=zipfile.ZIP_STORED)
        files = [("META-INF/container.xml", _container()), (f"{ROOT}/content.opf", package)]
        files += [(f"{ROOT}/{item.href}", item.data) for item in items]
        for name, data in files:
            archive.writestr(zipfile.ZipInfo(name, stamp), data,
                             compress_type=zipfile.ZIP_DEFLATED)
    return buffer.getvalue()


__all__ = ["write_epub", "xhtml"]
