"""The candidates of one role and the effects the resilient model's cores yield.

:class:`Candidate` is one model a role may use; :class:`Fallback` is the candidate loop written
once. The effect records (:class:`Do`, :class:`Next`) are what
:class:`~aizac.llm.resilient.ResilientChatModel`'s cores ask their sync or async shell to do
(:mod:`aizac.llm.steps`); :class:`Emit` carries a chunk a streaming shell passes on.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatGenerationChunk

from aizac.errors import AizacError, ModelError
from aizac.llm import instructions
from aizac.llm.methods import STRUCTURED_KWARG, apply_plan, call_options, plan_structured
from aizac.llm.profiles import ModelProfile, profile_of
from aizac.text import Text
from aizac.text.describe import hint_text


class Candidate:
    """One model a role may use: its label (the spec), the setting naming it, the model and its
    profile (``profile.reports_finish``: the provider always ends a stream with a finish reason,
    so a stream without one was cut)."""

    def __init__(
        self, label: str, setting: str, model: BaseChatModel, *,
        profile: ModelProfile | None = None,
    ) -> None:
        self.label = label
        self.setting = setting
        self.model = model
        # unless told: what the model declares (a local model built directly is still local)
        self.profile = profile if profile is not None else profile_of(model)

    @property
    def reports_finish(self) -> bool:
        return self.profile.reports_finish

    def __repr__(self) -> str:
        return f"Candidate({self.label!r})"


@dataclass(frozen=True)
class Call:
    """One candidate's prepared call."""

    cand: Candidate
    msgs: list[BaseMessage]
    stop: list[str] | None
    kw: dict[str, Any]


@dataclass(frozen=True)
class Do:
    """Effect: do ``what`` with a candidate's call: ``invoke`` it (retried; the reply comes
    back), ``open`` its stream up to the first token (retried), ``start`` its stream (the
    iterator comes back)."""

    what: Literal["invoke", "open", "start"]
    call: Call


@dataclass(frozen=True)
class Next:
    """Effect: the stream's next part, or ``END``."""

    parts: Any


@dataclass(frozen=True)
class Emit:
    """Not an effect: a chunk the streaming shell passes on."""

    chunk: ChatGenerationChunk


Effect = Do | Next
END = object()
TOOLS_KWARG = "aizac_tools"
"""The provider-neutral kwarg carrying ``bind_tools`` through a routed model."""


class Fallback:
    """The candidate loop, written once: hands out each candidate's prepared call, collects the
    failures, and says what failed when none is left."""

    def __init__(
        self, candidates: list[Candidate], messages: list[BaseMessage], kwargs: dict[str, Any]
    ) -> None:
        self.candidates = candidates
        self.messages = messages
        self.kwargs = kwargs
        self.failures: list[AizacError] = []

    def failed(self, error: AizacError) -> None:
        self.failures.append(error)

    def calls(self, stop: list[str] | None) -> Iterator[Call]:
        for cand in self.candidates:
            msgs, kw = prepare(cand, self.messages, self.kwargs)
            yield Call(cand, msgs, stop, kw)

    def error(self) -> AizacError:
        """The failure to raise after the last candidate failed."""
        if len(self.failures) == 1:
            return self.failures[0]
        said = self.failures[0].text
        for later in self.failures[1:]:
            said = Text("error.model.then_fallback", first=said, then=later.text)
        last = hint_text(self.failures[-1])
        return ModelError(said, hint=last)


def prepare(
    cand: Candidate, messages: list[BaseMessage], kwargs: dict[str, Any]
) -> tuple[list[BaseMessage], dict[str, Any]]:
    """The messages and kwargs for ``cand``: a structured request is planned per candidate."""
    kw = dict(kwargs)
    tools = kw.pop(TOOLS_KWARG, None)
    if tools is not None:  # bound the candidate's own way (its provider's tool format)
        request = dict(tools)
        binding: Any = cand.model.bind_tools(request.pop("tools"), **request)
        kw = {**kw, **binding.kwargs}
    request = kw.pop(STRUCTURED_KWARG, None)
    if request is None:
        return messages, kw
    language = instructions.prompt_language(messages)
    plan = plan_structured(cand.model, request["schema"], request.get("method"), language)
    options = call_options(cand.profile, request)
    return apply_plan(messages, plan), {**kw, **plan.kwargs, **options}
