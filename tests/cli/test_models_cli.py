"""``aizac models set/unset/key``: stored in the data directory (keys 0600, never printed), picked
up by Settings under the environment; ``aizac models`` redacts credentials in URLs."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from aizac.cli import models as models_cli
from aizac.llm.model_config import ModelConfig, redact
from aizac.settings import Settings

KEY = "sk-stored-0123456789abcdef"


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("AIZAC_DATA_DIR", str(tmp_path / "data"))
    for name in ("AIZAC_PLANNER_MODEL", "AIZAC_WRITER_MODEL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path / "data"


def _app() -> typer.Typer:
    app = typer.Typer()
    app.callback()(lambda: None)
    models_cli.register(app)
    return app


def test_set_stores_the_spec_and_settings_use_it_until_the_env_says_otherwise(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = CliRunner().invoke(_app(), ["models", "set", "planner", "openai:gpt-4o"])
    assert result.exit_code == 0, result.output
    assert "planner -> openai:gpt-4o" in result.stdout
    path = data_dir / "models.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert Settings().planner_model == "openai:gpt-4o"
    assert Settings().writer_model == "local"
    monkeypatch.setenv("AIZAC_PLANNER_MODEL", "anthropic:claude-sonnet-4-5")
    assert Settings().planner_model == "anthropic:claude-sonnet-4-5"  # the environment wins
    listing = CliRunner().invoke(_app(), ["models"])
    assert "AIZAC_PLANNER_MODEL in the environment wins" in listing.stdout
    monkeypatch.delenv("AIZAC_PLANNER_MODEL")
    assert CliRunner().invoke(_app(), ["models", "unset", "planner"]).exit_code == 0
    assert Settings().planner_model == "local"


def test_a_bad_spec_or_role_is_refused_and_nothing_is_stored(data_dir: Path) -> None:
    bad = CliRunner().invoke(_app(), ["models", "set", "planner", "mystery:model"])
    assert bad.exit_code == 1 and bad.stderr.startswith("error: AIZAC_PLANNER_MODEL='mystery:")
    assert "hint: " in bad.stderr and "Traceback" not in bad.output
    role = CliRunner().invoke(_app(), ["models", "set", "poet", "local"])
    assert role.exit_code == 1 and "Unknown role 'poet'" in role.stderr
    assert not (data_dir / "models.json").exists()


def test_a_key_from_stdin_is_stored_owner_only_and_never_printed(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = CliRunner().invoke(_app(), ["models", "key", "openai"], input=KEY + "\n")
    assert result.exit_code == 0, result.output
    assert KEY not in result.output and "never shown" in result.stdout
    path = data_dir / "keys.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    stored = Settings().openai_api_key
    assert stored is not None and stored.get_secret_value() == KEY
    assert KEY not in repr(Settings())
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    env_key = Settings().openai_api_key
    assert env_key is not None and env_key.get_secret_value() == "sk-from-env"
    listing = CliRunner().invoke(_app(), ["models"])
    assert "keys stored for: openai" in listing.stdout and KEY not in listing.output
    assert CliRunner().invoke(_app(), ["models", "key", "openai", "--delete"]).exit_code == 0
    assert ModelConfig(data_dir).keys_set() == []


def test_a_key_with_spaces_or_an_unknown_provider_is_refused(data_dir: Path) -> None:
    spaced = CliRunner().invoke(_app(), ["models", "key", "openai"], input="not a key\n")
    assert spaced.exit_code == 1 and "does not look like an API key" in spaced.stderr
    assert "not a key" not in spaced.output
    unknown = CliRunner().invoke(_app(), ["models", "key", "local"], input="x\n")
    assert unknown.exit_code == 1 and "takes no key" in unknown.stderr
    assert not (data_dir / "keys.json").exists()


@pytest.mark.parametrize(
    "url",
    [
        "http://bob:s3cret-pass@127.0.0.1:8000/v1",
        "http://127.0.0.1:8000/v1?key=s3cret-pass",
        "https://h.example/v1?x=1&api_key=s3cret-pass",
    ],
)
def test_models_never_prints_credentials_embedded_in_a_url(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, url: str
) -> None:
    monkeypatch.setenv("AIZAC_WRITER_MODEL", f"openai-compatible:{url}:qwen")
    result = CliRunner().invoke(_app(), ["models"])
    assert result.exit_code == 0, result.output
    assert "s3cret-pass" not in result.output
    assert "***" in result.stdout and ":qwen" in result.stdout


def test_redact_keeps_urls_without_credentials() -> None:
    plain = "openai-compatible:http://127.0.0.1:8000/v1:qwen"
    assert redact(plain) == plain
    assert redact("http://u:p@h/v1?token=t&x=1") == "http://***@h/v1?token=***&x=1"


def test_a_corrupt_stored_file_is_a_clear_error(data_dir: Path) -> None:
    data_dir.mkdir(parents=True)
    (data_dir / "models.json").write_text("{not json", encoding="utf-8")
    result = CliRunner().invoke(_app(), ["models"])
    assert result.exit_code == 1 and "models.json" in result.stderr
    assert "Traceback" not in result.output


def test_the_image_role_is_unset_as_it_is_set(data_dir: Path) -> None:
    """Issue 39 item 12: ``aizac models unset image`` said "Unknown role" while ``set image``
    worked."""
    assert CliRunner().invoke(_app(), ["models", "set", "image", "openai:gpt-image-1"]
                              ).exit_code == 0
    assert Settings().image_model == "openai:gpt-image-1"
    done = CliRunner().invoke(_app(), ["models", "unset", "image"])
    assert done.exit_code == 0, done.output
    assert Settings().image_model == "typographic"
    poet = CliRunner().invoke(_app(), ["models", "unset", "poet"])
    assert poet.exit_code == 1 and "Unknown role 'poet'" in poet.stderr
