"""deploy/ agrees with the code: the settings it names exist, the serve command takes the options
it passes, and the compose file wires aizac to its Chroma server."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from aizac.server.config import ServerConfig
from aizac.settings import Settings, setting_env_name
from aizac.writer.service import Studio

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
PROXY_ONLY = {"AIZAC_DOMAIN", "AIZAC_LB_SECRET"}  # read by compose.yaml and the Caddyfile


def known_variables() -> set[str]:
    aizac = {setting_env_name(f) for f in Settings.model_fields}
    prefix = str(ServerConfig.model_config.get("env_prefix", ""))
    server = {f"{prefix}{f}".upper() for f in ServerConfig.model_fields}
    return aizac | server | PROXY_ONLY


@pytest.fixture(scope="module")
def compose() -> dict[str, object]:
    loaded = yaml.safe_load((DEPLOY / "compose.yaml").read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


@pytest.mark.parametrize("name", ["compose.yaml", ".env.example", "Caddyfile", "README.md",
                                  "Dockerfile"])  # fmt: skip
def test_every_variable_named_is_a_setting(name: str) -> None:
    text = (DEPLOY / name).read_text(encoding="utf-8")
    named = set(re.findall(r"\bAIZAC_[A-Z0-9_]*[A-Z0-9]\b", text))
    named = {n for n in named if not n.endswith("_")}
    assert named, name
    assert named - known_variables() == set()


def test_the_serve_command_takes_the_options_deploy_passes(compose: dict[str, object]) -> None:
    import typer

    from aizac.cli import _register

    app = typer.Typer()
    _register.register_all(app)
    services = compose["services"]
    assert isinstance(services, dict)
    command = services["aizac"]["command"]
    assert command[:2] == ["aizac", "serve"]
    result = CliRunner().invoke(app, ["serve", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    for option in [c for c in command if c.startswith("--")] + ["--ui-language", "--no-signup"]:
        assert option in result.output
    dockerfile = (DEPLOY / "Dockerfile").read_text(encoding="utf-8")
    assert '"aizac", "serve", "--host", "0.0.0.0", "--port", "8000"' in dockerfile


def test_compose_wires_aizac_to_its_chroma_server(compose: dict[str, object]) -> None:
    services = compose["services"]
    assert isinstance(services, dict)
    env = services["aizac"]["environment"]
    chroma = services[env["AIZAC_CHROMA_HOST"]]
    run = chroma["command"]
    assert run[:2] == ["chroma", "run"]
    assert run[run.index("--port") + 1] == env["AIZAC_CHROMA_PORT"]
    assert "ports" not in chroma  # the Chroma server has no authentication: never published
    assert "ports" not in services["aizac"]  # only through the proxy
    assert compose["networks"]["inside"]["internal"] is True
    settings = Settings(**{  # the values parse as aizac settings
        "chroma_host": env["AIZAC_CHROMA_HOST"], "chroma_port": env["AIZAC_CHROMA_PORT"],
        "cliches_dir": env["AIZAC_CLICHES_DIR"],
    })
    assert settings.chroma_port == 8000 and not str(settings.cliches_dir).startswith("/data")


def test_the_trope_index_folder_is_a_setting(tmp_path: Path) -> None:
    own = Studio(Settings(data_dir=tmp_path / "data", cliches_dir=tmp_path / "node-local"))
    assert getattr(own.cliches, "path", None) == tmp_path / "node-local"
    default = Studio(Settings(data_dir=tmp_path / "data"))
    assert getattr(default.cliches, "path", None) == tmp_path / "data" / "cliches"
