"""The preview of a manuscript, through the application service and ``aizac import --preview``:
episodes found, their length, first line and scenes, adjusted by the writer, nothing saved."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from aizac.application.service import ApplicationService
from aizac.cli.importing import register
from aizac.errors import InvalidInputError
from aizac.manuscript.preview import Merge, SplitAt
from aizac.writer.service import Studio

PARA = "한서아는 왕도의 북문을 지나 천천히 걸었다. 바람이 차가웠고 하늘은 낮게 내려앉아 있었다. "
BODY = "\n\n".join([PARA * 4, PARA * 4, PARA * 4])


def _folder(root: Path) -> Path:
    """Three files named so that a plain sort would put 10화 before 2화; 2화 in CP949."""
    folder = root / "원고"
    folder.mkdir()
    for n, name in ((1, "1화.txt"), (2, "2화.txt"), (3, "10화.txt")):
        text = f"{n}화\n\n{BODY}\n\n***\n\n{BODY}\n"
        (folder / name).write_bytes(text.encode("cp949" if n == 2 else "utf-8"))
    return folder


def test_the_service_previews_a_folder_as_one_serial_and_saves_nothing(
        service: ApplicationService, tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    preview = service.preview_manuscript([folder])
    assert [(f.name, f.encoding) for f in preview.files] == [
        ("1화.txt", "utf-8"), ("2화.txt", "cp949"), ("10화.txt", "utf-8")]
    assert [(e.number, e.file, e.scenes) for e in preview.episodes] == [
        (1, "1화.txt", 2), (2, "2화.txt", 2), (3, "10화.txt", 2)]
    paragraph = len((PARA * 4).strip())  # a paragraph's spaces count, its trailing one not
    assert all(e.characters == 6 * paragraph == 1218 for e in preview.episodes)
    assert preview.episodes[0].first_line == (PARA * 4)[:80]

    merged = service.preview_manuscript([folder], [Merge(2), SplitAt(1, 7)])
    assert [e.paragraphs for e in merged.episodes] == [6, 6, 6]
    assert [e.file for e in merged.episodes] == ["1화.txt", "2화.txt", "10화.txt"]
    assert merged.characters == preview.characters
    with pytest.raises(InvalidInputError) as bad:
        service.preview_manuscript([folder], [Merge(1)])
    assert bad.value.key == "error.manuscript.no_boundary"
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before
    assert service.list_projects() == []


def _app(studio: Studio) -> typer.Typer:
    app = typer.Typer()
    register(app, lambda **_: studio)
    app.command("noop")(lambda: None)  # two commands, so typer keeps "import" as a name
    return app


def test_import_preview_prints_the_table_in_the_cli_language(
        studio: Studio, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _folder(tmp_path)
    runner = CliRunner()
    monkeypatch.setenv("AIZAC_UI_LANGUAGE", "en")
    out = runner.invoke(_app(studio), ["import", str(folder), "--preview"])
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert lines[0] == "Episode  Characters  Scenes  First line"
    assert lines[3].split()[:3] == ["3", "1,218", "2"] and lines[3].endswith("…")
    assert "3 file(s), 3 episodes, 3,654 characters." in out.output
    assert "Nothing was saved." in out.output

    merged = runner.invoke(_app(studio), ["import", str(folder), "--preview", "--merge", "3",
                                          "--split", "1:4"])
    assert merged.exit_code == 0, merged.output
    # 3화 joins 2화 (its heading line kept as text: a merged "heading" may be prose), then
    # 1화 is split at its fourth paragraph, the first of its second scene
    assert "3 file(s), 3 episodes, 3,656 characters." in merged.output
    assert [line.split()[1] for line in merged.output.splitlines()[1:4]] == [
        "609", "609", "2,438"]

    monkeypatch.setenv("AIZAC_UI_LANGUAGE", "ko")
    ko = runner.invoke(_app(studio), ["import", str(folder), "--preview"])
    assert "파일 3개, 3화, 3,654자." in ko.output and "저장된 것은 없습니다" in ko.output


def test_import_preview_says_what_is_wrong_with_an_adjustment(
        studio: Studio, tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    runner = CliRunner()
    bad = runner.invoke(_app(studio), ["import", str(folder), "--preview", "--split", "x"])
    assert bad.exit_code == 1 and "--split takes EPISODE:PARAGRAPH" in bad.output
    far = runner.invoke(_app(studio), ["import", str(folder), "--preview", "--merge", "9"])
    assert far.exit_code == 1 and "Episode 9 has no boundary before it" in far.output
