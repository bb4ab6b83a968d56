"""Export names are checked before anything is written; writes are atomic."""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

import pytest

from aizac.errors import InvalidInputError, StorageError
from aizac.export.files import (
    MAX_NAME_BYTES,
    atomic_write_bytes,
    default_export_name,
    safe_export_name,
    write_export,
)
from aizac.export.manuscript import EpisodeText, Manuscript
from aizac.export.render import render, render_md, render_txt


class TestSafeExportName:
    @pytest.mark.parametrize(
        ("name", "ext", "expected"),
        [
            ("달빛 검객", "epub", "달빛 검객.epub"),
            ("novel.txt", "txt", "novel.txt"),
            ("novel.TXT", "txt", "novel.txt"),
            ("  spaced  ", "md", "spaced.md"),
            ("v1.2 draft", ".md", "v1.2 draft.md"),
            ("剑与月-第1章", "epub", "剑与月-第1章.epub"),
        ],
    )
    def test_accepted(self, name: str, ext: str, expected: str) -> None:
        assert safe_export_name(name, ext) == expected

    def test_nfc_normalised(self) -> None:
        decomposed = unicodedata.normalize("NFD", "한글")
        assert decomposed != "한글"
        assert safe_export_name(decomposed, "txt") == "한글.txt"

    @pytest.mark.parametrize(
        ("name", "reason"),
        [
            ("", "empty"),
            ("   ", "empty"),
            (".txt", "empty"),
            ("a/b", "/"),
            ("../novel", "/"),
            ("a\\b", "\\"),
            ("..", "'..'"),
            ("a..b", "'..'"),
            ("C:novel", ":"),
            ('what?"', "?"),
            ("bad\x00name", "control"),
            ("two\r\nlines", "control"),
            ("tab\there", "control"),
            ("rtl\u202etxt.exe", "control"),
            (".hidden", "dot"),
            ("trailing.", "ends with a dot"),
            ("CON", "reserved"),
            ("nul.backup", "reserved"),
            ("가" * 66, "too long"),
        ],
    )
    def test_rejected_with_a_clear_message(self, name: str, reason: str) -> None:
        with pytest.raises(InvalidInputError) as info:
            safe_export_name(name, "txt")
        assert reason in info.value.message
        assert info.value.hint

    def test_length_limit_is_in_utf8_bytes(self) -> None:
        fits = "가" * ((MAX_NAME_BYTES - 4) // 3)  # 3 bytes per Hangul syllable, ".txt" is 4
        assert len(safe_export_name(fits, "txt").encode()) <= MAX_NAME_BYTES
        with pytest.raises(InvalidInputError, match="too long"):
            safe_export_name(fits + "가", "txt")

    def test_unknown_extension(self) -> None:
        with pytest.raises(InvalidInputError, match="format"):
            safe_export_name("novel", "exe")


class TestDefaultExportName:
    @pytest.mark.parametrize(
        ("title", "expected"),
        [
            ("달빛 검객", "달빛_검객.txt"),  # no spaces: the download URL works as it is
            ("A/B: C?", "A_B_C_.txt"),
            ("#1 `x` [완]", "_1_x_완_.txt"),
            ("..secret..", "secret.txt"),
            ("CON", "novel-CON.txt"),
            ("\x00", "_.txt"),
        ],
    )
    def test_never_rejects_a_title(self, title: str, expected: str) -> None:
        assert default_export_name(title, "txt") == expected

    def test_long_titles_are_cut_on_a_character_boundary(self) -> None:
        name = default_export_name("검" * 500, "epub")
        assert len(name.encode()) <= MAX_NAME_BYTES
        assert name.endswith("검.epub")


class TestWriteExport:
    @pytest.mark.parametrize("fmt", ["txt", "md", "epub"])
    def test_writes_the_rendered_bytes_and_nothing_else(
        self, korean_manuscript: Manuscript, tmp_path: Path, fmt: str
    ) -> None:
        path = write_export(korean_manuscript, fmt, tmp_path / "out", "내 소설")
        assert path == tmp_path / "out" / f"내 소설.{fmt}"
        assert os.listdir(tmp_path / "out") == [path.name]
        assert path.stat().st_mode & 0o777 == 0o644  # an ordinary document, not mkstemp's 0600
        if fmt == "epub":
            assert path.read_bytes()[:2] == b"PK"
        else:
            assert path.read_bytes() == render(korean_manuscript, fmt)

    def test_text_files_are_utf8_with_the_exact_prose(
        self, korean_manuscript: Manuscript, tmp_path: Path
    ) -> None:
        txt = write_export(korean_manuscript, "txt", tmp_path, "a").read_text(encoding="utf-8")
        md = write_export(korean_manuscript, "md", tmp_path, "a").read_text(encoding="utf-8")
        assert txt == render_txt(korean_manuscript)
        assert md == render_md(korean_manuscript)
        for paragraph in (p for e in korean_manuscript.episodes for p in e.paragraphs):
            assert paragraph in txt

    def test_default_name_comes_from_the_title(self, tmp_path: Path) -> None:
        ms = Manuscript("검/달", episodes=[EpisodeText(1, prose="본문")])
        assert write_export(ms, "md", tmp_path).name == "검_달.md"

    def test_replaces_an_existing_export(
        self, korean_manuscript: Manuscript, tmp_path: Path
    ) -> None:
        (tmp_path / "a.txt").write_text("old", encoding="utf-8")
        write_export(korean_manuscript, "txt", tmp_path, "a")
        assert (tmp_path / "a.txt").read_text(encoding="utf-8") == render_txt(korean_manuscript)
        assert os.listdir(tmp_path) == ["a.txt"]

    @pytest.mark.parametrize("name", ["../escape", "sub/dir", "..", "a\r\nb", ""])
    def test_bad_names_write_nothing(
        self, korean_manuscript: Manuscript, tmp_path: Path, name: str
    ) -> None:
        target = tmp_path / "exports"
        with pytest.raises(InvalidInputError):
            write_export(korean_manuscript, "txt", target, name)
        assert not target.exists()
        assert os.listdir(tmp_path) == []

    def test_bad_format_or_empty_manuscript_write_nothing(
        self, korean_manuscript: Manuscript, tmp_path: Path
    ) -> None:
        with pytest.raises(InvalidInputError):
            write_export(korean_manuscript, "pdf", tmp_path / "x", "a")
        with pytest.raises(InvalidInputError):
            write_export(Manuscript("빈 책"), "txt", tmp_path / "x", "a")
        assert os.listdir(tmp_path) == []

    def test_failed_replace_is_a_storage_error_and_leaves_no_temp_file(
        self, korean_manuscript: Manuscript, tmp_path: Path
    ) -> None:
        (tmp_path / "taken.txt").mkdir()  # a folder where the file should go
        with pytest.raises(StorageError, match=r"taken\.txt"):
            write_export(korean_manuscript, "txt", tmp_path, "taken")
        assert os.listdir(tmp_path) == ["taken.txt"]
        assert (tmp_path / "taken.txt").is_dir()


class TestAtomicWrite:
    def test_a_crash_mid_write_keeps_the_old_file_and_no_temp(self, tmp_path: Path) -> None:
        target = tmp_path / "a.txt"
        target.write_bytes(b"old")

        with pytest.raises(TypeError):  # the write itself fails after the temp file exists
            atomic_write_bytes(target, "not bytes")  # type: ignore[arg-type]
        assert target.read_bytes() == b"old"
        assert os.listdir(tmp_path) == ["a.txt"]

    def test_missing_folder_is_a_storage_error(self, tmp_path: Path) -> None:
        with pytest.raises(StorageError, match="Could not write"):
            atomic_write_bytes(tmp_path / "missing" / "a.txt", b"x")
        assert os.listdir(tmp_path) == []
