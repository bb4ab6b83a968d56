from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from aizac.errors import InvalidInputError
from aizac.memory import WriterMemory
from aizac.retrieval.self_query import (
    MemoryVectorStore,
    asks_for_history,
    build_self_query_retriever,
    guess_tag,
)

Story = tuple[WriterMemory, dict[str, str]]


def answer(query: str, filt: str) -> str:
    return "```json\n" + json.dumps({"query": query, "filter": filt}, ensure_ascii=False) + "\n```"


def retriever_for(mem: WriterMemory, *outputs: str, **kwargs: Any):
    return build_self_query_retriever(mem, FakeListChatModel(responses=list(outputs)), **kwargs)


def ids_of(docs: list[Document]) -> list[str]:
    return [d.id or "" for d in docs]


def test_relation_question_returns_the_current_fact_only_and_reinforces_it(story: Story) -> None:
    mem, ids = story
    before = mem.get(ids["rel_new"]).strength
    # the model named the pair in reverse order, one of them by a Korean alias
    out = answer("relationship", 'and(eq("tag", "CharacterRelation"), '
                 'eq("character1", "이영민"), eq("character2", "Kang Mira"))')
    retriever = retriever_for(mem, out)
    docs = retriever.invoke("What is the relationship between Youngmin and Mira?")
    assert ids_of(docs) == [ids["rel_new"]]
    assert retriever.last_fallback_reason is None
    assert retriever.last_search["filter"]["$and"][0] == {"character1": {"$eq": "Kang Mira"}}
    assert mem.get(ids["rel_new"]).strength == before + 1
    assert docs[0].metadata["memory_factor"] == pytest.approx(10.0)


def test_history_question_includes_superseded_versions(story: Story) -> None:
    mem, ids = story
    out = answer("relationship", 'and(eq("tag", "CharacterRelation"), eq("character1", '
                 '"Mira"), eq("character2", "Youngmin"), eq("superseded", true))')
    docs = retriever_for(mem, out).invoke("How has Mira and Youngmin's relationship changed?")
    assert set(ids_of(docs)) == {ids["rel_old"], ids["rel_new"]}


def test_history_wording_alone_includes_superseded_versions(story: Story) -> None:
    mem, ids = story
    out = answer("relationship", 'and(eq("character1", "Mira"), eq("character2", "Youngmin"))')
    docs = retriever_for(mem, out).invoke("What was their relationship in the past?")
    assert set(ids_of(docs)) == {ids["rel_old"], ids["rel_new"]}


def test_unknown_field_falls_back_to_tag_and_similarity(story: Story) -> None:
    mem, ids = story
    out = answer("gate", 'and(eq("mood", "tense"), eq("tag", "NovelSetting"))')
    retriever = retriever_for(mem, out)
    docs = retriever.invoke("Where is the Jade Gate and what is its rule?")
    assert ids_of(docs) == [ids["gate"]]
    assert retriever.last_fallback_reason is not None and "mood" in retriever.last_fallback_reason
    assert retriever.fallbacks[-1].tag == "NovelSetting"


def test_unknown_character_falls_back_keeping_the_models_tag(story: Story) -> None:
    mem, ids = story
    out = answer("relationship", 'and(eq("tag", "CharacterRelation"), '
                 'eq("character1", "Park Sora"), eq("character2", "Mira"))')
    retriever = retriever_for(mem, out)
    docs = retriever.invoke("How does Sora get along with Mira?")
    record = retriever.fallbacks[-1]
    assert record.stage == "filter" and "Park Sora" in record.reason
    assert record.tag == "CharacterRelation"
    assert docs and all(d.metadata["tag"] == "CharacterRelation" for d in docs)
    assert ids["rel_old"] not in ids_of(docs)  # the fallback still hides superseded facts


def test_unparsable_model_output_never_raises(story: Story) -> None:
    mem, _ = story
    retriever = retriever_for(mem, "Sure! Here is what I think about the story.")
    docs = retriever.invoke("Tell me about Seo Jun")
    assert docs
    assert retriever.fallbacks[-1].stage == "parse"


def test_store_rejecting_the_filter_falls_back(story: Story) -> None:
    mem, _ = story

    class Picky(MemoryVectorStore):
        def similarity_search(self, query, k=5, filter=None, **kwargs):  # type: ignore[override]
            if filter and "pinned" in str(filter):
                raise ValueError("rejected")
            return super().similarity_search(query, k=k, filter=filter, **kwargs)

    retriever = retriever_for(mem, answer("seal", 'eq("pinned", true)'))
    retriever.vectorstore = Picky(mem)
    docs = retriever.invoke("What was foreshadowed about the cracked seal?")
    assert retriever.fallbacks[-1].stage == "search"
    assert docs


def test_time_filter_uses_the_current_turn(story: Story) -> None:
    mem, ids = story
    out = answer("relationship", 'and(eq("tag", "CharacterRelation"), lt("time", 1))')
    docs = retriever_for(mem, out).invoke("Which relations changed just now?")
    assert ids_of(docs) == [ids["rel_new"]]  # written at turn 3; the others at turn 0


def test_forgotten_memories_are_not_served(story: Story) -> None:
    mem, ids = story
    out = answer("plum wine", 'eq("tag", "Story")')
    docs = retriever_for(mem, out, reinforce=False).invoke("Who bought plum wine?")
    assert ids["trivia"] not in ids_of(docs)
    assert ids["omen"] in ids_of(docs)  # pinned: never forgotten


def test_async_path_falls_back_too(story: Story) -> None:
    import asyncio

    mem, _ = story
    retriever = retriever_for(mem, "not json")
    docs = asyncio.run(retriever.ainvoke("Tell me about the Jade Gate"))
    assert docs and retriever.fallbacks[-1].stage == "parse"


def test_vector_store_view_is_read_only(story: Story) -> None:
    mem, _ = story
    with pytest.raises(InvalidInputError):
        MemoryVectorStore(mem).add_texts(["x"])


def test_question_heuristics() -> None:
    assert asks_for_history("How has their relationship changed over time?")
    assert asks_for_history("두 사람의 과거 관계는?")
    assert not asks_for_history("What is their relationship now?")
    assert guess_tag("What is the relationship between A and B?") == "CharacterRelation"
    assert guess_tag("미라의 상태는?") == "Character"
    assert guess_tag("Where is the Jade Gate?") == "NovelSetting"
    assert guess_tag("Tell me a joke") is None


def test_history_of_a_pair_includes_faded_versions_newest_first(story: Story) -> None:
    mem, ids = story
    mem.advance(100)  # the old version has long faded; the current one too, unless recalled
    newest = mem.supersede(ids["rel_new"], "Kang Mira and Lee Youngmin are allies again.",
                           chapter=50)
    out = answer("relationship", 'and(eq("character1", "Mira"), eq("character2", "Youngmin"), '
                 'eq("superseded", true))')
    docs = retriever_for(mem, out).invoke("How has their relationship changed over time?")
    assert ids_of(docs) == [newest, ids["rel_new"], ids["rel_old"]]


def test_is_keyed() -> None:
    from aizac.retrieval.self_query import is_keyed

    assert is_keyed({"$and": [{"character1": {"$eq": "A"}}, {"character2": {"$eq": "B"}}]})
    assert is_keyed({"character_name": {"$eq": "A"}})
    assert not is_keyed({"tag": {"$eq": "Story"}})
    assert not is_keyed({"$or": [{"character1": {"$eq": "A"}}, {"character2": {"$eq": "A"}}]})


def test_failed_model_call_falls_back_with_its_own_stage(story: Story) -> None:
    from langchain_core.language_models.fake_chat_models import FakeListChatModel as Fake

    class Down(Fake):
        def _call(self, *args: object, **kwargs: object) -> str:
            raise ConnectionError("provider unreachable")

    mem, ids = story
    retriever = build_self_query_retriever(mem, Down(responses=["unused"]))
    docs = retriever.invoke("Where is the Jade Gate?")
    assert retriever.fallbacks[-1].stage == "model"
    assert "provider unreachable" in retriever.fallbacks[-1].reason
    assert ids_of(docs) == [ids["gate"]]
