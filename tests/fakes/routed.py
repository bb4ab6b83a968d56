"""A prompt-routed fake chat model and the canned story it tells (the writer tests' models).

``RoutedFakeChatModel`` is a LangChain fake chat model (it subclasses ``FakeListChatModel``)
that answers by the kind of prompt it receives and records every prompt, so tests can check
what each role saw. :func:`fake_models` gives the planner, extractor and writer roles one each,
answering with the replies below (a regressed hunter, Kang Jun, and a guild healer).
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForLLMRun,
    CallbackManagerForLLMRun,
)
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import Field

# Phrases that identify each English prompt template.
MARKERS: dict[str, str] = {
    "plot": "Design the novel",
    "beat": "Design one beat",
    "prose": "Write this beat as prose",
    "extract_Story": "plot events later episodes",
    "extract_Character": "changes of a character (who",
    "extract_CharacterRelation": "relationships as they stand",
    "extract_NovelSetting": "places, objects, organisations",
    "summary": "Summarize what happened",
    "character": "Create a profile for",
    "dialogue_plan": "Plan the dialogue of this scene",
}

Reply = str | Callable[[str], str]


def prompt_text(messages: list[BaseMessage]) -> str:
    return "\n".join(str(m.content) for m in messages)


def kind_of(text: str) -> str:
    for kind, marker in MARKERS.items():
        if marker in text:
            return kind
    return "unknown"


class RoutedFakeChatModel(FakeListChatModel):
    """Replies by prompt kind; records (kind, prompt) of every call; counts concurrency."""

    replies: dict[str, Any] = Field(default_factory=dict)
    calls: list[tuple[str, str]] = Field(default_factory=list)
    delay: float = 0.0
    in_flight: int = 0
    max_in_flight: int = 0
    responses: list[str] = Field(default_factory=lambda: [""])

    def model_post_init(self, context: Any) -> None:
        super().model_post_init(context)
        object.__setattr__(self, "_guard", threading.Lock())
        self.calls = []

    def _answer(self, messages: list[BaseMessage]) -> str:
        text = prompt_text(messages)
        kind = kind_of(text)
        with self._guard:  # type: ignore[attr-defined]
            self.calls.append((kind, text))
            n = sum(1 for k, _ in self.calls if k == kind)
        reply = self.replies.get(kind)
        if reply is None:
            raise AssertionError(f"unexpected {kind} prompt to this model:\n{text[:300]}")
        if isinstance(reply, list):
            reply = reply[min(n - 1, len(reply) - 1)]
        return str(reply(text) if callable(reply) else reply)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=AIMessage(self._answer(messages)))])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        with self._guard:  # type: ignore[attr-defined]
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            await asyncio.sleep(self.delay or 0.01)
            text = self._answer(messages)
        finally:
            with self._guard:  # type: ignore[attr-defined]
                self.in_flight -= 1
        return ChatResult(generations=[ChatGeneration(message=AIMessage(text))])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        for word in self._answer(messages).split(" "):
            yield ChatGenerationChunk(message=AIMessageChunk(content=word + " "))

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        for chunk in self._stream(messages):
            yield chunk

    def kinds(self) -> list[str]:
        return [k for k, _ in self.calls]


# ------------------------------------------------------------------------------ replies
SPOILER = "ZQX-SPOILER-7731"


def plot_json(spoiler: str = SPOILER, episodes_per_act: int = 1) -> str:
    stages = ["exposition", "development", "crisis", "climax", "resolution"]
    acts = []
    for stage in stages:
        secret = f" {spoiler}" if stage == "climax" else ""
        goal = f"{stage} goal" + (f": the mentor is the villain{secret}" if secret else "")
        events = [f"{stage} event {i + 1}{secret}" for i in range(2)]
        acts.append(
            {"stage": stage, "goal": goal, "episodes": episodes_per_act, "key_events": events}
        )
    return json.dumps({
        "title": "The Second Life",
        "logline": "A hunter returns ten years into the past.",
        "genre": "modern fantasy",
        "keywords": ["regression", "revenge"],
        "characters": [
            {"name": "Kang Jun", "role": "protagonist", "profile": "A regressed hunter."},
            {"name": "Seo Yuna", "role": "ally", "profile": "A guild healer."},
        ],
        "settings": [{"name": "The Gate", "description": "Portals that spawn monsters."}],
        "acts": acts,
    })


def beat_json(characters: list[str] | None = None, event: str = "Kang Jun enters a gate") -> str:
    return json.dumps({
        "location": "Seoul gate", "time": "night",
        "characters": characters or ["Kang Jun", "Seo Yuna"],
        "events": [event],
        "dialogue": [{"speaker": "Kang Jun", "line": "This time I know the way."}],
        "emotions": ["resolve"], "conflicts": ["the gate is unstable"],
        "sets_up": ["a cracked crystal"], "pays_off": [],
    })


EXTRACTOR_REPLIES: dict[str, Any] = {
    "extract_Story": json.dumps({"facts": [
        {"text": "Kang Jun cleared the first gate alone.", "keyword": "gate", "foreshadow": False}
    ]}),
    "extract_Character": json.dumps({"facts": [
        {"who": "c1", "aspect": "condition", "text": "Kang Jun is exhausted."}
    ]}),
    "extract_CharacterRelation": json.dumps({"facts": [
        {"a": "c1", "b": "c2", "text": "They trust each other."},
    ]}),
    "extract_NovelSetting": json.dumps({"facts": [
        {"keyword": "crystal", "text": "Gate crystals crack before a break."}
    ]}),
    "summary": json.dumps({"summary": "Kang Jun cleared a gate with Yuna."}),
}


def character_json(name: str = "Stranger", aliases: list[str] | None = None) -> str:
    return json.dumps({
        "name": name, "aliases": aliases if aliases is not None else ["Kang Jun", "The Masked"],
        "role": "mysterious broker", "profile": "Sells gate maps.", "goal": "Profit.",
    })


def asked_profile(prompt: str) -> str:
    """:func:`character_json` for the name the profile prompt asks for (a model that follows
    the prompt: a profile of another name is refused, issue 43)."""
    found = re.search(r'name \(exactly "(.+?)"\)', prompt)
    return character_json(found[1] if found else "Stranger")


def fake_models(**overrides: Any) -> dict[str, RoutedFakeChatModel]:
    planner = {"plot": plot_json(), "beat": beat_json(), "character": asked_profile}
    planner.update(overrides.pop("planner", {}))
    extractor = dict(EXTRACTOR_REPLIES)
    extractor.update(overrides.pop("extractor", {}))
    writer = {"prose": "The gate hummed. Kang Jun stepped in.\n\"Again,\" he said."}
    writer.update(overrides.pop("writer", {}))
    return {
        "planner": RoutedFakeChatModel(replies=planner),
        "extractor": RoutedFakeChatModel(replies=extractor),
        "writer": RoutedFakeChatModel(replies=writer),
    }
