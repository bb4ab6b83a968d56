"""The routed model's LangChain surface, each point the standard suites found (issue 25):
a reply cut at the token limit is refused the same way streamed or not, by a provider that
does not promise finish reasons too; ``with_structured_output(include_raw=True)`` gives the
raw reply and the parsing error instead of raising; built without the router, the small local
model still gets the structured budget; traces name the model and see one start per call."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from aizac.errors import IncompleteReplyError
from aizac.llm import registry
from aizac.llm.profiles import attach
from aizac.llm.resilient import Candidate, ResilientChatModel


class Replies(BaseChatModel):
    """Answers ``text`` with ``finish`` as its finish reason; records each call's kwargs."""

    text: str = "Once upon a"
    finish: str | None = "length"
    calls: list[dict[str, Any]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "replies-test"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        self.calls.append(kwargs)
        meta = {"finish_reason": self.finish} if self.finish else {}
        return ChatResult(generations=[ChatGeneration(
            message=AIMessage(self.text, response_metadata=meta))])

    def _stream(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        self.calls.append(kwargs)
        for word in self.text.split(" "):
            yield ChatGenerationChunk(message=AIMessageChunk(content=word + " "))
        meta = {"finish_reason": self.finish} if self.finish else {}
        yield ChatGenerationChunk(message=AIMessageChunk(content="", response_metadata=meta))


def routed(model: BaseChatModel, **kwargs: Any) -> ResilientChatModel:
    return ResilientChatModel(role="writer", candidates=[Candidate("m", "X", model)], retries=0,
                              **kwargs)


def test_a_cut_reply_is_refused_streamed_or_not() -> None:
    """The local model's profile does not promise a finish reason on every stream; "length"
    was still passed on silently by stream() while invoke() raised."""
    model = routed(Replies())
    with pytest.raises(IncompleteReplyError) as invoked:
        model.invoke("Tell me a story.", max_tokens=8)
    with pytest.raises(IncompleteReplyError) as streamed:
        "".join(str(c.content) for c in model.stream("Tell me a story.", max_tokens=8))
    assert invoked.value.reason == streamed.value.reason == "length"
    whole = routed(Replies(text="The end.", finish="stop"))
    assert whole.invoke("x").text == "The end." == "".join(
        str(c.content) for c in whole.stream("x")).strip()


class Joke(BaseModel):
    setup: str
    punchline: str


class JokeDict(TypedDict):
    setup: str
    punchline: str


def test_include_raw_gives_the_reply_and_the_parsing_error() -> None:
    good = routed(Replies(text='{"setup": "A cat", "punchline": "sat."}', finish="stop"))
    for schema in (Joke, JokeDict, Joke.model_json_schema()):
        out = good.with_structured_output(schema, include_raw=True).invoke("A joke.")
        assert isinstance(out["raw"], AIMessage) and out["parsing_error"] is None
        parsed = out["parsed"]
        assert (parsed.punchline if isinstance(parsed, Joke) else parsed["punchline"]) == "sat."
    bad = routed(Replies(text='{"setup": 3}', finish="stop"))
    out = bad.with_structured_output(Joke, include_raw=True).invoke("A joke.")
    assert out["parsed"] is None and out["raw"].text == '{"setup": 3}'
    assert "punchline" in str(out["parsing_error"])


def test_built_without_the_router_the_small_model_gets_the_structured_budget() -> None:
    inner = Replies(text='{"setup": "A", "punchline": "B"}', finish="stop", calls=[])
    attach(inner, registry.row("local").profile)  # type: ignore[union-attr]
    bare = routed(inner)
    assert bare.with_structured_output(Joke).invoke("A joke.") == Joke(setup="A", punchline="B")
    assert inner.calls[-1]["max_tokens"] == 1024  # not the model's prose limit
    assert "response_format" in inner.calls[-1]  # asked the local model's own way


class Starts(BaseCallbackHandler):
    def __init__(self) -> None:
        self.options: list[Any] = []

    def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
        self.options.append(kwargs.get("options"))


def test_one_start_per_call_with_the_structured_format_and_the_model_name() -> None:
    model = routed(Replies(text='{"setup": "A", "punchline": "B"}', finish="stop", calls=[]))
    starts = Starts()
    model.with_structured_output(Joke).invoke("A joke.", config={"callbacks": [starts]})
    assert len(starts.options) == 1
    assert starts.options[0]["ls_structured_output_format"]["schema"]["title"] == "Joke"
    assert model._get_ls_params()["ls_model_name"] == "m"  # the label when no model name
