"""``aizac models`` and ``aizac ask-model``: tables, streaming, one-line errors, no key echoed."""

from __future__ import annotations

import pytest
import typer
from llm_wire import WireServer, json_reply, openai_stream
from typer.testing import CliRunner

from aizac.cli import models as models_cli

KEY = "sk-cli-test-0123456789abcdef"


@pytest.fixture
def run() -> CliRunner:
    return CliRunner()


def _app() -> typer.Typer:
    app = typer.Typer()
    app.callback()(lambda: None)  # keep sub-command names even with two commands
    models_cli.register(app)
    return app


def test_models_lists_every_role(run: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIZAC_PLANNER_MODEL", "openai:gpt-4o")
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("AIZAC_WRITER_MODEL", "anthropic:claude-sonnet-4-5")
    monkeypatch.setenv("AIZAC_REVIEWER_MODEL", "mystery:model")
    result = run.invoke(_app(), ["models"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["ROLE", "SPEC", "PROVIDER", "USABLE", "REASON"]
    rows = {line.split()[0]: line for line in lines[1:]}
    assert set(rows) == {"planner", "writer", "extractor", "reviewer", "image"}
    assert rows["image"].split()[1:4] == ["typographic", "typographic", "yes"]
    assert "openai:gpt-4o" in rows["planner"] and "yes" in rows["planner"]
    assert "ANTHROPIC_API_KEY is not set" in rows["writer"] and " no " in rows["writer"]
    assert rows["extractor"].split()[1:3] == ["local", "local"]
    assert "unknown provider 'mystery'" in rows["reviewer"]
    assert KEY not in result.output


def test_ask_model_streams_the_reply(
    run: CliRunner, wire: WireServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    wire.script(openai_stream(["Once", " upon", " a time."], prompt=6, out=4))
    monkeypatch.setenv("AIZAC_PLANNER_MODEL", "openai:gpt-test")
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", wire.url + "/v1")
    result = run.invoke(_app(), ["ask-model", "planner", "Begin", "--system", "Be brief."])
    assert result.exit_code == 0, result.output
    assert result.stdout == "Once upon a time.\n"
    assert "planner · openai:gpt-test · 6 prompt + 4 completion tokens" in result.stderr
    body = wire.requests[0].body
    assert body["stream"] is True
    assert body["messages"][0] == {"role": "system", "content": "Be brief."}


def test_ask_model_says_where_the_token_limit_stopped_the_reply(
    run: CliRunner, wire: WireServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Asking is not generating: the reply is on screen, so a length stop is a note, not a
    failure (a small local model rambles to its limit on an open question)."""
    wire.script(openai_stream(["A title", " that goes on"], finish="length"))
    monkeypatch.setenv("AIZAC_PLANNER_MODEL", "openai:gpt-test")
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", wire.url + "/v1")
    monkeypatch.setenv("AIZAC_UI_LANGUAGE", "ko")
    result = run.invoke(_app(), ["ask-model", "planner", "Name it"])
    assert result.exit_code == 0, result.output
    assert result.stdout == "A title that goes on\n"
    assert "토큰 한도" in result.stderr and "error:" not in result.stderr


def test_ask_model_limit_before_any_text_still_fails(
    run: CliRunner, wire: WireServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    wire.script(openai_stream([], finish="length"))
    monkeypatch.setenv("AIZAC_PLANNER_MODEL", "openai:gpt-test")
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", wire.url + "/v1")
    result = run.invoke(_app(), ["ask-model", "planner", "Name it"])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith("error: ") and "token limit" in result.stderr


def test_ask_model_missing_key_is_one_clear_line(
    run: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AIZAC_WRITER_MODEL", "openai:gpt-4o")
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    result = run.invoke(_app(), ["ask-model", "writer", "hi"])
    assert result.exit_code == 1
    assert result.stdout == ""
    error, hint = result.stderr.strip().splitlines()  # the CLI's one format: error, then hint
    assert error.startswith("error: OPENAI_API_KEY is not set") and hint.startswith("hint: ")
    assert "AIZAC_WRITER_MODEL" in error and "Traceback" not in result.output
    assert KEY not in result.output


def test_ask_model_provider_error_never_echoes_the_key(
    run: CliRunner, wire: WireServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    wire.script(json_reply({"error": {"message": f"Incorrect API key provided: {KEY}"}}, 401))
    monkeypatch.setenv("AIZAC_PLANNER_MODEL", "openai:gpt-test")
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", wire.url + "/v1")
    result = run.invoke(_app(), ["ask-model", "planner", "hi"])
    assert result.exit_code == 1
    assert "key was rejected" in result.stderr
    assert KEY not in result.output
    assert "Traceback" not in result.output


def test_ask_model_unknown_role(run: CliRunner) -> None:
    result = run.invoke(_app(), ["ask-model", "poet", "hi"])
    assert result.exit_code == 1
    assert result.stderr.strip() == (
        "error: Unknown role 'poet'.\nhint: Use one of: planner, writer, extractor, reviewer."
    )


def test_every_command_has_help(run: CliRunner) -> None:
    for command in ("models", "ask-model"):
        result = run.invoke(_app(), [command, "--help"])
        assert result.exit_code == 0 and "Usage" in result.output
