"""The API contract, checked by a tool nobody here wrote: Schemathesis runs ``--checks all``
against ``/openapi.json`` of a real ``aizac serve`` app on loopback (uvicorn in this process,
scripted models), bounded in examples and time, with no network. Its own configuration
(``schemathesis.toml`` beside this file) lists the few rules a JSON schema cannot express."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from tests.server.conftest import PASSWORD
from tests.web.browser_kit import free_port

pytestmark = pytest.mark.timeout(900)
CONFIG = Path(__file__).with_name("schemathesis.toml")
MAX_EXAMPLES = 12
MAX_TIME_S = 240


PYDANTIC_ONLY = {"ge", "le", "gt", "lt", "min_length", "max_length", "multiple_of"}


def test_every_bound_is_said_in_json_schema_words(make_app: Callable[..., FastAPI]) -> None:
    """A bound pydantic keeps on an optional field reached the schema as its own key ("ge")
    that no client reads: Schemathesis sent ``last: -13329`` as valid and got 422."""
    leaks: list[str] = []

    def walk(node: object, where: str) -> None:
        if isinstance(node, dict):
            leaks.extend(f"{where}/{key}" for key in PYDANTIC_ONLY & set(node))
            for key, value in node.items():
                walk(value, f"{where}/{key}")
        elif isinstance(node, list):
            for n, value in enumerate(node):
                walk(value, f"{where}[{n}]")

    document = make_app().openapi()
    walk(document, "")
    assert leaks == []
    last = document["components"]["schemas"]["ExportIn"]["properties"]["last"]["anyOf"][0]
    assert (last["minimum"], last["maximum"]) == (1, 100_000)


def test_every_model_route_may_answer_502_in_the_run(make_app: Callable[..., FastAPI]) -> None:
    """A route that calls the model documents 502 (the quality check refused the reply); the
    run's configuration must allow it there, or a new model route fails the run at random
    (``beats/plan`` did, on the reply the scripted model wrote in the wrong script)."""
    import re
    import tomllib

    config = tomllib.loads(CONFIG.read_text(encoding="utf-8"))
    allowed = [re.compile(op["include-path-regex"]) for op in config["operations"]
               if "502" in op.get("checks", {}).get("not_a_server_error", {})
               .get("expected-statuses", [])]
    document = make_app().openapi()
    model_routes = [f"{verb.upper()} {path}" for path, verbs in document["paths"].items()
                    for verb, op in verbs.items() if "502" in op.get("responses", {})]
    assert len(model_routes) >= 7
    unlisted = [r for r in model_routes if not any(a.search(r.split()[1]) for a in allowed)]
    assert unlisted == []


@pytest.mark.parametrize("name", ["sÊ", "한서아", "Mina_Kang.2", "𝐀b", " mina ", "a/b", "_a",
                                  "a b", "x", "a" * 41])
def test_the_documented_user_name_reads_alike_in_every_engine(
    make_app: Callable[..., FastAPI], name: str
) -> None:
    """JSON Schema reads a pattern as an ECMAScript regex (\\w is ASCII there): every name the
    server takes, the document must take as its readers read it, or a client (and Schemathesis)
    calls a Korean or accented name invalid that the server signs up ("sÊ": ST201)."""
    import re

    import jsonschema_rs

    from aizac.server.models import USER_NAME

    document = make_app().openapi()
    ref = document["paths"]["/api/v1/auth/signup"]["post"]["requestBody"]["content"][
        "application/json"]["schema"]["$ref"].split("/")[-1]
    pattern = document["components"]["schemas"][ref]["properties"]["name"]["pattern"]
    server = bool(re.search(USER_NAME, name))
    assert jsonschema_rs.validator_for({"type": "string", "pattern": pattern}).is_valid(name) \
        is server, name


@pytest.mark.parametrize("name", ["üt4", "한서아", "Ünïcode novel", "novel-2_b", "a.b", "a..b",
                                  "_x", "a/b", "x."])
def test_the_documented_project_name_reads_alike_in_every_engine(
    make_app: Callable[..., FastAPI], name: str
) -> None:
    """CI's stateful Schemathesis run: POST /api/v1/projects took "üt4", which the document's
    pattern refused as its readers read it (ST201); the project name is documented as the
    user name is."""
    import re

    import jsonschema_rs

    from aizac.server.models import PROJECT_NAME

    document = make_app().openapi()
    ref = document["paths"]["/api/v1/projects"]["post"]["requestBody"]["content"][
        "application/json"]["schema"]["$ref"].split("/")[-1]
    pattern = document["components"]["schemas"][ref]["properties"]["name"]["pattern"]
    server = bool(re.search(PROJECT_NAME, name))
    assert jsonschema_rs.validator_for({"type": "string", "pattern": pattern}).is_valid(name) \
        is server, name


def test_no_documented_pattern_uses_a_class_the_engines_read_apart(
        make_app: Callable[..., FastAPI]) -> None:
    """\\w, \\W and \\d are ASCII to the document's readers and Unicode to the server."""
    import json

    text = json.dumps(make_app().openapi())
    assert not [c for c in ("\\\\w", "\\\\W", "\\\\d", "\\\\D") if c in text]


@pytest.fixture
def served(make_app: Callable[..., FastAPI]) -> Iterator[str]:
    import uvicorn

    app = make_app(max_projects=10_000, signup_attempts=100_000, login_attempts=100_000,
                   login_attempts_per_address=100_000, login_attempts_per_name=100_000,
                   max_tokens_per_user=1_000, max_generations_per_user=8, max_generations=8)
    app.state.aizac.accounts.add_user("mina", PASSWORD, role="admin")
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           log_level="critical"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(30)


def test_schemathesis_checks_all_pass(served: str, tmp_path: Path) -> None:
    base = served
    with httpx.Client(base_url=base, headers={"Origin": base}, timeout=120) as c:
        assert c.post("/api/v1/auth/login", json={"name": "mina", "password": PASSWORD}
                      ).status_code == 200
        cookie = c.cookies["aizac_session"]
        c.post("/api/v1/projects", json={"name": "novel", "keywords": "ring"})
        c.post("/api/v1/projects/novel/plot/generate")
    command = [
        sys.executable, "-m", "schemathesis.cli", "--config-file", str(CONFIG), "run",
        f"{base}/openapi.json", "--checks", "all", "--max-examples", str(MAX_EXAMPLES),
        "--max-time", str(MAX_TIME_S), "--seed", "21", "--no-color",
        "-H", f"Origin: {base}",  # the signed-in browser's page (its cookie: the config)
        # operations that would end the credentials the run itself uses (an admin it made
        # may disable or delete the run's own admin; test_lifecycle covers these)
        "--exclude-name", "PATCH /api/v1/admin/users/{user_id}",
        "--exclude-name", "DELETE /api/v1/admin/users/{user_id}",
        "--exclude-name", "DELETE /api/v1/auth/sessions",
        # signing up or in from a signed-in browser replaces its session (checked apart below)
        "--exclude-name", "POST /api/v1/auth/signup", "--exclude-name", "POST /api/v1/auth/login",
        "--exclude-name", "POST /api/v1/auth/logout",
        "--exclude-name", "PUT /api/v1/admin/users/{user_id}/password",
        "--exclude-name", "DELETE /api/v1/admin/users/{user_id}/sessions",
        "--report", "junit", "--report-dir", str(tmp_path),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=MAX_TIME_S + 240,
                          cwd=tmp_path, env={**os.environ, "AIZAC_ST_SESSION": cookie})
    summary = "\n".join(line[:300] for line in done.stdout.splitlines()[-80:])
    print(summary)
    assert done.returncode == 0, summary + _failures(tmp_path)
    assert "Tested: " in done.stdout
    # The run was signed in: only routes that refuse by design (a wrong current password is
    # 403) may answer nothing but 401/403.
    import re

    refused = re.search(r"Authentication failed: (\d+) operation", done.stdout)
    assert refused is None or int(refused.group(1)) <= 3, summary


def test_schemathesis_on_the_public_routes(served: str, tmp_path: Path) -> None:
    """Sign-up, log-in and log-out without a session (they start and end sessions)."""
    command = [
        sys.executable, "-m", "schemathesis.cli", "--config-file", str(CONFIG), "run",
        f"{served}/openapi.json", "--checks", "all", "--max-examples", str(MAX_EXAMPLES),
        "--max-time", "90", "--seed", "21", "--no-color", "-H", f"Origin: {served}",
        "--include-name", "POST /api/v1/auth/signup", "--include-name", "POST /api/v1/auth/login",
        "--include-name", "POST /api/v1/auth/logout", "--include-name", "GET /healthz",
        "--report", "junit", "--report-dir", str(tmp_path),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=400, cwd=tmp_path,
                          env={**os.environ, "AIZAC_ST_SESSION": "none"})
    summary = "\n".join(line[:300] for line in done.stdout.splitlines()[-60:])
    assert done.returncode == 0, summary + _failures(tmp_path)


def _failures(folder: Path) -> str:
    import xml.etree.ElementTree as ET

    out = []
    for report in folder.glob("*.xml"):
        for case in ET.parse(report).getroot().iter("testcase"):
            for failure in case:
                if failure.tag in ("failure", "error"):
                    text = "\n".join(x[:200] for x in (failure.text or "").splitlines()[:14])
                    out.append(f"== {case.get('name')}\n{text}")
    return "\n" + "\n".join(out[:30])
