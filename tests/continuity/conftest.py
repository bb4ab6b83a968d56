"""Fixtures for the continuity tests: a real in-memory WriterMemory with a small Korean canon."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from aizac.llm.embeddings import HashingEmbeddings
from aizac.memory import WriterMemory
from aizac.settings import Settings


@dataclass
class Seeded:
    mem: WriterMemory
    ids: dict[str, str]


def _settings() -> Settings:
    return Settings(memory_threshold=1.0, strength_story=10.0, strength_character=30.0,
                    strength_relation=20.0, strength_setting=40.0, short_term_tokens=64)


@pytest.fixture
def mem() -> Iterator[WriterMemory]:
    memory = WriterMemory(embeddings=HashingEmbeddings(), settings=_settings())
    yield memory
    memory.close()


@pytest.fixture
def seeded(mem: WriterMemory) -> Seeded:
    """진도준 (the regressor, pinned), 강미라 (now in Busan, now his enemy), 박철수 (dead)."""
    ids: dict[str, str] = {}
    with mem.stage() as b:
        b.remember("진도준 — 주인공. 회귀한 재벌가 막내", "Character", character_name="진도준",
                   aliases=["도준"], chapter=0)
        b.remember("강미라 — 진도준의 동료 기자", "Character", character_name="강미라", chapter=0)
        b.remember("박철수 — 순양그룹의 해결사", "Character", character_name="박철수", chapter=0)
        ids["friends"] = b.remember("진도준과 강미라는 친구다", "CharacterRelation",
                                    character1="진도준", character2="강미라", chapter=1)
        ids["pin"] = b.remember("진도준은 회귀자다", "Story", chapter=1, pinned=True)
    with mem.stage() as b:
        ids["dead"] = str(b.note("박철수는 화재로 사망했다", "Character", character_name="박철수",
                                 aspect="condition", chapter=2))
        ids["enemies"] = str(b.note("진도준과 강미라는 원수가 되었다", "CharacterRelation",
                                    character1="진도준", character2="강미라", chapter=2))
        ids["busan"] = str(b.note("강미라는 부산 본가에 머물고 있다", "Character",
                                  character_name="강미라", aspect="whereabouts", chapter=2))
    mem.advance(4)
    return Seeded(mem, ids)
