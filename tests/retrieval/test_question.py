"""The structured (small-model) query-constructor strategy: schema, conversion, retriever use."""

from __future__ import annotations

import asyncio
import importlib.util
import json
from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.structured_query import (
    Comparator,
    Comparison,
    Operation,
    Operator,
    StructuredQuery,
)
from pydantic import ValidationError

from aizac.errors import InvalidInputError
from aizac.llm.methods import schema_instruction
from aizac.llm.providers.local import ChatLocalLlama
from aizac.llm.router import ModelRouter
from aizac.memory import WriterMemory
from aizac.retrieval.question import (
    EXAMPLES,
    MemoryQuestion,
    grounded_name,
    in_question,
    question_messages,
    structured_query_constructor,
    to_structured_query,
)
from aizac.retrieval.self_query import build_self_query_retriever, choose_strategy
from aizac.retrieval.translator import MemoryFilterTranslator
from aizac.settings import Settings
from aizac.tokens import count_tokens

Story = tuple[WriterMemory, dict[str, str]]


def fields(**overrides: Any) -> str:
    """A MemoryQuestion reply as JSON text (defaults: nothing asked)."""
    base: dict[str, Any] = {"about": "any", "characters": [], "keyword": "",
                            "history": False, "recent_turns": None}
    return json.dumps({**base, **overrides}, ensure_ascii=False)


def ask(**overrides: Any) -> MemoryQuestion:
    return MemoryQuestion.model_validate_json(fields(**overrides))


def eq(field: str, value: Any) -> Comparison:
    return Comparison(comparator=Comparator.EQ, attribute=field, value=value)


def structured(mem: WriterMemory, *replies: str, **kwargs: Any):
    model = FakeListChatModel(responses=list(replies))
    return build_self_query_retriever(mem, model, strategy="structured", **kwargs), model


def ids_of(docs: list[Document]) -> list[str]:
    return [d.id or "" for d in docs]


# --------------------------------------------------------------------------- pure conversion
def test_relation_pair_becomes_tag_and_both_sides() -> None:
    sq = to_structured_query(ask(about="relationship",
                                 characters=["Mira", "이영민"]),
                             "What is the relationship between 이영민 and Mira?")
    assert sq.query == "What is the relationship between 이영민 and Mira?"
    assert sq.filter == Operation(operator=Operator.AND, arguments=[
        eq("tag", "CharacterRelation"), eq("character1", "Mira"), eq("character2", "이영민")])


def test_character_state_uses_character_name_and_two_names_use_in() -> None:
    one = to_structured_query(ask(about="character", characters=["Seo Jun"]), "How is Jun?")
    assert one.filter == Operation(operator=Operator.AND, arguments=[
        eq("tag", "Character"), eq("character_name", "Jun")])  # the question's words only
    assert one.query == "How is Jun?"  # the question is the search text
    two = to_structured_query(ask(about="character", characters=["Jun", "Mira"]),
                              "How are Jun and Mira?")
    assert isinstance(two.filter, Operation)
    assert two.filter.arguments[1] == Comparison(
        comparator=Comparator.IN, attribute="character_name", value=["Jun", "Mira"])


def test_names_of_events_and_unsure_questions_only_join_the_search_text() -> None:
    sq = to_structured_query(ask(about="event", characters=["Seo Jun"],
                                 keyword="plum wine"), "Did Seo Jun buy plum wine at the market?")
    assert sq.filter == eq("tag", "Story")
    assert sq.query == "Did Seo Jun buy plum wine at the market? plum wine Seo Jun"
    anything = to_structured_query(ask(characters=["Mira", "mira "]),
                                   "Who is Mira?")
    assert anything.filter is None and anything.query == "Who is Mira? Mira"


def test_foreshadowing_history_and_recent_become_clauses() -> None:
    sq = to_structured_query(ask(keyword="Seal", about="foreshadowed",
                                 history=True, recent_turns=3), "What about the seal lately?")
    assert sq.query == "What about the seal lately? Seal"  # the keyword weighs more
    assert sq.filter == Operation(operator=Operator.AND, arguments=[
        eq("pinned", True), eq("superseded", True),
        Comparison(comparator=Comparator.LT, attribute="time", value=3)])


def test_values_the_question_does_not_contain_are_dropped() -> None:
    # a small model copying its few-shot example: "Sora", "golden bell"
    sq = to_structured_query(ask(about="relationship",
                                 characters=["Sora", "Lee Youngmin"], keyword="golden bell"),
                             "Who is Youngmin to Mira?")
    assert sq.query == "Who is Youngmin to Mira?"  # the made-up keyword is not added
    assert sq.filter == Operation(operator=Operator.AND, arguments=[
        eq("tag", "CharacterRelation"), eq("character1", "Youngmin")])
    assert grounded_name("Choi Jaeha", "What is Cho Jaeha's state?") == "Jaeha"
    assert grounded_name("이영민", "이영민과 강미라의 관계는?") == "이영민"
    assert not in_question("", "anything", every_word=True)
    assert in_question("Lee Young-min", "이영민 or youngmin?", every_word=False)
    assert not in_question("cracked bell", "the cracked seal", every_word=True)


def test_converted_queries_translate_with_the_memory_translator() -> None:
    translator = MemoryFilterTranslator(current_turn=10)
    _, kwargs = translator.visit_structured_query(to_structured_query(
        ask(about="relationship", characters=["Bo", "Al"], history=True, recent_turns=4),
        "How did Al and Bo change lately?"))
    assert kwargs == {
        "filter": {"$and": [{"character1": {"$eq": "Al"}}, {"character2": {"$eq": "Bo"}},
                            {"tag": {"$eq": "CharacterRelation"}}, {"last_turn": {"$gt": 6}}]},
        "include_superseded": True,
    }


def test_schema_is_closed_and_bounded() -> None:
    schema = MemoryQuestion.model_json_schema()
    assert schema["additionalProperties"] is False
    assert "title" not in json.dumps(schema)
    props = schema["properties"]
    assert props["characters"]["maxItems"] == 2 and props["characters"]["items"]["maxLength"]
    assert props["keyword"]["maxLength"] and props["recent_turns"]["anyOf"][0]["maximum"]
    assert set(props["about"]["enum"]) == {"relationship", "character", "place_or_thing",
                                           "event", "foreshadowed", "any"}
    with pytest.raises(ValidationError):
        MemoryQuestion.model_validate_json(fields(mood="tense"))
    with pytest.raises(ValidationError):
        MemoryQuestion.model_validate_json(fields(characters=["A", "B", "C"]))


def test_prompt_fits_a_small_context_and_ends_with_the_question() -> None:
    messages = question_messages("What is Kang Minji's current state?")
    assert messages[-1].text == "What is Kang Minji's current state?"
    assert len(messages) == 2 + 2 * len(EXAMPLES)
    prompt = "\n".join(m.text for m in messages)
    prompt += schema_instruction(MemoryQuestion.model_json_schema())
    assert count_tokens(prompt) < 1500  # the local model's context is 4096 tokens


# --------------------------------------------------------------------------- strategy choice
def test_auto_picks_structured_only_for_the_local_model(tmp_path: Any) -> None:
    local = ChatLocalLlama(model_path=str(tmp_path / "m.gguf"))  # not loaded until called
    fake = FakeListChatModel(responses=["x"])
    assert choose_strategy(local) == "structured"
    assert choose_strategy(local.bind(max_tokens=64)) == "structured"
    assert choose_strategy(fake) == "langchain"
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    routed_local = ModelRouter(settings, models={"extractor": local}).model("extractor")
    routed_fake = ModelRouter(settings, models={"extractor": fake}).model("extractor")
    assert choose_strategy(routed_local) == "structured"
    assert choose_strategy(routed_fake) == "langchain"


def test_default_strategy_keeps_the_langchain_path(story: Story) -> None:
    mem, _ = story
    retriever = build_self_query_retriever(mem, FakeListChatModel(responses=["x"]))
    assert retriever.strategy == "langchain"
    with pytest.raises(InvalidInputError):
        build_self_query_retriever(mem, FakeListChatModel(responses=["x"]),
                                   strategy="fancy")  # type: ignore[arg-type]


# --------------------------------------------------------------------------- through the retriever
def test_pair_question_in_any_order_and_alias_returns_the_current_relation(story: Story) -> None:
    mem, ids = story
    retriever, _ = structured(mem, fields(about="relationship",
                                          characters=["이영민", "Kang Mira"]))
    docs = retriever.invoke("What is the relationship between 이영민 and Mira?")
    assert retriever.strategy == "structured" and retriever.last_fallback_reason is None
    assert ids_of(docs) == [ids["rel_new"]]
    assert retriever.last_search["filter"]["$and"][0] == {"character1": {"$eq": "Kang Mira"}}


def test_history_flag_serves_superseded_versions(story: Story) -> None:
    mem, ids = story
    retriever, _ = structured(mem, fields(about="relationship",
                                          characters=["Mira", "Youngmin"], history=True))
    docs = retriever.invoke("What did Mira and Youngmin use to be to each other?")
    assert set(ids_of(docs)) == {ids["rel_old"], ids["rel_new"]}
    assert retriever.last_search["include_superseded"] is True


def test_character_state_and_pinned_questions(story: Story) -> None:
    mem, ids = story
    retriever, _ = structured(
        mem,
        fields(about="character", characters=["서준"]),
        fields(keyword="cracked seal", about="foreshadowed"),
    )
    assert ids_of(retriever.invoke("서준은 요즘 어때?")) == [ids["jun"]]
    docs = retriever.invoke("What was foreshadowed about the cracked seal?")
    assert ids_of(docs) == [ids["omen"]]
    assert retriever.fallbacks == []


def test_unknown_character_falls_back_with_a_reason_and_the_models_tag(story: Story) -> None:
    mem, ids = story
    retriever, _ = structured(mem, fields(about="relationship",
                                          characters=["Park Sora", "Mira"]))
    docs = retriever.invoke("How does Sora get along with Mira?")
    record = retriever.fallbacks[-1]
    assert record.stage == "filter" and "'Sora'" in record.reason
    assert record.tag == "CharacterRelation"
    assert docs and ids["rel_old"] not in ids_of(docs)


def test_invalid_output_is_retried_with_the_error(story: Story) -> None:
    mem, ids = story
    retriever, model = structured(
        mem,
        "Sure, here you go!",
        fields(about="character", characters=["Seo Jun"], mood="calm"),
        fields(about="character", characters=["Seo Jun"]),
    )
    docs = retriever.invoke("How is Seo Jun?")
    assert model.i == 0  # all three replies were used (the fake's index wrapped around)
    assert retriever.fallbacks == [] and ids_of(docs) == [ids["jun"]]


def test_output_still_invalid_after_retries_falls_back_without_raising(story: Story) -> None:
    mem, ids = story
    retriever, _ = structured(mem, "no", fields(about="place"), retries=1)
    docs = retriever.invoke("Where is the Jade Gate?")
    record = retriever.fallbacks[-1]
    assert record.stage == "parse" and "MemoryQuestion" in record.reason
    assert record.tag == "NovelSetting"  # guessed from the wording
    assert ids_of(docs) == [ids["gate"]]


def test_failed_model_call_falls_back_on_the_structured_path(story: Story) -> None:
    class Down(FakeListChatModel):
        def _call(self, *args: object, **kwargs: object) -> str:
            raise ConnectionError("provider unreachable")

    mem, ids = story
    retriever = build_self_query_retriever(mem, Down(responses=["x"]), strategy="structured")
    docs = retriever.invoke("Where is the Jade Gate?")
    assert retriever.fallbacks[-1].stage == "model"
    assert ids_of(docs) == [ids["gate"]]


def test_async_structured_path(story: Story) -> None:
    mem, ids = story
    retriever, _ = structured(mem, fields(about="place_or_thing",
                                          keyword="Jade Gate"))
    docs = asyncio.run(retriever.ainvoke("What is the rule of the Jade Gate?"))
    assert ids_of(docs) == [ids["gate"]] and retriever.fallbacks == []


# --------------------------------------------------------------------------- the real model
HAVE_LLAMA = importlib.util.find_spec("xllamacpp") is not None


@pytest.mark.local_model
@pytest.mark.skipif(not HAVE_LLAMA, reason="xllamacpp is not installed")
def test_local_model_output_always_becomes_a_structured_query() -> None:
    from aizac.llm.providers.local import local_status, resolve_model_path

    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    usable, reason = local_status(settings)
    if not usable:
        pytest.skip(reason)
    model = ChatLocalLlama(model_path=str(resolve_model_path(settings)), max_tokens=160,
                           temperature=0.0)
    constructor = structured_query_constructor(model, retries=1)
    for question in ("What is the relationship between Kang Minji and Seo Jun now?",
                     "What is Park Haeun's current state?",
                     "What was foreshadowed early about the silver mask?"):
        sq = constructor.invoke({"query": question})
        assert isinstance(sq, StructuredQuery) and sq.query.strip()
        MemoryFilterTranslator().visit_structured_query(sq)  # well-formed for the translator
