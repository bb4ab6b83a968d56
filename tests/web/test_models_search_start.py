"""The web app's start-up asks loopback for the writer's model servers and never waits for an
answer (issue 30): a hung port costs the build nothing; the Models tab shows what answered when
it is opened or refreshed."""

from __future__ import annotations

import time
from typing import Any

import pytest
from acceptance.listing_servers import SilentServer

from aizac.llm.discovery import Discovery
from aizac.web.app import create_app
from aizac.writer.service import Studio


def test_the_build_starts_the_search_and_never_waits_for_it(
    studio: Studio, monkeypatch: pytest.MonkeyPatch
) -> None:
    silent = SilentServer(delay=30.0).start()  # a port that accepts and never answers in time
    try:
        studio.settings = studio.settings.model_copy(update={
            "discover": True, "discover_ports": str(silent.port), "discover_timeout": 10.0})
        started: list[Discovery] = []
        waits: list[float] = []
        start, result = Discovery.start, Discovery.result

        def starting(self: Discovery) -> Discovery:
            started.append(self)
            return start(self)

        def asking(self: Discovery, wait: float = 0.0) -> Any:
            waits.append(wait)
            return result(self, wait)

        monkeypatch.setattr(Discovery, "start", starting)
        monkeypatch.setattr(Discovery, "result", asking)
        create_app(studio)
        assert [s.ports for s in started] == [(silent.port,)]  # asked at start-up
        assert all(w == 0 for w in waits), waits  # and nothing in the build waited for it
        deadline = time.monotonic() + 10.0
        while not silent.requests and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [(r.method, r.path) for r in silent.requests][:1] in (
            [("GET", "/api/tags")], [("GET", "/v1/models")])  # the hung port was asked
        assert all(r.peer.startswith("127.0.0.1:") for r in silent.requests)
    finally:
        silent.stop()
