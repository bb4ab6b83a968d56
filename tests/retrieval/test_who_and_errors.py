""""Who is X?" in Korean answers with X's memories; a rejected key is reported; a deeply
nested filter falls back instead of raising (issues 12 item 5, 10 item 3, 9 item 8)."""

from __future__ import annotations

import json

import httpx
import openai
import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from aizac.errors import ModelError
from aizac.llm.embeddings import HashingEmbeddings
from aizac.memory import WriterMemory
from aizac.retrieval.aliases import AliasResolver
from aizac.retrieval.self_query import build_self_query_retriever
from aizac.retrieval.who import who_question


@pytest.fixture
def jin() -> WriterMemory:
    mem = WriterMemory(embeddings=HashingEmbeddings(), threshold=1.0)
    mem.remember("진도준 — 주인공. 재벌가 막내로 회귀했다.", "Character", character_name="진도준",
                 pinned=True, chapter=0)
    mem.remember("진도준은 순양그룹 회장과 맞섰다.", "Character", character_name="진도준",
                 chapter=3)
    mem.remember("진양철 — 순양그룹 회장.", "Character", character_name="진양철", chapter=0)
    mem.remember("진도준과 진양철은 서로를 시험한다.", "CharacterRelation", character1="진도준",
                 character2="진양철", chapter=3)
    return mem


UNRELATED = "```json\n" + json.dumps({"query": "관계", "filter": 'eq("tag", '
                                      '"CharacterRelation")'}, ensure_ascii=False) + "\n```"


@pytest.mark.parametrize("question", [
    "진도준은 누구야?", "진도준이 누구지?", "진도준님은 누구예요?", "진도준 씨는 어떤 사람이야?",
    "도준이는 누구야?", "Who is 진도준?",
])
def test_who_is_question_answers_with_the_pinned_character_memory(
    jin: WriterMemory, question: str
) -> None:
    model = FakeListChatModel(responses=[UNRELATED])  # would answer with the relation
    retriever = build_self_query_retriever(jin, model)
    docs = retriever.invoke(question)
    assert docs, question
    assert docs[0].page_content.startswith("진도준 — 주인공")
    assert {d.metadata["character_name"] for d in docs} == {"진도준"}
    assert retriever.last_search.get("route") == "who"


@pytest.mark.parametrize("question", ["박서준은 누구야?", "Who is Lord Kestrel?", "陈默是谁？"])
def test_who_is_a_name_nobody_in_the_story_has_abstains(jin: WriterMemory, question: str) -> None:
    """Issue 23 item 9: "진도준은 누구야?" in a story without 진도준 returned five unrelated
    memories; memory that has nothing on a name says nothing (no model call)."""
    model = FakeListChatModel(responses=[UNRELATED])  # would answer with the relation
    retriever = build_self_query_retriever(jin, model)
    assert retriever.invoke(question) == []
    assert retriever.last_search.get("route") == "abstain" and model.i == 0


@pytest.mark.parametrize("question", ["박서준의 적은 누구야?", "Who is the duke?"])
def test_who_is_someone_described_still_goes_to_the_model(
    jin: WriterMemory, question: str
) -> None:
    retriever = build_self_query_retriever(jin, FakeListChatModel(responses=[UNRELATED]))
    docs = retriever.invoke(question)
    assert retriever.last_search.get("route") not in ("who", "abstain")
    assert all(d.metadata["tag"] == "CharacterRelation" for d in docs)


def test_who_question_pattern() -> None:
    assert who_question("진도준은 누구야?") == "진도준은"
    assert who_question("Who is Kang Mira?") == "Kang Mira"
    assert who_question("陈默是谁？") == "陈默"
    assert who_question("진도준은 어디에 있어?") is None


def test_particles_and_honorifics_resolve_to_the_character() -> None:
    resolver = AliasResolver({"진도준": ["도준"]})
    for name in ("진도준은", "진도준님", "진도준님은", "진도준 씨가", "진도준께서", "도준이가",
                 "진도준에게"):
        assert resolver.resolve(name) == "진도준", name
    assert resolver.resolve("진도") is None


class Rejected(FakeListChatModel):
    def _call(self, *args: object, **kwargs: object) -> str:
        request = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")
        response = httpx.Response(401, request=request, json={"error": {"message": "bad key"}})
        raise openai.AuthenticationError("bad key", response=response, body=None)


def test_a_rejected_key_is_reported_not_swallowed(jin: WriterMemory) -> None:
    retriever = build_self_query_retriever(jin, Rejected(responses=["unused"]))
    with pytest.raises(ModelError, match="refused the key") as info:
        retriever.invoke("진도준과 진양철의 관계는?")
    assert "AIZAC_EXTRACTOR_MODEL" in (info.value.hint or "")


def test_a_deeply_nested_filter_falls_back_instead_of_raising(jin: WriterMemory) -> None:
    deep = 'not(' * 400 + 'eq("tag", "Character")' + ')' * 400
    out = "```json\n" + json.dumps({"query": "진도준", "filter": deep}) + "\n```"
    retriever = build_self_query_retriever(jin, FakeListChatModel(responses=[out]))
    docs = retriever.invoke("진도준의 상태는?")
    assert retriever.last_fallback_reason is not None
    assert isinstance(docs, list)
