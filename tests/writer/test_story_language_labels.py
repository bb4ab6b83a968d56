"""What the pipeline writes in the story's language carries that language's labels (issue 23
item 7: "Goal:" inside a Korean character's memory; the extraction prompt's beat in English
labels): a new character's memory and the beat an extraction prompt shows."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from aizac.llm.embeddings import HashingEmbeddings
from aizac.memory import WriterMemory
from aizac.memory.references import Offer
from aizac.settings import Settings
from aizac.writer import combined, extraction
from aizac.writer.prompt_words import prompt_words
from aizac.writer.prompts import PromptLibrary
from aizac.writer.schemas import CharacterProfile, NovelBeat


@pytest.fixture
def mem() -> Iterator[WriterMemory]:
    memory = WriterMemory(embeddings=HashingEmbeddings(), settings=Settings())
    yield memory
    memory.close()


BEAT = NovelBeat(episode=1, index=1, location="성문 앞", time="밤", characters=["한서아"],
                 events=["한서아가 성문을 연다"], emotions=["결의"])


@pytest.mark.parametrize("language", ["ko", "zh", "en"])
def test_a_new_characters_memory_reads_in_the_story_language(
    mem: WriterMemory, language: str
) -> None:
    profile = CharacterProfile(name="한서아", role="검사", profile="왕도의 검사",
                               goal="복수를 끝낸다")
    batch, _ = extraction.stage(mem, extraction.Extracted(), BEAT, new_characters=[profile],
                                language=language)
    batch.commit()
    text = next(h.text for h in mem.all() if h.tag == "Character")
    assert prompt_words(language).labels["goal"] + "복수를 끝낸다" in text
    if language != "en":
        assert "Goal" not in text


class _Capture:
    """A router that keeps the messages it was sent and answers nothing."""

    def __init__(self) -> None:
        self.sent: list[Any] = []

    async def astructured(self, role: str, schema: Any, messages: Any, **kw: Any) -> Any:
        self.sent = list(messages)
        raise RuntimeError("captured")


def test_the_combined_extraction_shows_the_beat_with_the_story_languages_labels() -> None:
    router = _Capture()
    with pytest.raises(RuntimeError, match="captured"):
        asyncio.run(combined.extract_combined(router, BEAT, offer=Offer(), language="ko",
                                              prompts=PromptLibrary()))  # type: ignore[arg-type]
    text = "\n".join(str(m.content) for m in router.sent)
    assert prompt_words("ko").labels["emotions"] + "결의" in text
    assert prompt_words("en").labels["emotions"] not in text
