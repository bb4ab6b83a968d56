"""Fixtures for the model-layer tests: the scripted replay server (``llm_wire.py``) and the
OpenAI-compatible server with faults (``tests/acceptance/openai_server.py``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from acceptance.openai_server import openai_server
from llm_wire import WireServer

__all__ = ["openai_server", "wire"]


@pytest.fixture
def wire() -> Iterator[WireServer]:
    server = WireServer().start()
    yield server
    server.stop()
