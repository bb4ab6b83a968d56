"""What a writer reads when the embeddings fail (issue 24 item 4): a temporary 503 from the
embeddings server says what happened, that nothing was saved and to try again; against a
loopback server speaking the OpenAI wire format."""

from __future__ import annotations

import pytest
from acceptance.openai_server import EMBEDDINGS, OpenAIServer, unavailable
from acceptance.openai_server import openai_server as openai_server  # the fixture
from langchain_openai import OpenAIEmbeddings

from aizac.errors import ModelError
from aizac.memory import WriterMemory
from aizac.settings import Settings
from aizac.text import describe


def _memory(server: OpenAIServer) -> WriterMemory:
    embeddings = OpenAIEmbeddings(model="test-embed", api_key="sk-test", base_url=server.base_url,
                                  check_embedding_ctx_length=False, max_retries=0)
    return WriterMemory(embeddings=embeddings, settings=Settings(memory_threshold=1.0))


def test_a_503_from_the_embeddings_server_says_nothing_was_saved_and_to_try_again(
    openai_server: OpenAIServer,
) -> None:
    mem = _memory(openai_server)
    mem.remember("Kang Mira is a swordswoman.", "Character", character_name="Kang Mira")
    openai_server.fault(unavailable(503, path=EMBEDDINGS))
    batch = mem.stage()
    batch.remember("Kang Mira lost her sword.", "Character", character_name="Kang Mira")
    with pytest.raises(ModelError) as info:
        batch.commit()
    error = info.value
    assert error.key == "error.llm.embedding_unavailable"
    assert "HTTP 503" in error.message and "nothing was saved" in error.message
    assert error.hint.startswith("Try again")
    assert len(mem) == 1  # nothing was written
    korean = describe(error, "ko")
    assert "저장된 것은 없습니다" in korean.message and "다시 시도하세요" in korean.hint
    batch = mem.stage()  # the server is back: the same write goes through
    batch.remember("Kang Mira lost her sword.", "Character", character_name="Kang Mira")
    assert batch.commit() and len(mem) == 2
    mem.close()


def test_a_rejected_key_is_not_a_moment_to_wait_out(openai_server: OpenAIServer) -> None:
    mem = _memory(openai_server)
    openai_server.fault(unavailable(401, path=EMBEDDINGS))
    with pytest.raises(ModelError) as info:
        mem.recall("who is Mira?")
    assert info.value.key == "error.llm.embedding_failed"
    assert "AIZAC_EMBEDDING" in info.value.hint and "Try again" not in info.value.hint
    mem.close()
