"""Finding the writer's own model server on this machine: loopback only, all at once, briefly.

Many writers who want Korean offline already run Ollama, LM Studio or a llama.cpp server. At
start the web app (in the background) and ``aizac models`` (lazily, when asked) send
``GET /api/tags`` (Ollama's listing) and ``GET /v1/models`` (the OpenAI-compatible listing) to
the usual ports (``local_servers.toml``) on ``127.0.0.1``, concurrently, each with a short time
limit; what answers in either wire format is listed with a model spec ready for
``aizac models use SPEC --all-roles``.

Only the loopback address is ever asked (:data:`LOOPBACK` is the one host; no setting changes
it), and proxies are never used (``http.client`` connects directly). A closed port refuses at
once; a port that accepts and never answers costs at most the time limit, because the answers
are awaited until a deadline and a probe still waiting then is left behind (its daemon thread
ends with its own socket timeout).
"""

from __future__ import annotations

import http.client
import json
import threading
import time
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any, Literal

from aizac.settings_values import port_numbers

LOOPBACK = "127.0.0.1"
OLLAMA_TAGS = "/api/tags"
OPENAI_MODELS = "/v1/models"
PATHS: tuple[str, ...] = (OLLAMA_TAGS, OPENAI_MODELS)
DEFAULT_TIMEOUT = 0.5
MAX_BODY = 2_000_000
"""The most bytes of a listing read (a listing is a few kilobytes)."""
SERVERS_FILE = "local_servers.toml"
Api = Literal["ollama", "openai"]


@dataclass(frozen=True)
class KnownPort:
    """A port a local model server listens on by default, and what usually listens there."""

    port: int
    names: str


@lru_cache(maxsize=1)
def known_ports() -> tuple[KnownPort, ...]:
    """The usual ports (``local_servers.toml``), in the file's order."""
    text = resources.files(__package__).joinpath(SERVERS_FILE).read_text("utf-8")
    return tuple(KnownPort(int(s["port"]), str(s["names"])) for s in tomllib.loads(text)["server"])


def parse_ports(text: str) -> tuple[int, ...]:
    """``"11434, 1234"`` -> ``(11434, 1234)`` (``AIZAC_DISCOVER_PORTS``); empty: the usual ones.

    Raises:
        ValueError: an entry is not a port number.
    """
    if not text.strip():
        return tuple(k.port for k in known_ports())
    return port_numbers(text)


def names_at(port: int) -> str:
    """What usually listens on ``port`` ("" for a port of no known server)."""
    return next((k.names for k in known_ports() if k.port == port), "")


@dataclass(frozen=True)
class FoundModel:
    """A model a server listed: its id and the spec that uses it (``None`` when the id cannot
    be written as a spec, e.g. a file path starting with ``/`` or a name with spaces)."""

    model: str
    spec: str | None


@dataclass(frozen=True)
class FoundServer:
    """A server that answered on loopback.

    Attributes:
        port: where it answered.
        api: ``ollama`` (``/api/tags``) or ``openai`` (``/v1/models``).
        names: what usually listens on that port.
        models: what it listed (chat models; Ollama's embedding models are left out).
        needs_key: it answered 401/403: it wants an API key
            (``aizac models key openai-compatible``).
    """

    port: int
    api: Api
    names: str
    models: tuple[FoundModel, ...]
    needs_key: bool = False

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}"


# ----------------------------------------------------------------------------- wire formats
def parse_tags(body: Any) -> list[str]:
    """Model names of Ollama's ``GET /api/tags`` reply (``{"models": [{"name": ...}]}``)."""
    if not isinstance(body, dict) or not isinstance(body.get("models"), list):
        raise ValueError("not an Ollama model list")
    names = []
    for item in body["models"]:
        if isinstance(item, dict):
            name = item.get("name") or item.get("model")
            if isinstance(name, str) and name.strip():
                names.append(name.strip())
    return names


def parse_models(body: Any) -> list[str]:
    """Model ids of an OpenAI-compatible ``GET /v1/models`` reply (``{"data": [{"id": ...}]}``)."""
    if not isinstance(body, dict) or not isinstance(body.get("data"), list):
        raise ValueError("not an OpenAI model list")
    ids = []
    for item in body["data"]:
        if isinstance(item, dict) and isinstance(item.get("id"), str) and item["id"].strip():
            ids.append(item["id"].strip())
    return ids


def _is_embedding(name: str) -> bool:
    # Ollama lists its embedding models with the chat models; they cannot write.
    return "embed" in name.casefold()


def spec_for(api: Api, port: int, model: str, ollama_url: str = "") -> str | None:
    """The spec that uses ``model`` on the server at ``port``, or ``None`` if the id cannot be
    written as one (checked by parsing it back). An Ollama at the configured Ollama address
    is ``ollama:MODEL``; any other server ``openai-compatible:URL/v1:MODEL``."""
    from aizac.errors import ConfigError
    from aizac.llm.specs import parse_spec

    url = f"http://{LOOPBACK}:{port}"
    if api == "ollama" and _same_address(ollama_url, port):
        text = f"ollama:{model}"
    else:
        text = f"openai-compatible:{url}/v1:{model}"
    try:
        parsed = parse_spec(text, "AIZAC_PLANNER_MODEL")
    except ConfigError:
        return None
    return text if parsed.model == model else None


def _same_address(url: str, port: int) -> bool:
    bare = url.strip().rstrip("/").removeprefix("http://")
    return bare in (f"{LOOPBACK}:{port}", f"localhost:{port}")


# ----------------------------------------------------------------------------- probing
Fetch = Callable[[int, str, float], tuple[int, Any]]
"""``fetch(port, path, timeout) -> (status, parsed JSON body or None)``."""


def fetch_json(port: int, path: str, timeout: float) -> tuple[int, Any]:
    """``GET http://127.0.0.1:PORT/PATH`` without any proxy; ``(status, JSON or None)``.

    Raises:
        OSError: refused, reset or timed out.
    """
    conn = http.client.HTTPConnection(LOOPBACK, port, timeout=timeout)
    try:
        conn.request("GET", path, headers={"Accept": "application/json"})
        reply = conn.getresponse()
        raw = reply.read(MAX_BODY)
    except http.client.HTTPException as e:  # not HTTP at all: nothing we can use
        raise OSError(str(e)) from e
    finally:
        conn.close()
    try:
        return reply.status, json.loads(raw) if raw else None
    except (ValueError, UnicodeDecodeError):
        return reply.status, None


def probe(
    ports: Iterable[int],
    *,
    timeout: float = DEFAULT_TIMEOUT,
    ollama_url: str = "",
    fetch: Fetch = fetch_json,
) -> list[FoundServer]:
    """Ask every port for both listings at once; what answered by the deadline (``timeout``
    from now), one server per port (Ollama's own listing wins over its ``/v1`` one)."""
    asks = [(port, path) for port in dict.fromkeys(ports) for path in PATHS]
    answers: dict[tuple[int, str], tuple[int, Any]] = {}
    done = threading.Condition()

    def ask(port: int, path: str) -> None:
        try:
            got = fetch(port, path, timeout)
        except OSError:
            got = (0, None)
        with done:
            answers[(port, path)] = got
            done.notify_all()

    for port, path in asks:
        threading.Thread(target=ask, args=(port, path), daemon=True,
                         name=f"aizac-probe-{port}").start()
    deadline = time.monotonic() + timeout
    with done:
        while len(answers) < len(asks) and (left := deadline - time.monotonic()) > 0:
            done.wait(left)
        # in the asked order, not the order of answering: the numbers `aizac models` shows
        # must name the same models when `aizac models use N` searches again
        got = {ask: answers[ask] for ask in asks if ask in answers}
    return found_servers(got, ollama_url)


def found_servers(
    answers: dict[tuple[int, str], tuple[int, Any]], ollama_url: str = ""
) -> list[FoundServer]:
    """The servers in ``answers`` (``(port, path) -> (status, body)``), by port (pure)."""
    servers: list[FoundServer] = []
    for port in dict.fromkeys(p for p, _ in answers):
        found = _server(port, answers.get((port, OLLAMA_TAGS)), OLLAMA_TAGS, ollama_url) or (
            _server(port, answers.get((port, OPENAI_MODELS)), OPENAI_MODELS, ollama_url)
        )
        if found is not None:
            servers.append(found)
    return servers


def _server(
    port: int, answer: tuple[int, Any] | None, path: str, ollama_url: str
) -> FoundServer | None:
    if answer is None:
        return None
    status, body = answer
    api: Api = "ollama" if path == OLLAMA_TAGS else "openai"
    if status in (401, 403) and api == "openai" and isinstance(body, dict):
        return FoundServer(port, api, names_at(port), (), needs_key=True)
    if status != 200:
        return None
    try:
        ids = parse_tags(body) if api == "ollama" else parse_models(body)
    except ValueError:
        return None
    models = tuple(
        FoundModel(m, spec_for(api, port, m, ollama_url)) for m in ids if not _is_embedding(m)
    )
    return FoundServer(port, api, names_at(port), models)


def usable_specs(servers: Iterable[FoundServer]) -> list[str]:
    """Every spec the servers offer, in order (what ``aizac models use N`` numbers)."""
    return [m.spec for s in servers for m in s.models if m.spec]


# ----------------------------------------------------------------------------- in the background
class Discovery:
    """One search run in a daemon thread (the web app starts it and lists what it found later;
    start-up does not wait for it)."""

    def __init__(
        self,
        ports: Iterable[int],
        *,
        timeout: float = DEFAULT_TIMEOUT,
        ollama_url: str = "",
        fetch: Fetch = fetch_json,
    ) -> None:
        self.ports = tuple(ports)
        self.timeout = timeout
        self.ollama_url = ollama_url
        self._fetch = fetch
        self._found: list[FoundServer] | None = None
        self._done = threading.Event()
        self._thread: threading.Thread | None = None

    @classmethod
    def from_settings(cls, settings: Any, *, asked: bool = False) -> Discovery | None:
        """The search the settings describe; ``None`` when ``AIZAC_DISCOVER=false``, unless the
        writer ``asked`` for it (``aizac models use N``, the Models tab's "search again")."""
        if not (settings.discover or asked):
            return None
        return cls(parse_ports(settings.discover_ports), timeout=settings.discover_timeout,
                   ollama_url=settings.ollama_base_url)

    def start(self) -> Discovery:
        """Begin the search (once); returns at once."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, daemon=True,
                                            name="aizac-discovery")
            self._thread.start()
        return self

    def _run(self) -> None:
        try:
            self._found = probe(self.ports, timeout=self.timeout, ollama_url=self.ollama_url,
                                fetch=self._fetch)
        finally:
            self._done.set()

    def result(self, wait: float = 0.0) -> list[FoundServer] | None:
        """What was found, waiting at most ``wait`` seconds; ``None`` while still searching."""
        self._done.wait(wait)
        return list(self._found) if self._found is not None else None

    def wait(self) -> list[FoundServer]:
        """What was found, started now if it was not (at most the time limit, plus a little)."""
        self.start()
        return self.result(self.timeout + 0.5) or []
