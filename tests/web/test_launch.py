"""Serving the app when Gradio's own check of its URL times out on a busy machine."""

from __future__ import annotations

from pathlib import Path

import gradio as gr
import httpx
import pytest
from gradio import networking

from aizac.web.ui import LAUNCH_TRIES, launch
from tests.web.browser_kit import free_port


def _refused_first(times: int, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Gradio's self-check answers "not accessible" ``times`` times, then checks for real."""
    checked: list[str] = []
    real = networking.url_ok

    def url_ok(url: str) -> bool:
        checked.append(url)
        return False if len(checked) <= times else real(url)

    monkeypatch.setattr(networking, "url_ok", url_ok)
    return checked


def _blocks() -> gr.Blocks:
    with gr.Blocks() as app:
        gr.Markdown("served")
    return app


def test_a_launch_whose_self_check_timed_out_is_tried_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checked = _refused_first(LAUNCH_TRIES - 1, monkeypatch)
    app, port = _blocks(), free_port()
    launch(app, host="127.0.0.1", port=port, allowed_paths=[str(tmp_path)],
           prevent_thread_lock=True, quiet=True)
    try:
        assert len(checked) == LAUNCH_TRIES
        assert httpx.get(f"http://127.0.0.1:{port}/", timeout=30).status_code == 200
    finally:
        app.close()


def test_the_last_refusal_is_raised_and_nothing_stays_served(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checked = _refused_first(LAUNCH_TRIES, monkeypatch)
    app, port = _blocks(), free_port()
    with pytest.raises(ValueError, match="localhost is not accessible"):
        launch(app, host="127.0.0.1", port=port, allowed_paths=[str(tmp_path)],
               prevent_thread_lock=True, quiet=True)
    app.close()
    assert len(checked) == LAUNCH_TRIES
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"http://127.0.0.1:{port}/", timeout=5)
