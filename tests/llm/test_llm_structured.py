"""The structured-output helper, fallback and usage accounting, with LangChain fake models."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import (
    FakeListChatModel,
    FakeMessagesListChatModel,
    GenericFakeChatModel,
)
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.outputs import ChatResult
from llm_wire import assert_backoff
from pydantic import BaseModel, ConfigDict, Field

from aizac.errors import ModelError, StructuredOutputError
from aizac.llm.methods import apply_plan, default_method, plan_structured
from aizac.llm.router import ModelRouter
from aizac.llm.structured import agenerate_structured, extract_json, generate_structured
from aizac.llm.usage import UsageLog, UsageRecord
from aizac.settings import Settings


class Beat(BaseModel):
    model_config = ConfigDict(extra="forbid")
    title: str = Field(max_length=50)
    tension: int = Field(ge=0, le=10)


class Recording(FakeListChatModel):
    """FakeListChatModel that keeps every prompt it was sent."""

    prompts: list[list[BaseMessage]] = Field(default_factory=list)

    def _call(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> str:
        self.prompts.append(list(messages))
        return super()._call(messages, *args, **kwargs)


class Failing(GenericFakeChatModel):
    """Raises ``error`` on every call and counts calls."""

    error: Exception
    calls: int = 0

    def _generate(self, *args: Any, **kwargs: Any) -> ChatResult:
        self.calls += 1
        raise self.error


class Status503(Exception):
    status_code = 503


GOOD = '{"title": "The gate opens", "tension": 7}'


def test_valid_first_time_with_fenced_json() -> None:
    model = Recording(responses=[f"Here you go:\n```json\n{GOOD}\n```"])
    beat = generate_structured(model, Beat, "Design a beat.")
    assert beat == Beat(title="The gate opens", tension=7)
    [prompt] = model.prompts
    assert isinstance(prompt[0], SystemMessage)
    assert '"tension"' in prompt[0].text and "JSON" in prompt[0].text  # schema in the prompt
    assert prompt[-1].text == "Design a beat."


def test_invalid_then_repaired_feeds_back_the_validation_error() -> None:
    model = Recording(responses=['{"title": "x", "tension": 42}', GOOD])
    assert generate_structured(model, Beat, [HumanMessage(content="Go")]).tension == 7
    second = model.prompts[1]
    assert isinstance(second[-2], AIMessage) and "42" in second[-2].text
    assert "tension" in second[-1].text and "less than or equal to 10" in second[-1].text


def test_not_json_then_repaired() -> None:
    model = Recording(responses=["I think the beat is exciting", GOOD])
    assert generate_structured(model, Beat, "Go").title == "The gate opens"
    assert "not valid JSON" in model.prompts[1][-1].text


@pytest.mark.parametrize("retries", [0, 2])
def test_always_invalid_raises_after_retries_plus_one_calls(retries: int) -> None:
    model = Recording(responses=['{"title": "x"}'] * 5)
    with pytest.raises(StructuredOutputError) as info:
        generate_structured(model, Beat, "Go", retries=retries)
    assert len(model.prompts) == retries + 1
    assert "tension: Field required" in str(info.value)
    assert f"after {retries + 1} attempt" in str(info.value)


def test_extra_keys_are_rejected_for_forbid_models() -> None:
    model = Recording(responses=['{"title": "x", "tension": 1, "spoiler": "the end"}', GOOD])
    assert generate_structured(model, Beat, "Go").tension == 7
    assert "spoiler" in model.prompts[1][-1].text


def test_existing_system_message_is_kept_and_extended() -> None:
    model = Recording(responses=[GOOD])
    generate_structured(
        model, Beat, [SystemMessage(content="You design beats."), HumanMessage("Go")]
    )
    system = model.prompts[0][0]
    assert system.text.startswith("You design beats.") and "JSON schema" in system.text
    assert len(model.prompts[0]) == 2


def test_generic_fake_and_messages_fake_work() -> None:
    generic = GenericFakeChatModel(messages=iter([AIMessage(content=GOOD)]))
    assert generate_structured(generic, Beat, "Go").tension == 7
    listed = FakeMessagesListChatModel(responses=[AIMessage(content=GOOD)])
    assert generate_structured(listed, Beat, "Go").tension == 7


def test_async_variant_runs_concurrently() -> None:
    async def main() -> list[Beat]:
        model = FakeListChatModel(responses=[GOOD] * 4)
        return await asyncio.gather(*(agenerate_structured(model, Beat, "Go") for _ in range(4)))

    assert [b.tension for b in asyncio.run(main())] == [7, 7, 7, 7]


def test_async_variant_repairs_too() -> None:
    model = FakeListChatModel(responses=["nope", GOOD])
    assert asyncio.run(agenerate_structured(model, Beat, "Go")).tension == 7


def test_extract_json_variants() -> None:
    assert extract_json('```json\n{"a": 1}\n```') == {"a": 1}
    assert extract_json('Sure! {"a": {"b": 2}} Hope it helps.') == {"a": {"b": 2}}
    assert extract_json("[1, 2]") == [1, 2]
    # A raw newline inside a string (seen from the local model) is read, not retried.
    assert extract_json('{"summary": "line one\nline two"}') == {"summary": "line one\nline two"}


def test_method_selection_per_provider() -> None:
    from langchain_anthropic import ChatAnthropic
    from langchain_openai import ChatOpenAI

    openai = ChatOpenAI(model="m", api_key="k")  # type: ignore[arg-type]
    anthropic = ChatAnthropic(model="m", api_key="k")  # type: ignore[arg-type,call-arg]
    assert default_method(openai) == "json_object"
    assert default_method(anthropic) == "tool"
    assert default_method(FakeListChatModel(responses=[])) == "prompt"
    schema = Beat.model_json_schema()
    plan = plan_structured(openai, schema, "prompt")  # a method can be forced
    assert plan.kwargs == {} and plan.system_note is not None
    # json_schema puts nothing in the messages; json_object (OpenAI's default) the outline
    assert apply_plan([HumanMessage("x")], plan_structured(openai, schema, "json_schema")) == [
        HumanMessage("x")]
    outlined = apply_plan([HumanMessage("x")], plan_structured(openai, schema))
    assert outlined[1:] == [HumanMessage("x")]
    assert outlined[0].text.endswith("type Beat = {title: string≤50, tension: integer≥0≤10}")


# --------------------------------------------------------------------------- routing, fallback
def test_router_structured_uses_configured_retries() -> None:
    model = Recording(responses=["bad"] * 10)
    router = ModelRouter(Settings(structured_retries=1), models={"planner": model})
    with pytest.raises(StructuredOutputError):
        router.structured("planner", Beat, "Go")
    assert len(model.prompts) == 2


def test_fallback_is_used_when_primary_fails_after_retries() -> None:
    primary = Failing(messages=iter([]), error=Status503("overloaded"))
    backup = FakeListChatModel(responses=["from the fallback"])
    delays: list[float] = []
    router = ModelRouter(
        Settings(transient_retries=2),
        models={"writer": primary, "writer:fallback": backup},
        backoff_base=0.5,
        sleep=delays.append,
    )
    assert router.model("writer").invoke("x").text == "from the fallback"
    assert primary.calls == 3
    assert_backoff(delays, 0.5, 2)
    [record] = router.usage.records
    assert record.model == "injected:FakeListChatModel" and record.role == "writer"


def test_fallback_serves_structured_output_and_streams() -> None:
    primary = Failing(messages=iter([]), error=ValueError("boom"))
    backup = FakeListChatModel(responses=[GOOD, "streamed"])
    router = ModelRouter(Settings(), models={"writer": primary, "writer:fallback": backup})
    assert router.structured("writer", Beat, "Go").tension == 7
    assert "".join(router.stream("writer", "x")) == "streamed"
    assert primary.calls == 2  # non-transient: no retry, straight to the fallback


def test_all_candidates_failing_is_one_model_error_naming_both() -> None:
    primary = Failing(messages=iter([]), error=Status503("x"))
    backup = Failing(messages=iter([]), error=TimeoutError("slow"))
    router = ModelRouter(
        Settings(transient_retries=1),
        models={"writer": primary, "writer:fallback": backup},
        backoff_base=0,
        sleep=lambda _: None,
    )
    with pytest.raises(ModelError) as info:
        router.model("writer").invoke("x")
    message = str(info.value)
    assert "HTTP 503" in message and "timed out" in message and "fallback" in message
    assert (primary.calls, backup.calls) == (2, 2)
    assert router.usage.records[-1].ok is False


def test_async_fallback() -> None:
    primary = Failing(messages=iter([]), error=ConnectionError("refused"))
    backup = FakeListChatModel(responses=[GOOD])
    router = ModelRouter(
        Settings(transient_retries=1),
        models={"extractor": primary, "extractor:fallback": backup},
        backoff_base=0.001,
    )
    assert asyncio.run(router.astructured("extractor", Beat, "Go")).tension == 7


# --------------------------------------------------------------------------- usage
def test_usage_is_estimated_offline_when_the_model_reports_none() -> None:
    router = ModelRouter(
        Settings(), models={"reviewer": FakeListChatModel(responses=["좋은 장면"])}
    )
    router.model("reviewer").invoke("이 장면을 평가해 줘")
    [record] = router.usage.records
    assert record.estimated and record.role == "reviewer"
    # aizac.tokens counts one token per Hangul syllable: 8 in the prompt, 4 in the reply.
    assert (record.prompt_tokens, record.completion_tokens) == (8, 4)
    totals = router.usage.totals()
    assert (totals.calls, totals.total_tokens) == (1, 12)


def test_usage_from_provider_metadata_wins() -> None:
    reply = AIMessage(
        content="x", usage_metadata={"input_tokens": 100, "output_tokens": 20, "total_tokens": 120}
    )
    router = ModelRouter(
        Settings(), models={"planner": FakeMessagesListChatModel(responses=[reply])}
    )
    router.model("planner").invoke("hi")
    [record] = router.usage.records
    assert (record.prompt_tokens, record.completion_tokens, record.estimated) == (100, 20, False)


def test_usage_log_is_thread_safe_and_totals_per_role() -> None:
    log = UsageLog()

    def add(role: str) -> None:
        for _ in range(500):
            log.add(UsageRecord(role, "m", 2, 3, 0.01))

    threads = [threading.Thread(target=add, args=(r,)) for r in ("planner", "writer") * 2]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert log.totals().calls == 2000
    assert log.totals("writer").prompt_tokens == 2000
    assert log.totals("writer").completion_tokens == 3000


def test_one_usage_log_shared_by_roles() -> None:
    log = UsageLog()
    router = ModelRouter(
        Settings(),
        usage=log,
        models={
            "planner": FakeListChatModel(responses=["a"]),
            "writer": FakeListChatModel(responses=["b"]),
        },
    )
    router.model("planner").invoke("x")
    list(router.stream("writer", "y"))
    assert [r.role for r in log.records] == ["planner", "writer"]


def test_with_structured_output_on_a_routed_model_validates_and_repairs() -> None:
    model = Recording(responses=['{"title": 1}', GOOD])
    router = ModelRouter(Settings(), models={"planner": model})
    runnable = router.model("planner").with_structured_output(Beat)
    assert runnable.invoke("Go") == Beat(title="The gate opens", tension=7)
    assert len(model.prompts) == 2
