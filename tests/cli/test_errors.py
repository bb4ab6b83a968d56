"""The CLI's one error boundary: a bad setting or an aizac error is ``error:`` + ``hint:`` on
stderr with status 1, through the real entry point."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError


def _aizac(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from aizac.cli import main; main()", *args],
        capture_output=True, text=True, timeout=300, env={**os.environ, **env},
    )  # fmt: skip


def test_a_bad_setting_is_one_error_naming_the_variable(tmp_path: Path) -> None:
    for command in (["projects"], ["models"]):
        done = _aizac(*command, env={"AIZAC_LANGUAGE": "fr", "AIZAC_DATA_DIR": str(tmp_path)})
        assert done.returncode == 1
        error, hint = done.stderr.strip().splitlines()
        assert error.startswith("error: AIZAC_LANGUAGE='fr' is not valid")
        assert "'ko', 'en' or 'zh'" in error and hint.startswith("hint: ")
        assert done.stdout == ""


def test_a_secret_setting_is_named_but_never_quoted(tmp_path: Path) -> None:
    done = _aizac(
        "models", env={"AIZAC_SMTP_PORT": "x-secret-port", "AIZAC_DATA_DIR": str(tmp_path)}
    )
    assert done.returncode == 1 and "AIZAC_SMTP_PORT='x-secret-port'" in done.stderr
    from aizac.settings import Settings, settings_error

    with pytest.raises(ValidationError) as info:
        Settings(anthropic_api_key=12345)  # type: ignore[arg-type]
    message = settings_error(info.value).message
    assert "ANTHROPIC_API_KEY is not valid" in message and "12345" not in message
