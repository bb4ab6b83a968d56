"""Fixtures for the model-layer tests (the server itself lives in ``llm_wire.py``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from llm_wire import WireServer


@pytest.fixture
def wire() -> Iterator[WireServer]:
    server = WireServer().start()
    yield server
    server.stop()
