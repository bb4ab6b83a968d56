"""Reading a manuscript: every format, the encodings Korean tools write, natural file order,
episode headings in each language, scene breaks and the writer's adjustments."""

from __future__ import annotations

from pathlib import Path

import pytest

from aizac.errors import InvalidInputError
from aizac.manuscript import formats, splitting
from aizac.manuscript.formats import Line, Source

PARA = "한서아는 왕도의 북문을 지나 천천히 걸었다. 바람이 차가웠고 하늘은 낮게 내려앉아 있었다. "
BODY = "\n\n".join([PARA * 4, PARA * 4, PARA * 4])


def _episode_text(n: int, heading: str = "{n}화") -> str:
    return heading.format(n=n) + "\n\n" + BODY + "\n\n***\n\n" + BODY + "\n"


def test_txt_in_cp949_and_utf8_read_the_same(tmp_path: Path) -> None:
    text = _episode_text(1) + _episode_text(2)
    (tmp_path / "a.txt").write_bytes(text.encode("cp949"))
    (tmp_path / "b.txt").write_bytes(text.encode("utf-8"))
    (tmp_path / "c.txt").write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    read = [formats.read_file(tmp_path / n) for n in ("a.txt", "b.txt", "c.txt")]
    assert read[0].encoding == "cp949"
    assert read[0].lines == read[1].lines == read[2].lines
    assert read[0].lines[0].text == "1화"


def test_natural_order_of_a_folder(tmp_path: Path) -> None:
    for n in (1, 2, 10, 3):
        (tmp_path / f"{n}화.txt").write_text(BODY, encoding="utf-8")
    (tmp_path / "notes.pdf").write_bytes(b"%PDF")
    names = [p.name for p in formats.expand([tmp_path])]
    assert names == ["1화.txt", "2화.txt", "3화.txt", "10화.txt"]


def test_docx_epub_hwpx_and_md_give_headings_and_paragraphs(tmp_path: Path) -> None:
    import docx
    from hwpx import HwpxDocument

    document = docx.Document()
    document.add_heading("프롤로그", level=1)
    document.add_paragraph(PARA)
    document.save(str(tmp_path / "m.docx"))
    got = formats.read_file(tmp_path / "m.docx").lines
    assert Line("프롤로그", True) in got and Line(PARA.rstrip(), False) in got

    _write_epub(tmp_path / "m.epub", f"<h1>1화 귀환</h1><p>{PARA}</p>")
    got = formats.read_file(tmp_path / "m.epub").lines
    assert Line("1화 귀환", True) in got and Line(PARA.strip(), False) in got
    assert not any("목차" in line.text for line in got)  # the contents page is not prose

    hw = HwpxDocument.new()
    hw.add_paragraph("제2화")
    hw.add_paragraph(PARA)
    hw.save_to_path(str(tmp_path / "m.hwpx"))
    texts = [x.text for x in formats.read_file(tmp_path / "m.hwpx").lines]
    assert "제2화" in texts and PARA.rstrip() in texts

    (tmp_path / "m.md").write_text("# 3화\n\n" + PARA, encoding="utf-8")
    assert formats.read_file(tmp_path / "m.md").lines[0] == Line("3화", True)


def _write_epub(path: Path, body: str) -> None:
    """A small EPUB as other tools lay it out (package under OEBPS/, a document in a sub-folder
    with an escaped name, the contents page in the spine), written by hand: not by aizac's own
    writer, which the round trip in tests/export checks."""
    import zipfile

    xhtml = ('<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml">'
             "<head><title>t</title></head><body>{}</body></html>")
    opf = """<?xml version="1.0" encoding="utf-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="i">
 <metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="i">x</dc:identifier>
  <dc:title>t</dc:title><dc:language>ko</dc:language></metadata>
 <manifest>
  <item id="n" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
  <item id="c1" href="text/c%201.xhtml" media-type="application/xhtml+xml"/>
 </manifest>
 <spine><itemref idref="n"/><itemref idref="c1"/></spine>
</package>"""
    container = ('<?xml version="1.0"?><container version="1.0" '
                 'xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>'
                 '<rootfile full-path="OEBPS/content.opf" '
                 'media-type="application/oebps-package+xml"/></rootfiles></container>')
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("mimetype", "application/epub+zip")
        z.writestr("META-INF/container.xml", container)
        z.writestr("OEBPS/content.opf", opf)
        z.writestr("OEBPS/nav.xhtml", xhtml.format('<nav><ol><li>9화 목차</li></ol></nav>'))
        z.writestr("OEBPS/text/c 1.xhtml", xhtml.format(body))


def test_unsupported_and_broken_files_say_why(tmp_path: Path) -> None:
    (tmp_path / "a.hwp").write_bytes(b"\xd0\xcf\x11\xe0")
    with pytest.raises(InvalidInputError) as hwp:
        formats.read_file(tmp_path / "a.hwp")
    assert hwp.value.key == "error.manuscript.hwp"
    (tmp_path / "b.docx").write_bytes(b"not a zip")
    with pytest.raises(InvalidInputError) as broken:
        formats.read_file(tmp_path / "b.docx")
    assert broken.value.key == "error.manuscript.unreadable"
    (tmp_path / "c.txt").write_text("\n\n", encoding="utf-8")
    with pytest.raises(InvalidInputError) as empty:
        formats.read_file(tmp_path / "c.txt")
    assert empty.value.key == "error.manuscript.empty"


@pytest.mark.parametrize("heading", ["{n}화", "제{n}화", "제 {n} 화 - 귀환", "EP.{n}", "Ep {n}",
                                     "#{n}", "{n:03d}", "第{n}章", "Chapter {n}", "[{n}]"])
def test_every_usual_heading_starts_an_episode(heading: str) -> None:
    text = "".join(_episode_text(n, heading) for n in range(1, 4))
    source = Source("s.txt", tuple(Line(x) for x in text.splitlines()))
    episodes = splitting.split([source]).episodes()
    assert [e.number for e in episodes] == [1, 2, 3]
    assert all(len(e.scenes) == 2 for e in episodes)


def test_a_prose_line_that_opens_with_a_number_is_no_heading() -> None:
    assert splitting.heading_match("3화에서 말했듯이 그는 돌아섰다.") is None
    assert splitting.heading_title("12화 귀환") == "귀환"
    assert splitting.heading_number("제12화") == 12


def test_scene_breaks_symbols_and_blank_runs() -> None:
    lines = [PARA * 7, "", PARA * 7, "", "", "", PARA * 7, "◆", PARA * 7]
    assert len(splitting.scenes_of(lines)) == 3
    short = [PARA * 7, "***", "짧다.", "***", PARA * 7]
    assert len(splitting.scenes_of(short)) == 2  # a scene of two words joins its neighbour


def test_files_in_order_are_one_serial_and_front_matter_is_skipped() -> None:
    one = Source("1.txt", tuple(Line(x) for x in ["작품 제목", "", *_episode_text(1).splitlines()]))
    two = Source("2.txt", tuple(Line(x) for x in BODY.splitlines()))
    episodes = splitting.split([one, two]).episodes()
    assert [(e.number, e.file) for e in episodes] == [(1, "1.txt"), (2, "2.txt")]


def test_adjusting_a_boundary_merges_and_splits() -> None:
    text = "".join(_episode_text(n) for n in range(1, 4))
    current = splitting.split([Source("s.txt", tuple(Line(x) for x in text.splitlines()))])
    merged = splitting.merge(current, 2)
    assert len(merged.episodes()) == 2
    again = splitting.split_at(merged, 1, 4)
    assert [len(e.paragraphs) for e in again.episodes()] == [3, 10, 6]
    assert splitting.with_starts(current, again.starts).starts == again.starts
    with pytest.raises(InvalidInputError):
        splitting.merge(current, 1)


@pytest.mark.parametrize("author", [["지은이 한겨울"], ["지은이 한겨울", "", "연재처 어딘가"], []])
def test_a_book_title_heading_and_its_author_line_are_front_matter(author: list[str]) -> None:
    """A file that opens with the book's title marked as a heading (a docx Title style, a
    Markdown ``#``, an EPUB ``h1``) and an author line is no episode (issue 42's bench found
    a docx's title page counted as episode 1, every episode after it one off)."""
    lines = [Line("검은 달의 서약", True), *(Line(x) for x in author),
             *(Line(x, x == f"{n}화") for n in (1, 2) for x in _episode_text(n).splitlines())]
    episodes = splitting.split([Source("s.docx", tuple(lines))]).episodes()
    assert [(e.number, e.heading) for e in episodes] == [(1, "1화"), (2, "2화")]


def test_a_short_unnumbered_heading_later_in_a_file_stays_an_episode() -> None:
    """Only a file's opening is front matter: a short "외전" between episodes is kept."""
    lines = [Line(x, x in ("1화", "외전")) for x in
             [*_episode_text(1).splitlines(), "외전", "짧은 외전 한 줄.",
              *_episode_text(2).splitlines()]]
    episodes = splitting.split([Source("s.docx", tuple(lines))]).episodes()
    assert [e.heading for e in episodes] == ["1화", "외전", "2화"]


def test_a_docx_title_page_is_front_matter(tmp_path: Path) -> None:
    import docx

    document = docx.Document()
    document.add_paragraph("검은 달의 서약", style="Title")
    document.add_paragraph("지은이 한겨울")
    for n in (1, 2):
        document.add_heading(f"제{n}화 귀환", level=1)
        for paragraph in BODY.split("\n\n"):
            document.add_paragraph(paragraph)
    document.save(str(tmp_path / "t.docx"))
    episodes = splitting.split([formats.read_file(tmp_path / "t.docx")]).episodes()
    assert [(e.number, e.title, len(e.paragraphs)) for e in episodes] == [
        (1, "귀환", 3), (2, "귀환", 3)]


def test_a_docx_is_read_without_a_style_lookup_per_paragraph(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """python-docx's ``Paragraph.style`` walks every style of the document for a paragraph in
    the default style (the bench read a 100-episode docx at 475 ms an episode); the reader
    maps style ids to names once."""
    import docx
    from docx.styles.styles import Styles

    document = docx.Document()
    document.add_heading("1화", level=1)
    for _ in range(60):
        document.add_paragraph(PARA)
    document.save(str(tmp_path / "long.docx"))
    calls = []
    default = Styles.default
    monkeypatch.setattr(Styles, "default", lambda self, kind: calls.append(kind)
                        or default(self, kind))
    lines = formats.read_file(tmp_path / "long.docx").lines
    assert [line.heading for line in lines[:2]] == [True, False] and len(lines) == 61
    assert len(calls) <= 1


def test_front_matter_left_out_is_named_with_its_file_and_line() -> None:
    """What the split leaves out as front matter is not dropped unseen: the preview names it
    (the writer sees a short prologue there before importing, and can put it back by hand)."""
    lines = [Line("검은 달의 서약", True), Line("지은이 한겨울"),
             *(Line(x, x == f"{n}화") for n in (1, 2) for x in _episode_text(n).splitlines())]
    current = splitting.split([Source("s.docx", tuple(lines))])
    assert [(x.file, x.row, x.text) for x in current.left_out()] == [
        ("s.docx", 1, "검은 달의 서약 / 지은이 한겨울")]
    assert [e.heading for e in current.episodes()] == ["1화", "2화"]
    whole = splitting.split([Source("t.txt", tuple(
        Line(x, x == f"{n}화") for n in (1, 2) for x in _episode_text(n).splitlines()))])
    assert whole.left_out() == []
