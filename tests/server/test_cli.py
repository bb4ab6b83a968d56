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
    port = _free_port()
    env = {**os.environ, "AIZAC_DATA_DIR": str(tmp_path / "data"),
           "AIZAC_SERVER_SECRET_KEY": "child-secret", "AIZAC_SERVER_SIGNUP": "false",
           "PYTHONPATH": str(Path(aizac.__file__).resolve().parents[1])}
    code = ("import sys, typer; from aizac.cli import serve; app = typer.Typer(); "
            "serve.register(app); app(sys.argv[1:])")
    child = subprocess.Popen(
        [sys.executable, "-c", code, "serve", "--host", "127.0.0.1", "--port", str(port)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 300  # a loaded 2-core machine: Gradio, the trope index
        while True:
            try:
                reply = httpx.get(f"http://127.0.0.1:{port}/login", timeout=2)
                break
            except httpx.TransportError:
                assert child.poll() is None, child.stdout.read().decode() if child.stdout else ""
                assert time.monotonic() < deadline, "aizac serve did not answer in 300 s"
                time.sleep(0.5)
        assert reply.status_code == 200 and "Sign up" not in reply.text  # sign-up is off
        assert httpx.get(f"http://127.0.0.1:{port}/api/v1/projects").status_code == 401
        ui = httpx.get(f"http://127.0.0.1:{port}/ui/", follow_redirects=False)
        assert ui.status_code == 303 and ui.headers["location"] == "/login"
        off = httpx.post(f"http://127.0.0.1:{port}/api/v1/auth/signup",
                         json={"name": "someone", "password": "a long passphrase"})
        assert off.status_code == 403
    finally:
        child.terminate()
        child.wait(timeout=30)
