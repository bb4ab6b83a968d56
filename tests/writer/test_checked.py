"""CheckedRouter: degenerate structured output is retried with the problem stated, then refused."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_core.messages import BaseMessage, HumanMessage

from aizac.errors import StructuredOutputError
from aizac.writer.checked import CheckedRouter, QualityCheck
from aizac.writer.schemas import BeatDesign

GOOD = BeatDesign(location="순양그룹 회장실", time="겨울 밤", characters=["진도준"],
                  events=["진도준이 할아버지 앞에서 주가 폭락을 예언한다"])
BAD = BeatDesign(location="밤", time="밤", characters=["An alien ship arrives, and the team is a"],
                 events=["외계 함선이 도착한다"])


class ScriptedRouter:
    """Answers structured calls from a list and records each conversation it was sent."""

    def __init__(self, *values: BeatDesign) -> None:
        self.values = list(values)
        self.conversations: list[list[BaseMessage]] = []

    def model(self, role: str) -> str:
        return f"model-for-{role}"

    def structured(self, role: str, schema: type[Any], messages: list[BaseMessage]) -> Any:
        self.conversations.append(list(messages))
        return self.values.pop(0)

    async def astructured(self, role: str, schema: type[Any], messages: list[BaseMessage]) -> Any:
        return self.structured(role, schema, messages)


def test_a_degenerate_reply_is_asked_again_with_the_problem_in_korean() -> None:
    inner = ScriptedRouter(BAD, GOOD)
    router = CheckedRouter(inner, lambda: "ko")
    assert router.structured("planner", BeatDesign, [HumanMessage("비트를 설계하세요")]) == GOOD
    assert len(inner.conversations) == 2
    repair = str(inner.conversations[1][-1].content)
    assert repair.startswith("앞의 답은 쓸 수 없습니다") and "An alien ship" in repair
    assert router.model("writer") == "model-for-writer"  # everything else passes through


def test_always_degenerate_output_fails_clearly_and_returns_nothing() -> None:
    router = CheckedRouter(ScriptedRouter(BAD, BAD, BAD), lambda: "ko")
    with pytest.raises(StructuredOutputError, match="unusable after 3 attempts") as err:
        router.structured("planner", BeatDesign, [HumanMessage("x")])
    assert "is not a name" in str(err.value) and "Nothing was saved" in (err.value.hint or "")


def test_async_calls_are_checked_too() -> None:
    inner = ScriptedRouter(BAD, GOOD)
    value = asyncio.run(CheckedRouter(inner, lambda: "ko").astructured("extractor", BeatDesign, []))
    assert value == GOOD and len(inner.conversations) == 2


def test_a_router_with_a_check_hook_runs_the_check_inside_its_own_loop() -> None:
    class HookRouter(ScriptedRouter):
        def structured(
            self, role: str, schema: type[Any], messages: list[BaseMessage], check: Any = None
        ) -> Any:
            self.check = check
            return GOOD

    inner = HookRouter()
    assert CheckedRouter(inner, lambda: "ko").structured("planner", BeatDesign, []) == GOOD
    assert isinstance(inner.check, QualityCheck)
    inner.check(GOOD)  # usable: no error
    with pytest.raises(ValueError, match="이름이 아닙니다"):
        inner.check(BAD)


@pytest.mark.parametrize("asynchronous", [False, True])
def test_when_the_llm_layers_retries_run_out_first_the_checks_account_is_reported(
    asynchronous: bool,
) -> None:
    """With AIZAC_STRUCTURED_RETRIES below the check's own bound, the LLM layer's loop gives up
    first: its English failure quoted the repair text meant for the model ("앞의 답은 쓸 수
    없습니다 ... 'characters[0]'"); the check now reports what it refused, in every interface
    language, as it does when its own bound is reached."""
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    from aizac.errors import UnusableReplyError
    from aizac.llm.router import ModelRouter
    from aizac.settings import Settings
    from aizac.text import describe

    model = FakeListChatModel(responses=[BAD.model_dump_json()] * 5)
    router = CheckedRouter(
        ModelRouter(Settings(structured_retries=1), models={"planner": model}), lambda: "ko")
    with pytest.raises(UnusableReplyError) as err:
        if asynchronous:
            asyncio.run(router.astructured("planner", BeatDesign, [HumanMessage("x")]))
        else:
            router.structured("planner", BeatDesign, [HumanMessage("x")])
    assert "unusable after 2 attempts" in err.value.message
    assert "'인물 1' 칸의 값은 이름이 아닙니다" in describe(err.value, "ko").message
    assert "앞의 답은" not in str(err.value)  # the model's repair text stays the model's
    assert isinstance(err.value.__cause__, StructuredOutputError)
    assert err.value.__cause__.content_rejected


def test_a_reply_that_never_parses_keeps_the_llm_layers_own_failure() -> None:
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    from aizac.errors import UnusableReplyError
    from aizac.llm.router import ModelRouter
    from aizac.settings import Settings

    model = FakeListChatModel(responses=["not json at all"] * 5)
    router = CheckedRouter(
        ModelRouter(Settings(structured_retries=1), models={"planner": model}), lambda: "ko")
    with pytest.raises(StructuredOutputError) as err:
        router.structured("planner", BeatDesign, [HumanMessage("x")])
    assert not isinstance(err.value, UnusableReplyError) and not err.value.content_rejected


def test_the_writers_locked_fields_stand_in_for_the_models_before_the_check() -> None:
    """A regenerated beat's locked place is the writer's: the embedded model's "12345678" there
    refused every regeneration (bench/korean_walk.py, 06-regenerate), though it is replaced."""
    filler = GOOD.model_copy(update={"location": "12345678"})
    fixed = {"location": "순양그룹 회장실"}
    assert CheckedRouter(ScriptedRouter(filler), lambda: "ko").structured(
        "planner", BeatDesign, [], fixed=fixed) == filler  # the caller puts the lock back
    with pytest.raises(StructuredOutputError, match="12345678"):
        CheckedRouter(ScriptedRouter(filler, filler, filler), lambda: "ko").structured(
            "planner", BeatDesign, [])
    elsewhere = filler.model_copy(update={"characters": BAD.characters})
    with pytest.raises(StructuredOutputError):  # only the locked field is the writer's
        CheckedRouter(ScriptedRouter(elsewhere, elsewhere, elsewhere), lambda: "ko").structured(
            "planner", BeatDesign, [], fixed=fixed)
