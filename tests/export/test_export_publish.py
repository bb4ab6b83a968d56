"""Publishing out (issue 42 item 4): a Word document with a Heading 1 per episode and the East
Asian font named, and a zip of one text file per episode for upload with each episode's length
checked against the project's target."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from aizac.export.files import export_target, write_export
from aizac.export.manuscript import EpisodeText, Manuscript
from aizac.export.render import episode_heading, render
from aizac.export.upload import check_lengths, episode_length
from aizac.text import t

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


def _docx(manuscript: Manuscript) -> object:
    import docx

    return docx.Document(io.BytesIO(render(manuscript, "docx")))


def _east_asian_font(document: object, style: str) -> tuple[str | None, str | None]:
    fonts = document.styles[style].element.rPr.find(f"{W}rFonts")  # type: ignore[attr-defined]
    return fonts.get(f"{W}eastAsia"), fonts.get(f"{W}eastAsiaTheme")


def test_docx_has_the_title_a_heading_1_per_episode_and_the_prose(
    korean_manuscript: Manuscript,
) -> None:
    document = _docx(korean_manuscript)
    paragraphs = document.paragraphs  # type: ignore[attr-defined]
    assert (paragraphs[0].style.name, paragraphs[0].text) == ("Title", "달빛 검객: 서연의 길")
    headings = [p.text for p in paragraphs if p.style.name == "Heading 1"]
    assert headings == [episode_heading(e, "ko") for e in korean_manuscript.episodes]
    assert headings == ["1화 검을 든 소녀", "2화", "3화 재회"]
    body = [p.text for p in paragraphs if p.style.name == "Normal"]
    assert body == [p for e in korean_manuscript.episodes for p in e.paragraphs]
    assert document.core_properties.author == "김작가"  # type: ignore[attr-defined]


def test_docx_names_a_korean_font_where_word_looks_for_hangul(
    korean_manuscript: Manuscript, chinese_manuscript: Manuscript,
) -> None:
    korean = _docx(korean_manuscript)
    for style in ("Normal", "Title", "Heading 1"):
        # the template's theme font would win over a named one: it is gone
        assert _east_asian_font(korean, style) == ("Malgun Gothic", None), style
    lang = korean.styles["Normal"].element.rPr.find(f"{W}lang")  # type: ignore[attr-defined]
    assert lang.get(f"{W}eastAsia") == "ko-KR"
    chinese = _docx(chinese_manuscript)
    assert _east_asian_font(chinese, "Heading 1") == ("Microsoft YaHei", None)


def _serial(language: str, count: int) -> Manuscript:
    episodes = [EpisodeText(n, f"t{n}", f"{n}: first.\n\n{n}: second.") for n in
                range(1, count + 1)]
    return Manuscript("Serial", "", language, episodes)  # type: ignore[arg-type]


@pytest.mark.parametrize(("language", "first"),
                         [("ko", "001화.txt"), ("en", "Episode 001.txt"), ("zh", "第001章.txt")])
def test_the_upload_zip_holds_one_file_per_episode_in_order(
    language: str, first: str, tmp_path: Path,
) -> None:
    book = _serial(language, 12)
    path = write_export(book, "zip", tmp_path, "upload")
    assert path.name == "upload.zip"
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
        texts = [archive.read(n).decode("utf-8") for n in names]
    expected = [t("book.episode_file", language, n=f"{n:03d}") + ".txt" for n in range(1, 13)]
    assert names[0] == first and names == expected == sorted(names)  # 010 after 009
    assert texts[9] == "10: first.\n\n10: second.\n"


def test_the_zip_is_one_of_the_export_targets(tmp_path: Path) -> None:
    assert export_target(str(tmp_path / "x.zip")) == (tmp_path, "x.zip", "zip")
    assert export_target(str(tmp_path / "x.docx")) == (tmp_path, "x.docx", "docx")


def test_the_length_report_flags_a_short_and_a_long_episode() -> None:
    book = Manuscript("연재", "", "ko", [
        EpisodeText(1, "", "가" * 5000), EpisodeText(2, "", "나" * 1200),
        EpisodeText(3, "", "다 " * 2000 + "\n\n" + "라" * 2500), EpisodeText(4, "", "마" * 4100)])
    report = check_lengths(book, 5000, "characters")
    # 3: the trailing space of "다 다 ... 다 " is no text
    assert report.lengths == ((1, 5000), (2, 1200), (3, 6499), (4, 4100))
    assert report.too_short == ((2, 1200),) and report.too_long == ((3, 6499),)
    notes = [t(n.key, "ko", **n.params) for n in report.notes()]
    assert notes == ["목표 분량 5,000자보다 20% 넘게 짧은 회차: 2 (1,200).",
                     "목표 분량 5,000자보다 20% 넘게 긴 회차: 3 (6,499)."]
    english = EpisodeText(1, "", "One two three.\n\nFour five.")
    assert episode_length(english, "words") == 5
    assert check_lengths(book, 5000, "characters", tolerance=80).notes() == []


def test_an_upload_export_reports_a_short_episode(tmp_path: Path) -> None:
    """Through the application's export path (the CLI, the web app and REST call it): the
    episode written is far under the target the project sets."""
    from aizac.application.exports import ExportService
    from aizac.llm.embeddings import HashingEmbeddings
    from aizac.settings import Settings
    from aizac.writer.service import Studio
    from tests.fakes import fake_models
    from tests.illustration.conftest import cliche_db, written_project

    studio = Studio(Settings(data_dir=tmp_path / "data", language="en", transient_retries=0),
                    models=fake_models(), embeddings=HashingEmbeddings(), cliches=cliche_db(),
                    beats_per_episode=3)
    agent, _ = written_project(studio)
    agent.episodes.set(beats=None, length=50_000)
    exports = ExportService(lambda _: agent, tmp_path / "out")
    result = exports.export("saga", "zip", None, None, None)
    assert result.lengths is not None and result.lengths.target == 50_000
    assert [n for n, _ in result.lengths.too_short] == [1]
    with zipfile.ZipFile(result.target) as archive:
        assert archive.namelist() == ["Episode 001.txt"]
    assert exports.export("saga", "txt", None, None, None).lengths is None
