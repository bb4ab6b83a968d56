""""Light roles local, prose in the cloud": the ``light-local`` preset, set in one command, sends
extraction and summaries to a local model server and plot, beats and prose to the cloud model,
and the usage log shows the split. Two loopback servers speak the OpenAI wire format: one
stands for LM Studio on the writer's machine (found by the local-server search), the other for
the cloud API (``OPENAI_BASE_URL``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import typer
from acceptance.openai_server import OpenAIServer
from acceptance.outline import outline_of
from acceptance.story import KoreanStory
from typer.testing import CliRunner

from aizac.cli import models as models_cli
from aizac.cli.story import show_split
from aizac.cliches import ClicheDB
from aizac.llm.embeddings import HashingEmbeddings
from aizac.settings import Settings
from aizac.writer.service import Studio


@pytest.fixture
def two_servers() -> Iterator[tuple[OpenAIServer, OpenAIServer]]:
    local = OpenAIServer(KoreanStory(), model="qwen2.5-7b-instruct").start()
    cloud = OpenAIServer(KoreanStory(), model="gpt-4o").start()
    yield local, cloud
    local.stop()
    cloud.stop()


def _app() -> typer.Typer:
    app = typer.Typer()
    app.callback()(lambda: None)
    models_cli.register(app)
    return app


def _asked(server: OpenAIServer) -> list[str]:
    """What each chat request to ``server`` asked for: the schema's name, or ``prose``."""
    out = []
    for r in server.chat_requests:
        fmt = r.body.get("response_format") or {}
        outlined = outline_of(r.body)
        out.append(outlined[0] if outlined else fmt["json_schema"]["name"] if fmt else "prose")
    return out


def test_light_local_sends_extraction_local_and_the_rest_to_the_cloud(
    two_servers: tuple[OpenAIServer, OpenAIServer], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, cliches: ClicheDB, capsys: pytest.CaptureFixture[str],
) -> None:
    local, cloud = two_servers
    local_port = int(local.httpd.server_address[1])
    monkeypatch.setenv("AIZAC_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("AIZAC_DISCOVER_PORTS", str(local_port))
    monkeypatch.setenv("OPENAI_BASE_URL", cloud.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-cloud")
    done = CliRunner().invoke(_app(), ["models", "preset", "light-local", "--cloud",
                                       "openai:gpt-4o"])
    assert done.exit_code == 0, done.output
    local_spec = f"openai-compatible:{local.base_url}:qwen2.5-7b-instruct"
    stored = json.loads((tmp_path / "models.json").read_text(encoding="utf-8"))
    assert stored == {"extractor": local_spec, "planner": "openai:gpt-4o",
                      "writer": "openai:gpt-4o", "reviewer": "openai:gpt-4o"}

    studio = Studio(Settings(), embeddings=HashingEmbeddings(), cliches=cliches)
    agent = studio.create("split", "회귀, 복수", genre="현대판타지", language="ko")
    agent.plan()
    for _ in range(2):
        draft = agent.next_beat()
        agent.accept(draft.id)
        assert "".join(agent.write_prose(draft.id))

    on_local, on_cloud = _asked(local), _asked(cloud)
    assert on_local and set(on_local) <= {"BeatExtraction", "StoryExtraction",
                                           "CharacterExtraction", "RelationExtraction",
                                           "SettingExtraction", "BeatSummary"}
    assert "BeatSummary" in on_local or "BeatExtraction" in on_local
    assert "NovelPlot" in on_cloud and on_cloud.count("prose") == 2
    assert not set(on_cloud) & set(on_local)  # nothing of one side went to the other
    assert all(r.headers.get("authorization") != "Bearer sk-test-cloud"
               for r in local.requests)  # the cloud key never reaches the local server

    split = studio.router.usage.by_model()
    assert set(split) == {local_spec, "openai:gpt-4o"}
    local_totals, local_roles = split[local_spec]
    cloud_totals, cloud_roles = split["openai:gpt-4o"]
    assert local_roles == ("extractor",) and set(cloud_roles) == {"planner", "writer"}
    assert local_totals.calls == len(on_local) and cloud_totals.calls == len(on_cloud)
    show_split(studio.router.usage)
    printed = capsys.readouterr().err
    assert f"{local_spec}: {local_totals.calls} calls (extractor)" in printed


def test_the_preset_needs_a_cloud_model_and_a_local_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AIZAC_DATA_DIR", str(tmp_path))
    no_cloud = CliRunner().invoke(_app(), ["models", "preset", "light-local", "--local",
                                           "ollama:qwen2.5:7b"])
    assert no_cloud.exit_code == 1 and "--cloud SPEC" in no_cloud.stderr
    unknown = CliRunner().invoke(_app(), ["models", "preset", "all-cloud"])
    assert unknown.exit_code == 1 and "light-local" in unknown.stderr
    assert not (tmp_path / "models.json").exists()
