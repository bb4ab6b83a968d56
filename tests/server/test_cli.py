"""``aizac users add/list`` (the admin's accounts) and ``aizac serve`` in a child process."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
import typer
from typer.testing import CliRunner

import aizac
from aizac.cli import serve


def cli() -> typer.Typer:
    app = typer.Typer()
    serve.register(app)
    return app


def test_users_add_then_login_with_signup_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                              ) -> None:
    monkeypatch.setenv("AIZAC_DATA_DIR", str(tmp_path / "data"))
    from aizac.settings import get_settings

    get_settings.cache_clear()
    runner = CliRunner()
    made = runner.invoke(cli(), ["users", "add", "지우", "--password-stdin"],
                         input="a long passphrase\n")
    assert made.exit_code == 0, made.output
    assert "created user 지우" in made.output
    again = runner.invoke(cli(), ["users", "add", "지우", "--password-stdin"],
                          input="another passphrase\n")
    assert again.exit_code == 1 and "taken" in again.output
    short = runner.invoke(cli(), ["users", "add", "kim", "--password-stdin"], input="short\n")
    assert short.exit_code == 1 and "password" in short.output
    listed = runner.invoke(cli(), ["users", "list"])
    assert listed.output.count("\n") == 1 and listed.output.startswith("지우\t")
    get_settings.cache_clear()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_aizac_serve_answers_on_loopback(tmp_path: Path) -> None:
    """A child ``aizac serve``: it says when it listens and when it is ready, ``/healthz`` and
    ``/readyz`` answer (without a ``server`` header naming the software), its log is JSON lines
    with request ids, SIGTERM stops it at once."""
    import json
    import signal
    import threading

    port = _free_port()
    env = {**os.environ, "AIZAC_DATA_DIR": str(tmp_path / "data"),
           "AIZAC_SERVER_SECRET_KEY": "child-secret", "AIZAC_SERVER_SIGNUP": "false",
           "AIZAC_SERVER_SHUTDOWN_TIMEOUT_S": "10",
           "PYTHONPATH": str(Path(aizac.__file__).resolve().parents[1])}
    code = ("import sys, typer; from aizac.cli import serve; app = typer.Typer(); "
            "serve.register(app); app(sys.argv[1:])")
    child = subprocess.Popen(
        [sys.executable, "-c", code, "serve", "--host", "127.0.0.1", "--port", str(port)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    said: list[str] = []
    logged: list[str] = []
    for stream, into in ((child.stdout, said), (child.stderr, logged)):
        threading.Thread(target=lambda s=stream, i=into: i.extend(iter(s.readline, "")),
                         daemon=True).start()
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 300  # a loaded 2-core machine: Gradio, the trope index
        while not any("ready on" in line for line in said):
            assert child.poll() is None, "".join(logged)[-3000:]
            assert time.monotonic() < deadline, "aizac serve never said it was ready"
            time.sleep(0.3)
        assert any("listening on" in line for line in said)
        health = httpx.get(f"{base}/healthz", timeout=5)
        assert health.json() == {"status": "ok"}
        assert "server" not in health.headers  # issue 38 item 7: no "server: uvicorn"
        ready = httpx.get(f"{base}/readyz", timeout=10)
        assert ready.status_code == 200 and set(ready.json()["checks"].values()) == {"ok"}
        reply = httpx.get(f"{base}/login", timeout=5)
        assert reply.status_code == 200 and "Sign up" not in reply.text  # sign-up is off
        assert httpx.get(f"{base}/api/v1/projects").status_code == 401
        ui = httpx.get(f"{base}/ui/", follow_redirects=False)
        assert ui.status_code == 303 and ui.headers["location"] == "/login"
        off = httpx.post(f"{base}/api/v1/auth/signup",
                         json={"name": "someone", "password": "a long passphrase"})
        assert off.status_code == 403 and off.json()["code"] == "error.server.signup_off"
        time.sleep(0.5)
        lines = [json.loads(line) for line in logged if line.startswith("{")]
        access = [x for x in lines if x.get("logger") == "aizac.server.access"]
        assert access and all(x["request_id"] != "-" and "status" in x for x in access)
        assert any(x.get("event") == "ready" for x in lines)
        child.send_signal(signal.SIGTERM)
        stopped = time.monotonic()
        child.wait(timeout=30)
        assert time.monotonic() - stopped < 15
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(timeout=30)
