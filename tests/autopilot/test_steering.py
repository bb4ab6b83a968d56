"""Steering: free text -> validated control actions, applied to memory only via its paths."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from aizac.autopilot.steering import (
    ChangeCharacter,
    ChangeSetting,
    Pause,
    QueueRewrite,
    ReviseOutline,
    SteeringPlan,
    apply_canon_changes,
    check_plan,
    describe,
    interpret,
    steering_messages,
)
from aizac.errors import StructuredOutputError
from aizac.llm.embeddings import HashingEmbeddings
from aizac.memory import WriterMemory
from aizac.settings import Settings


def fake(*replies: object) -> GenericFakeChatModel:
    return GenericFakeChatModel(messages=iter(
        [AIMessage(content=json.dumps(r, ensure_ascii=False)) for r in replies]))


@pytest.fixture
def mem() -> Iterator[WriterMemory]:
    memory = WriterMemory(embeddings=HashingEmbeddings(),
                          settings=Settings(memory_threshold=1.0, short_term_tokens=64))
    with memory.stage() as b:
        b.remember("강미라 — 기자", "Character", character_name="강미라", aliases=["미라"])
        b.note("강미라는 화재로 사망했다", "Character", character_name="강미라",
               aspect="condition", chapter=3)
    yield memory
    memory.close()


PLAN = {"actions": [
    {"kind": "change_character", "name": "미라", "aspect": "condition",
     "text": "강미라는 화재에서 살아남았다"},
    {"kind": "queue_rewrite", "first": 3, "last": 4, "note": "강미라가 살아남도록"},
    {"kind": "revise_outline", "note": "로맨스를 천천히"},
    {"kind": "pause"},
]}


def test_an_intervention_becomes_actions_after_a_repair() -> None:
    too_far = {"actions": [{"kind": "queue_rewrite", "first": 3, "last": 9, "note": "x"}]}
    model = fake(too_far, PLAN)
    actions = interpret(model, "미라는 화재에서 살아남는다", language="ko", written=5,
                        characters={"강미라": ["미라"], "진도준": []})
    assert [type(a) for a in actions] == [ChangeCharacter, QueueRewrite, ReviseOutline, Pause]
    assert next(model.messages, None) is None  # the out-of-range plan was retried


def test_names_are_checked_against_the_cast_with_aliases() -> None:
    cast = {"강미라": ["미라"], "진도준": []}

    def plan(name: str) -> SteeringPlan:
        return SteeringPlan.model_validate({"actions": [
            {"kind": "change_character", "name": name, "aspect": "goal", "text": "복수"}]})

    for ok in ("미라", "강미라", "도준", "진도준"):
        check_plan(plan(ok), written=3, characters=cast)
    with pytest.raises(ValueError, match="박철수"):
        check_plan(plan("박철수"), written=3, characters=cast)
    messages = steering_messages("x", language="ko", written=3, characters=cast)
    assert "강미라 (미라), 진도준" in str(messages[-1].content)


def test_a_plan_that_never_fits_fails_and_nothing_is_applied() -> None:
    bad = {"actions": [{"kind": "queue_rewrite", "first": 4, "last": 2, "note": "x"}]}
    with pytest.raises(StructuredOutputError):
        interpret(fake(bad, bad, bad), "x", language="ko", written=5)
    unknown = {"actions": [{"kind": "delete_book"}]}
    with pytest.raises(StructuredOutputError):
        interpret(fake(unknown, unknown, unknown), "x", language="en", written=5)


def test_canon_changes_go_through_the_memory_and_supersede(mem: WriterMemory) -> None:
    survived = "강미라는 화재에서 살아남았다"
    actions = [ChangeCharacter(name="미라", aspect="condition", text=survived),
               ChangeSetting(keyword="마나", text="마나는 밤에만 쓸 수 있다", rule=True),
               Pause()]
    ids = apply_canon_changes(mem, actions, chapter=5)
    assert len(ids) == 2
    state = [h for h in mem.character_state("강미라") if h.metadata.get("aspect") == "condition"]
    assert [h.text for h in state] == ["강미라는 화재에서 살아남았다"]  # the death is superseded
    assert [h.text for h in mem.world_rules()] == ["마나는 밤에만 쓸 수 있다"]


def test_describe_in_korean_and_english() -> None:
    actions = [QueueRewrite(first=3, last=4, note="살리기"), Pause()]
    assert describe(actions, "ko") == ["3–4화 다시 쓰기: 살리기", "변경 후 일시 정지"]
    assert describe(actions, "en") == ["rewrite episodes 3–4: 살리기", "pause after the change"]
