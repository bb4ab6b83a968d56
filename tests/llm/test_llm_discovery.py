"""Finding a writer's own model server: loopback servers speaking Ollama's ``/api/tags`` and the
OpenAI-compatible ``/v1/models`` are found, a hung or closed port costs at most the time limit,
only 127.0.0.1 is ever asked, and one command puts a found model on every role."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from acceptance.listing_servers import KeyedServer, OllamaServer, SilentServer, closed_port
from acceptance.openai_server import OpenAIServer
from typer.testing import CliRunner

from aizac.cli import models as models_cli
from aizac.llm import discovery
from aizac.llm.discovery import Discovery, FoundModel, parse_ports, probe, spec_for, usable_specs
from aizac.settings import ROLES, Settings

LIMIT = 2.0
"""The time limit in these tests: long enough for a loopback server to answer on a 2-core
machine at load 15 (0.3 s missed one there), far below the hung server's 30 s."""
SLACK = 2.0
"""What a loaded machine may add to the limit (thread start-up, scheduling)."""


@pytest.fixture
def servers() -> Iterator[dict[str, Any]]:
    ollama = OllamaServer("qwen2.5:7b", "nomic-embed-text:latest", "exaone3.5:7.8b").start()
    lm = OpenAIServer(model="qwen2.5-7b-instruct").start()
    silent = SilentServer(delay=30.0).start()
    keyed = KeyedServer().start()
    yield {"ollama": ollama, "lm": lm, "silent": silent, "keyed": keyed}
    for server in (ollama, lm, silent, keyed):
        server.stop()


def _port(server: Any) -> int:
    return int(server.httpd.server_address[1])


def test_both_listing_formats_are_found_and_a_hung_port_costs_only_the_limit(
    servers: dict[str, Any],
) -> None:
    ollama, lm, silent, keyed = (servers[k] for k in ("ollama", "lm", "silent", "keyed"))
    ports = [_port(ollama), _port(lm), _port(silent), closed_port(), _port(keyed)]
    started = time.monotonic()
    found = probe(ports, timeout=LIMIT, ollama_url=ollama.url)
    elapsed = time.monotonic() - started
    assert elapsed < LIMIT + SLACK, elapsed  # not the 30 s the silent port would take
    by_port = {s.port: s for s in found}
    assert set(by_port) == {_port(ollama), _port(lm), _port(keyed)}
    native = by_port[_port(ollama)]
    assert native.api == "ollama"  # its own listing wins over its /v1 one
    assert [m.spec for m in native.models] == ["ollama:qwen2.5:7b", "ollama:exaone3.5:7.8b"]
    compatible = by_port[_port(lm)]
    assert compatible.api == "openai" and compatible.models == (FoundModel(
        "qwen2.5-7b-instruct", f"openai-compatible:{lm.url}/v1:qwen2.5-7b-instruct"),)
    assert by_port[_port(keyed)].needs_key and not by_port[_port(keyed)].models
    # each server was asked by GET on loopback only
    assert {(r.method, r.path) for r in ollama.requests} == {("GET", "/api/tags"),
                                                             ("GET", "/v1/models")}
    assert all(r.peer.startswith("127.0.0.1:") for r in ollama.requests + lm.requests)


def test_every_probe_goes_to_loopback_whatever_is_configured(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: list[tuple[str, int, str]] = []

    class Recording:
        def __init__(self, host: str, port: int, timeout: float) -> None:
            asked.append((host, port, ""))

        def request(self, method: str, path: str, headers: dict[str, str]) -> None:
            asked[-1] = (asked[-1][0], asked[-1][1], path)
            raise ConnectionRefusedError

        def close(self) -> None:
            pass

    monkeypatch.setattr(discovery.http.client, "HTTPConnection", Recording)
    monkeypatch.setenv("OLLAMA_HOST", "http://192.168.0.7:11434")  # a server elsewhere
    monkeypatch.setenv("HTTP_PROXY", "http://10.0.0.1:3128")
    search = Discovery.from_settings(Settings(discover=True))
    assert search is not None and search.wait() == []
    hosts = {host for host, _, _ in asked}
    assert hosts == {"127.0.0.1"}
    assert {port for _, port, _ in asked} == {k.port for k in discovery.known_ports()}
    assert {path for _, _, path in asked} == {"/api/tags", "/v1/models"}
    # the Ollama found on loopback is then not the configured one: used as OpenAI-compatible
    assert spec_for("ollama", 11434, "qwen2.5:7b", "http://192.168.0.7:11434") == (
        "openai-compatible:http://127.0.0.1:11434/v1:qwen2.5:7b")


def test_the_usual_ports_include_the_documented_defaults() -> None:
    ports = parse_ports("")
    for port in (11434, 1234, 8080, 8000):  # Ollama, LM Studio, llama.cpp server, vLLM
        assert port in ports
    assert parse_ports("8080, 8080;1234") == (8080, 1234)
    with pytest.raises(ValueError):
        parse_ports("80a")
    with pytest.raises(ValueError):
        Settings(discover_ports="99999")


def test_an_id_that_cannot_be_a_spec_is_listed_but_not_offered() -> None:
    assert spec_for("openai", 8080, "/models/qwen.gguf") is None  # llama.cpp lists a path
    assert spec_for("openai", 4891, "Phi-3 Mini Instruct") is None  # GPT4All: spaces
    assert spec_for("openai", 8080, "models/qwen.gguf") == (
        "openai-compatible:http://127.0.0.1:8080/v1:models/qwen.gguf")


def test_the_background_search_does_not_hold_the_caller(servers: dict[str, Any]) -> None:
    search = Discovery([_port(servers["silent"]), _port(servers["lm"])], timeout=LIMIT)
    started = time.monotonic()
    search.start()
    assert time.monotonic() - started < LIMIT  # returns at once, not after the hung port
    assert search.result() is None  # still asking the silent port
    found = search.result(wait=LIMIT + SLACK)
    assert found is not None and [s.port for s in found] == [_port(servers["lm"])]


def _app() -> typer.Typer:
    app = typer.Typer()
    app.callback()(lambda: None)
    models_cli.register(app)
    return app


def test_aizac_models_lists_what_answered_and_use_puts_one_on_every_role(
    servers: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ollama, lm = servers["ollama"], servers["lm"]
    monkeypatch.setenv("AIZAC_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("AIZAC_DISCOVER", "true")
    monkeypatch.setenv("AIZAC_DISCOVER_PORTS", f"{_port(ollama)},{_port(lm)},{closed_port()}")
    monkeypatch.setenv("AIZAC_OLLAMA_BASE_URL", ollama.url)
    monkeypatch.setenv("AIZAC_DISCOVER_TIMEOUT", str(LIMIT))
    listing = CliRunner().invoke(_app(), ["models"])
    assert listing.exit_code == 0, listing.output
    assert "[1] ollama:qwen2.5:7b" in listing.stdout
    assert f"[3] openai-compatible:{lm.url}/v1:qwen2.5-7b-instruct" in listing.stdout
    assert "nomic-embed" not in listing.stdout
    assert "aizac models use N --all-roles" in listing.stdout
    used = CliRunner().invoke(_app(), ["models", "use", "3", "--all-roles"])
    assert used.exit_code == 0, used.output
    spec = f"openai-compatible:{lm.url}/v1:qwen2.5-7b-instruct"
    stored = json.loads((tmp_path / "models.json").read_text(encoding="utf-8"))
    assert stored == dict.fromkeys(ROLES, spec)  # the file `aizac models set` writes
    assert all(Settings().role_spec(r) == spec for r in ROLES)
    # the model it now uses answers over the real wire format
    from langchain_core.messages import HumanMessage

    from aizac.llm.router import ModelRouter

    lm.script("hello from the local server")
    reply = ModelRouter(Settings()).model("writer").invoke([HumanMessage("hi")])
    assert reply.text == "hello from the local server"
    named = CliRunner().invoke(_app(), ["models", "use", "ollama:qwen2.5:7b", "--role",
                                        "extractor"])
    assert named.exit_code == 0 and Settings().extractor_model == "ollama:qwen2.5:7b"
    assert Settings().planner_model == spec


def test_use_refuses_a_number_nothing_answered_for_and_a_missing_role(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AIZAC_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("AIZAC_DISCOVER_PORTS", str(closed_port()))
    none = CliRunner().invoke(_app(), ["models", "use", "1", "--all-roles"])
    assert none.exit_code == 1 and "no local model number 1: 0 answered" in none.stderr
    assert "aizac models" in none.stderr  # the hint
    roles = CliRunner().invoke(_app(), ["models", "use", "local"])
    assert roles.exit_code == 1 and "--all-roles" in roles.stderr
    assert not (tmp_path / "models.json").exists()
    quiet = CliRunner().invoke(_app(), ["models"])  # the search is off (AIZAC_DISCOVER=false)
    assert "127.0.0.1" not in quiet.stdout
    monkeypatch.setenv("AIZAC_DISCOVER", "true")
    listing = CliRunner().invoke(_app(), ["models"])
    assert "No local model server answered on 127.0.0.1" in listing.stdout


def test_usable_specs_number_the_offered_models_in_order(servers: dict[str, Any]) -> None:
    found = probe([_port(servers["lm"]), _port(servers["ollama"])], timeout=LIMIT,
                  ollama_url=servers["ollama"].url)
    assert usable_specs(found)[0].endswith(":qwen2.5-7b-instruct")
    assert len(usable_specs(found)) == 3


def test_the_search_is_off_when_set_so_unless_the_writer_asks(servers: dict[str, Any]) -> None:
    settings = Settings(discover=False, discover_ports=str(_port(servers["lm"])),
                        discover_timeout=LIMIT)
    assert Discovery.from_settings(settings) is None  # nothing asked at start
    asked = Discovery.from_settings(settings, asked=True)  # "search again", `models use N`
    assert asked is not None and [s.port for s in asked.wait()] == [_port(servers["lm"])]


def test_the_servers_come_in_the_asked_order_whoever_answers_first() -> None:
    """`aizac models` numbers what it found and `aizac models use N` searches again: under load
    the servers answer in another order, and the numbers must still name the same models."""

    def fetch(port: int, path: str, timeout: float) -> tuple[int, Any]:
        if port == 11111:
            time.sleep(0.3)  # the first port asked answers last
        if path == discovery.OLLAMA_TAGS:
            return 200, {"models": [{"name": f"model-{port}:1b"}]}
        return 404, None

    found = probe([11111, 22222], timeout=LIMIT, fetch=fetch)
    assert [s.port for s in found] == [11111, 22222]
    assert [m.model for s in found for m in s.models] == ["model-11111:1b", "model-22222:1b"]


def test_aizac_models_with_a_hung_port_waits_only_the_limit(
    servers: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command line's start-up: ``aizac models`` lists what answered and waits for a hung
    port only the search's time limit (the silent server holds its answer 30 s)."""
    silent, lm = servers["silent"], servers["lm"]
    monkeypatch.setenv("AIZAC_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("AIZAC_DISCOVER", "true")
    monkeypatch.setenv("AIZAC_DISCOVER_TIMEOUT", str(LIMIT))
    monkeypatch.setenv("AIZAC_DISCOVER_PORTS", f"{_port(silent)},{_port(lm)},{closed_port()}")
    started = time.monotonic()
    listing = CliRunner().invoke(_app(), ["models"])
    elapsed = time.monotonic() - started
    assert listing.exit_code == 0, listing.output
    assert "qwen2.5-7b-instruct" in listing.stdout
    assert silent.requests  # the hung port was asked, and not waited for past the limit
    assert elapsed < silent.delay / 2, elapsed


def test_use_n_means_the_model_the_listing_showed_as_n(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 39 item 10: under load the server answered ``aizac models`` and not, a second
    later, the search of ``aizac models use 1`` ("0 answered"); the number is the listing's."""
    monkeypatch.setenv("AIZAC_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("AIZAC_DISCOVER", "true")
    monkeypatch.setenv("AIZAC_DISCOVER_TIMEOUT", str(LIMIT))
    lm = OpenAIServer(model="qwen2.5-7b-instruct").start()
    monkeypatch.setenv("AIZAC_DISCOVER_PORTS", str(_port(lm)))
    try:
        listing = CliRunner().invoke(_app(), ["models"])
    finally:
        lm.stop()  # gone (or too slow) by the next command
    spec = f"openai-compatible:{lm.url}/v1:qwen2.5-7b-instruct"
    assert f"[1] {spec}" in listing.stdout
    used = CliRunner().invoke(_app(), ["models", "use", "1", "--all-roles"])
    assert used.exit_code == 0, used.output
    assert all(Settings().role_spec(r) == spec for r in ROLES)
    beyond = CliRunner().invoke(_app(), ["models", "use", "2", "--all-roles"])
    assert beyond.exit_code == 1 and "no local model number 2: 0 answered" in beyond.stderr
