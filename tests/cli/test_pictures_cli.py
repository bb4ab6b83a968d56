"""``aizac pictures``: list, make, place and remove a project's pictures from the command line,
through the application service the web app and the REST API call (issue 39 item 13: pictures
had no CLI route)."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from aizac.application.service import ApplicationService
from aizac.cli import pictures, story
from aizac.cliches import ClicheDB
from aizac.llm.embeddings import HashingEmbeddings
from aizac.settings import Settings
from aizac.writer.service import Studio
from tests.fakes import fake_models


@pytest.fixture
def app(tmp_path: Path) -> typer.Typer:
    cliches = ClicheDB(embeddings=HashingEmbeddings())

    def factory(data_dir: Path | None = None, **options: Any) -> Studio:
        settings = Settings(data_dir=data_dir or tmp_path / "data", language="en",
                            structured_retries=1)
        return Studio(settings, models=dict(fake_models()), embeddings=HashingEmbeddings(),
                      cliches=cliches, **options)

    cli = typer.Typer()
    story.register(cli, factory)
    pictures.register(cli, factory)
    return cli


def _run(app: typer.Typer, *args: str, stdin: str | None = None, code: int = 0) -> str:
    result = CliRunner().invoke(app, list(args), input=stdin)
    assert result.exit_code == code, result.output
    return result.output


def _made(output: str) -> str:
    return output.split("made ", 1)[1].split(" ", 1)[0]


def test_a_writer_makes_places_and_removes_pictures(app: typer.Typer, tmp_path: Path) -> None:
    for args in (["new", "saga", "-k", "regression", "--lang", "en"], ["plot"], ["beat"],
                 ["beat", "--accept"], ["write"]):
        _run(app, *args)
    assert "no pictures yet" in _run(app, "pictures")
    said = _run(app, "pictures", "make", "--cover", "--yes")
    assert "The Second Life" in said and "typographic (free" in said
    cover = _made(said)
    assert cover.startswith("img-")
    listed = _run(app, "pictures")
    assert f"  {cover}\tcover\t-\ttypographic\t" in listed  # made, not placed
    assert f"placed {cover}: cover" in _run(app, "pictures", "place", cover, "--cover")
    assert f"* {cover}\tcover\tcover\t" in _run(app, "pictures")
    scene = _made(_run(app, "pictures", "make", "--beat", "1", "--yes"))
    assert "beat 1-1" in _run(app, "pictures", "place", scene, "--beat", "1")
    _run(app, "export", "--out", str(tmp_path / "saga.epub"))
    with zipfile.ZipFile(tmp_path / "saga.epub") as book:
        names = book.namelist()
    assert any(n.endswith(f"images/{cover}.png") for n in names)  # the writer's, not a new one
    assert any(n.endswith(f"images/{scene}.png") for n in names)
    studio = Studio(Settings(data_dir=tmp_path / "data", language="en"),
                    models=dict(fake_models()), embeddings=HashingEmbeddings())
    history = ApplicationService(studio, export_dir=tmp_path / "x").history("saga")
    assert history.can_undo  # placing is a step of the undo history, as in the web app
    assert f"took {cover} out: cover" in _run(app, "pictures", "remove", "--cover")
    assert "nothing is placed there: cover" in _run(app, "pictures", "remove", "--cover")
    assert f"  {cover}\tcover\t-" in _run(app, "pictures")  # still listed


def test_a_picture_is_made_only_once_the_writer_says_yes(app: typer.Typer) -> None:
    for args in (["new", "saga", "-k", "regression", "--lang", "en"], ["plot"]):
        _run(app, *args)
    refused = CliRunner().invoke(app, ["pictures", "make", "--cover"], input="n\n")
    assert refused.exit_code == 1 and "only when you confirm" in refused.stderr
    assert "no pictures yet" in _run(app, "pictures")
    both = CliRunner().invoke(app, ["pictures", "make", "--cover", "--beat", "1", "--yes"])
    assert both.exit_code == 1 and "--cover, or --beat" in both.stderr
    unknown = CliRunner().invoke(app, ["pictures", "place", "img-nothing", "--cover"])
    assert unknown.exit_code == 1 and "error: " in unknown.stderr
    assert "Traceback" not in unknown.output
