"""Issue 23 item 11: exports keep a paragraph's ideographic indent, name files so their download
links work, and give two novels of the same title distinct EPUB identifiers."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from aizac.export.files import url_safe_name, write_export
from aizac.export.manuscript import EpisodeText, Manuscript

PROSE = "\u3000그는 눈을 떴다.\n\n\u3000  회귀 첫날이었다.  \n \u3000\n  Plain start."


def _book(title: str = "회귀 #1 [완]", identifier: str = "") -> Manuscript:
    return Manuscript(title=title, language="ko", identifier=identifier,
                      episodes=[EpisodeText(1, "새벽", PROSE)])


def test_paragraphs_keep_their_leading_ideographic_space() -> None:
    assert _book().episodes[0].paragraphs == [
        "\u3000그는 눈을 떴다.", "\u3000  회귀 첫날이었다.", "Plain start."]


@pytest.mark.parametrize("fmt", ["txt", "md", "epub"])
def test_every_format_keeps_the_indent(tmp_path: Path, fmt: str) -> None:
    path = write_export(_book(), fmt, tmp_path)
    if fmt == "epub":
        with zipfile.ZipFile(path) as book:
            text = "".join(book.read(n).decode() for n in book.namelist() if n.endswith("xhtml"))
        assert "<p>\u3000그는 눈을 떴다.</p>" in text
    else:
        assert "\n\u3000그는 눈을 떴다.\n" in path.read_text(encoding="utf-8")


@pytest.mark.parametrize("title", ["회귀 #1 [완]", "`draft` one"])
def test_export_file_names_from_a_title_are_safe_in_a_url(tmp_path: Path, title: str) -> None:
    path = write_export(_book(title), "epub", tmp_path)
    assert path.exists() and path.name.endswith(".epub")
    assert not set(path.name) & set("#`[] %?&")


def test_url_safe_name_keeps_hangul_and_joins_runs() -> None:
    assert url_safe_name("회귀  #1 [완]") == "회귀_1_완_"


def test_a_project_keeps_one_book_id_of_its_own(tmp_path: Path) -> None:
    from aizac.writer.project import ProjectStore

    a = ProjectStore.create(tmp_path, "a", keywords=["회귀"], language="ko")
    b = ProjectStore.create(tmp_path, "b", keywords=["회귀"], language="ko")
    assert a.book_id() != b.book_id()
    assert ProjectStore.open(tmp_path, "a").book_id() == a.book_id()  # kept, not made again
    path = write_export(_book("같은 제목", a.book_id()), "epub", tmp_path / "out")
    with zipfile.ZipFile(path) as book:
        opf = next(book.read(n).decode() for n in book.namelist() if n.endswith(".opf"))
    assert a.book_id() in opf
