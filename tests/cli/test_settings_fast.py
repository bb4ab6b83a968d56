"""``quick_data_dir`` (the data directory without pydantic, for ``aizac projects``) agrees with
``Settings().data_dir`` whenever it answers, and steps aside whenever anything else is
configured (a bad value there must still stop ``aizac projects``: tests/cli/test_errors.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from aizac.settings import Settings
from aizac.settings_fast import quick_data_dir


@pytest.fixture
def bare(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory with no .env or aizac.toml and no AIZAC_* variable."""
    for name in list(os.environ):
        if name.upper().startswith("AIZAC_"):
            monkeypatch.delenv(name)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return work


@pytest.mark.parametrize(
    "env",
    [
        {},
        {"AIZAC_DATA_DIR": "/tmp/somewhere/data"},
        {"aizac_data_dir": "relative/data"},
        {"AIZAC_CONFIG": "missing.toml", "AIZAC_DATA_DIR": "d"},
        {"OPENAI_API_KEY": "sk-x", "OLLAMA_HOST": "http://h:1"},
    ],
)
def test_it_answers_what_settings_answer(
    bare: Path, monkeypatch: pytest.MonkeyPatch, env: dict[str, str]
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    quick = quick_data_dir()
    assert quick is not None and quick == Settings().data_dir


@pytest.mark.parametrize(
    "setup",
    ["language", "two spellings", "dotenv", "toml", "config", "models.json", "keys.json"],
)
def test_it_steps_aside_when_anything_else_is_configured(
    bare: Path, monkeypatch: pytest.MonkeyPatch, setup: str
) -> None:
    data = bare / "data"
    data.mkdir()
    monkeypatch.setenv("AIZAC_DATA_DIR", str(data))
    if setup == "language":
        monkeypatch.setenv("AIZAC_LANGUAGE", "fr")  # invalid: Settings() must see it
    elif setup == "two spellings":
        monkeypatch.setenv("aizac_data_dir", str(bare / "other"))
    elif setup == "dotenv":
        (bare / ".env").write_text("AIZAC_DATA_DIR=elsewhere\n", encoding="utf-8")
    elif setup == "toml":
        (bare / "aizac.toml").write_text('language = "en"\n', encoding="utf-8")
    elif setup == "config":
        (bare / "my.toml").write_text('data_dir = "x"\n', encoding="utf-8")
        monkeypatch.setenv("AIZAC_CONFIG", str(bare / "my.toml"))
    else:
        (data / setup).write_text("{}", encoding="utf-8")
    assert quick_data_dir() is None


def test_the_stored_file_names_are_the_model_config_s() -> None:
    from aizac.settings_fast import _STORED
    from aizac.stored_models import KEYS_FILE, MODELS_FILE

    assert set(_STORED) == {MODELS_FILE, KEYS_FILE}
