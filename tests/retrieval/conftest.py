from __future__ import annotations

from collections.abc import Iterator

import pytest

from aizac.llm.embeddings import HashingEmbeddings
from aizac.memory import WriterMemory


@pytest.fixture
def story() -> Iterator[tuple[WriterMemory, dict[str, str]]]:
    """A small in-memory serial: three characters, a changed relation, settings, a pin."""
    mem = WriterMemory(embeddings=HashingEmbeddings(), threshold=1.0)
    ids: dict[str, str] = {}
    ids["mira"] = mem.remember("Kang Mira is a swordswoman of the northern guild.", "Character",
                               character_name="Kang Mira", aliases=["강미라"], chapter=1)
    ids["youngmin"] = mem.remember("Lee Youngmin is an archivist who hides a royal seal.",
                                   "Character", character_name="Lee Youngmin",
                                   aliases=["이영민", "Young-min"], chapter=1)
    ids["jun"] = mem.remember("Seo Jun is a smuggler at Iron Harbour.", "Character",
                              character_name="Seo Jun", aliases=["서준"], chapter=1)
    ids["rel_old"] = mem.remember("Kang Mira and Lee Youngmin are old friends.",
                                  "CharacterRelation", character1="Lee Youngmin",
                                  character2="Kang Mira", chapter=1)
    ids["rel_mj"] = mem.remember("Kang Mira and Seo Jun are business partners.",
                                 "CharacterRelation", character1="Kang Mira",
                                 character2="Seo Jun", chapter=1)
    ids["gate"] = mem.remember("The Jade Gate is sealed at dusk by the city watch.",
                               "NovelSetting", keyword="Jade Gate", chapter=1)
    ids["omen"] = mem.remember("A cracked jade seal lies in the Moonwell; breaking it frees the "
                               "sea king.", "Story", keyword="cracked seal", pinned=True,
                               foreshadow=True, chapter=1)
    ids["trivia"] = mem.remember("At the Cinder Market, Seo Jun bought plum wine.", "Story",
                                 keyword="plum wine", chapter=1, strength=1.0)
    mem.advance(3)
    ids["rel_new"] = mem.supersede(ids["rel_old"], "Kang Mira and Lee Youngmin are bitter "
                                   "rivals since the archive fire.", chapter=4)
    mem.short_term.add("Mira found the archive burned.")
    mem.short_term.add("Youngmin blamed Mira for the fire.")
    try:
        yield mem, ids
    finally:
        mem.close()
