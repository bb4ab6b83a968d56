"""``aizac export`` writes the Word document and the upload zip, and says which episodes are far
from the project's target length (issue 42 item 4)."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import typer
from typer.testing import CliRunner

from aizac.cli import story
from aizac.cliches import ClicheDB
from aizac.llm.embeddings import HashingEmbeddings
from aizac.settings import Settings
from aizac.writer.service import Studio
from tests.fakes import fake_models


def _app(tmp_path: Path) -> typer.Typer:
    cliches = ClicheDB(embeddings=HashingEmbeddings())

    def factory(data_dir: Path | None = None, **options: Any) -> Studio:
        settings = Settings(data_dir=data_dir or tmp_path / "data", language="en",
                            structured_retries=1)
        return Studio(settings, models=dict(fake_models()), embeddings=HashingEmbeddings(),
                      cliches=cliches, **options)

    cli = typer.Typer()
    story.register(cli, factory)
    return cli


def _run(app: typer.Typer, *args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_export_writes_docx_and_the_upload_zip_with_its_length_check(tmp_path: Path) -> None:
    app = _app(tmp_path)
    for args in (["new", "saga", "-k", "regression", "--lang", "en"], ["plot"], ["beat"],
                 ["beat", "--accept"], ["write"]):
        _run(app, *args)
    said = _run(app, "export", "--out", str(tmp_path / "upload.zip"))
    assert "Shorter than the target of 2,000 words by more than 20%: episode(s) 1 (" in said
    with zipfile.ZipFile(tmp_path / "upload.zip") as archive:
        assert archive.namelist() == ["Episode 001.txt"]
    said = _run(app, "export", "--out", str(tmp_path / "book.docx"))
    assert "Shorter" not in said  # the check is the upload's
    assert (tmp_path / "book.docx").read_bytes()[:2] == b"PK"
