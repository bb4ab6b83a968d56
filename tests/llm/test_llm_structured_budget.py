"""Structured output: its own token budget, cut replies retried with more room, new seeds, a
semantic ``check`` in the repair loop, hints that name what helps."""

from __future__ import annotations

import json
from typing import Any

import pytest
from acceptance.openai_server import OpenAIServer, truncated
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatResult
from pydantic import BaseModel, ConfigDict

from aizac.errors import StructuredOutputError
from aizac.llm.profiles import attach
from aizac.llm.registry import row
from aizac.llm.router import ModelRouter
from aizac.llm.structured import generate_structured
from aizac.settings import Settings

PLOT = {"title": "회귀한 재벌집 막내", "logline": "복수를 위해 돌아온 진도준의 이야기"}


class Plot(BaseModel):
    model_config = ConfigDict(extra="forbid")
    title: str
    logline: str


def budget(body: dict[str, Any]) -> int | None:
    """The token budget a request sends (ChatOpenAI names it ``max_completion_tokens``)."""
    value = body.get("max_completion_tokens", body.get("max_tokens"))
    return None if value is None else int(value)


def _router(server: OpenAIServer, **extra: Any) -> ModelRouter:
    spec = f"openai-compatible:{server.base_url}:{server.model}"
    settings = Settings(planner_model=spec, transient_retries=0, **extra)
    return ModelRouter(settings, backoff_base=0.0, sleep=lambda _: None)


def test_reply_cut_at_the_limit_is_retried_with_twice_the_room_and_a_new_seed(
    openai_server: OpenAIServer,
) -> None:
    openai_server.script(PLOT)
    openai_server.fault(truncated())
    plot = _router(openai_server).structured("planner", Plot, "plan")
    assert plot == Plot(**PLOT)
    first, second = (r.body for r in openai_server.chat_requests)
    assert budget(first) is None and "seed" not in first  # an API model keeps its own limit
    assert budget(second) == 2048 and second["seed"] == 1
    assert second["messages"] == first["messages"]  # no "repair" of a cut reply


def test_replies_cut_every_time_say_so_and_name_the_budget(openai_server: OpenAIServer) -> None:
    openai_server.fault(truncated(), truncated(), truncated())
    router = _router(openai_server, structured_max_tokens=512, structured_max_tokens_cap=1024)
    with pytest.raises(StructuredOutputError) as info:
        router.structured("planner", Plot, "plan")
    error = info.value
    assert "cut at the token limit" in error.message and "not valid JSON" not in error.message
    assert "AIZAC_STRUCTURED_MAX_TOKENS" in error.hint
    assert "AIZAC_STRUCTURED_RETRIES" not in error.hint
    budgets = [budget(r.body) for r in openai_server.chat_requests]
    assert budgets == [None, 1024, 1024]  # doubled, then held at the cap
    assert [r.body.get("seed") for r in openai_server.chat_requests] == [None, 1, 2]


def test_check_rejections_are_repaired_like_schema_errors(openai_server: OpenAIServer) -> None:
    same = {"title": "장르", "logline": "장르"}
    openai_server.script(same, PLOT)

    def check(plot: Plot) -> None:
        if plot.title == plot.logline:
            raise ValueError("every field holds the same value; write real content")

    assert _router(openai_server).structured("planner", Plot, "plan", check=check).title
    repair = openai_server.chat_requests[1].body["messages"][-1]["content"]
    assert "every field holds the same value" in repair
    assert openai_server.chat_requests[1].body["seed"] == 1


def test_persistent_check_rejection_has_its_own_hint(openai_server: OpenAIServer) -> None:
    def never(_: Plot) -> None:
        raise ValueError("template echo")

    with pytest.raises(StructuredOutputError, match="template echo") as info:
        _router(openai_server).structured("planner", Plot, "plan", check=never)
    assert "new seed" in info.value.hint


class _Recording(FakeListChatModel):
    """A fake chat model that also records the kwargs of each call."""

    seen: list[dict[str, Any]]

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        self.seen.append(kw)
        return super()._generate(messages, stop, run_manager, **kw)


def test_small_local_model_gets_the_structured_budget_and_incomplete_json_is_a_cut() -> None:
    local = row("local")
    assert local is not None
    cut_json = '{"title": "회귀한 재벌집 막내", "logline": "복수를 위해 돌아'
    model = attach(
        _Recording(responses=[cut_json, '{"title": "t", "logline": "l"}'], seen=[]), local.profile
    )
    plot = generate_structured(model, Plot, "plan", max_tokens=1024, seed=7)
    assert plot.title == "t"
    assert [(k.get("max_tokens"), k.get("seed")) for k in model.seen] == [(1024, None), (2048, 8)]
    assert model.seen[0]["response_format"]["type"] == "json_object"  # constrained decoding


def test_invalid_json_that_is_not_cut_is_still_repaired() -> None:
    model = FakeListChatModel(responses=['{"title": oops}', '{"title": "t", "logline": "l"}'])
    assert generate_structured(model, Plot, "plan").logline == "l"


def test_router_sends_the_structured_budget_to_the_small_local_model() -> None:
    local = row("local")
    assert local is not None
    model = attach(_Recording(responses=['{"title": "t", "logline": "l"}'], seen=[]), local.profile)
    router = ModelRouter(Settings(structured_max_tokens=1536), models={"planner": model})
    assert router.structured("planner", Plot, "plan").title == "t"
    assert model.seen[0]["max_tokens"] == 1536 and "seed" not in model.seen[0]


class _Conversations(_Recording):
    """:class:`_Recording` that also records the conversation of each call."""

    conversations: list[list[BaseMessage]]

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        self.conversations.append(list(messages))
        return super()._generate(messages, stop, run_manager, **kw)


def test_the_small_local_model_is_asked_the_original_question_again_with_a_new_seed() -> None:
    """Shown the repair text, the 135M model copied it into 19 of 23 fields of a Korean plot:
    a rejected reply is asked again with the original messages and a new seed, through the
    router's retry/fallback wrapper too."""
    local = row("local")
    assert local is not None
    same = '{"title": "장르", "logline": "장르"}'
    model = attach(
        _Conversations(responses=[same, json.dumps(PLOT)], seen=[], conversations=[]),
        local.profile,
    )

    def check(plot: Plot) -> None:
        if plot.title == plot.logline:
            raise ValueError("앞의 답은 쓸 수 없습니다: 같은 글이 모든 칸을 채웠습니다")

    router = ModelRouter(Settings(transient_retries=0), models={"planner": model})
    assert router.structured("planner", Plot, "회귀 플롯을 짜세요", check=check) == Plot(**PLOT)
    first, second = model.conversations
    assert [m.text for m in second] == [m.text for m in first]  # no reply, no repair text
    assert not any("쓸 수 없습니다" in m.text for m in second)
    assert [k.get("seed") for k in model.seen] == [None, 1]  # a new seed


def test_a_real_model_keeps_the_repair_follow_up() -> None:
    """The other side: a model that is not the small local one is shown its reply and the
    problem (real models act on it)."""
    openai = row("openai-compatible")
    assert openai is not None
    same = '{"title": "장르", "logline": "장르"}'
    model = attach(
        _Conversations(responses=[same, json.dumps(PLOT)], seen=[], conversations=[]),
        openai.profile,
    )

    def check(plot: Plot) -> None:
        if plot.title == plot.logline:
            raise ValueError("every field holds the same value")

    assert generate_structured(model, Plot, "plan", check=check) == Plot(**PLOT)
    second = model.conversations[1]
    assert second[-2].text == same and "every field holds the same value" in second[-1].text


def test_broken_json_that_finished_normally_is_not_reported_as_cut(
    openai_server: OpenAIServer,
) -> None:
    """Issue 24 item 4: 760 characters of broken JSON ending with finish_reason "stop" were
    reported as "cut at the token limit (about 4096 tokens)", with advice to raise
    AIZAC_STRUCTURED_MAX_TOKENS: more room never mends JSON the model finished."""
    from acceptance.openai_server import ChatReply

    broken = '{"title": "회귀한 재벌집 막내", "logline": "복수를 위해 돌아온 진도준의 이야기'
    openai_server.script(*[ChatReply(content=broken, finish_reason="stop")] * 3)
    router = _router(openai_server, structured_max_tokens=512, structured_max_tokens_cap=4096)
    with pytest.raises(StructuredOutputError) as info:
        router.structured("planner", Plot, "plan")
    error = info.value
    assert error.key == "error.llm.reply_broken_json"
    assert "cut at the token limit" not in error.message.replace("not cut at the token", "")
    assert f"{len(broken)} characters, finish reason: stop" in error.message
    assert "Nothing was saved" in error.hint and "Try again" in error.hint
    assert "AIZAC_STRUCTURED_MAX_TOKENS" not in error.hint
    assert [budget(r.body) for r in openai_server.chat_requests] == [None, None, None]


def test_structured_failures_are_catalogue_keys_in_every_language(
    openai_server: OpenAIServer,
) -> None:
    from aizac.text import describe

    openai_server.fault(truncated(), truncated(), truncated())
    router = _router(openai_server, structured_max_tokens=512, structured_max_tokens_cap=1024)
    with pytest.raises(StructuredOutputError) as info:
        router.structured("planner", Plot, "plan")
    assert info.value.key == "error.structured.failed"
    korean = describe(info.value, "ko")
    assert "토큰 한도" in korean.message and "잘렸습니다" in korean.message
    assert "1024" in korean.hint and "AIZAC_STRUCTURED_MAX_TOKENS" in korean.hint
    assert "令牌" in describe(info.value, "zh").message
