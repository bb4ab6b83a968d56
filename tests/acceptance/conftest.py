"""Fixtures for the acceptance suite: the loopback OpenAI-compatible server, plain or telling a
Korean story (every aizac prompt answered with small, valid, distinct content)."""

from collections.abc import Iterator

import pytest

from acceptance.openai_server import OpenAIServer, openai_server
from acceptance.story import KoreanStory

__all__ = ["openai_server", "story_server"]


@pytest.fixture
def story_server() -> Iterator[OpenAIServer]:
    server = OpenAIServer(KoreanStory())
    server.start()
    yield server
    server.stop()
