"""Where the data lives (issue 39 item 9): the platform's user data folder, whatever folder a
command runs from, so the web app and the CLI see the same projects; AIZAC_DATA_DIR still
decides; a ./aizac-data that holds a writer's data (the old default) is kept and said so."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from aizac.settings import Settings
from aizac.settings_fast import quick_data_dir, where_data_lives
from aizac.text import render


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No AIZAC_* variable, the platform's data folder under ``tmp_path`` (XDG_DATA_HOME),
    and a fresh working folder."""
    for name in list(os.environ):
        if name.upper().startswith("AIZAC_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    work = tmp_path / "somewhere"
    work.mkdir()
    monkeypatch.chdir(work)
    return tmp_path / "xdg" / "aizac"


def test_the_default_is_the_platforms_user_data_folder(home: Path) -> None:
    assert Settings().data_dir == home == quick_data_dir()
    assert render(where_data_lives(home), "en") == f"Your projects are kept in {home}."


def test_a_project_made_in_one_folder_is_listed_from_another(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from aizac.cli import _register, app
    from aizac.settings import get_settings

    _register.register_all(app)
    monkeypatch.setenv("AIZAC_EMBEDDING", "hash")  # the test's instant embedding (conftest)
    monkeypatch.setenv("AIZAC_DISCOVER", "false")
    get_settings.cache_clear()
    made = CliRunner().invoke(app, ["new", "saga", "--keywords", "회귀", "--lang", "ko"])
    assert made.exit_code == 0, made.output
    other = tmp_path / "elsewhere"
    other.mkdir()
    monkeypatch.chdir(other)
    get_settings.cache_clear()
    listed = CliRunner().invoke(app, ["projects"])
    assert listed.exit_code == 0, listed.output
    assert "* saga\tko\t회귀" in listed.stdout
    assert f"Your projects are kept in {home}." in listed.stderr
    assert not (tmp_path / "somewhere" / "aizac-data").exists()


def test_a_folder_of_the_old_default_is_kept_and_said(home: Path) -> None:
    legacy = Path("aizac-data")
    legacy.mkdir()
    assert Settings().data_dir == home  # an empty ./aizac-data holds nothing: not kept
    (legacy / "projects").mkdir()
    assert Settings().data_dir == legacy == quick_data_dir()
    said = render(where_data_lives(legacy), "ko")
    assert str(legacy.resolve()) in said and str(home) in said and "AIZAC_DATA_DIR" in said


def test_aizac_data_dir_still_decides(home: Path, tmp_path: Path,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    Path("aizac-data", "projects").mkdir(parents=True)
    monkeypatch.setenv("AIZAC_DATA_DIR", str(tmp_path / "mine"))
    assert Settings().data_dir == tmp_path / "mine" == quick_data_dir()
    assert render(where_data_lives(tmp_path / "mine"), "en") == (
        f"Your projects are kept in {tmp_path / 'mine'}.")
