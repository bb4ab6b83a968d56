"""A deterministic scripted chat model for the web tests (tests only, never the product).

It answers the writer pipeline's structured requests by reading the schema title the pipeline
puts in the system note (``"title":"NovelPlot"`` ...) and returns valid JSON for it; a request
without a schema (prose) gets a few paragraphs of text, streamed word by word. Every reply is a
pure function of the call count, so runs are repeatable. ``fail_next(n)`` makes the next ``n``
calls raise, to test that a failed generation leaves the project as it was.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import PrivateAttr

PLOT = {
    "title": "The Second Dawn",
    "logline": "A betrayed knight wakes ten years in the past and rewrites his fate.",
    "genre": "fantasy",
    "keywords": ["regression", "revenge"],
    "characters": [
        {"name": "Aren", "role": "protagonist", "profile": "A knight who returned to the past."},
        {"name": "Mira", "role": "ally", "profile": "A court mage who suspects his secret."},
        {"name": "Duke Veil", "role": "antagonist", "profile": "The man who betrayed Aren."},
    ],
    "settings": [
        {"name": "Eastwall", "description": "A border fortress under a red moon."},
    ],
    "acts": [
        {"stage": "exposition", "goal": "Aren returns and hides it.", "episodes": 2,
         "key_events": ["Aren wakes in the past.", "He meets Mira again."]},
        {"stage": "development", "goal": "He gathers allies.", "episodes": 3,
         "key_events": ["Mira joins him."]},
        {"stage": "crisis", "goal": "The Duke notices.", "episodes": 2,
         "key_events": ["The trap closes."]},
        {"stage": "climax", "goal": "Open war.", "episodes": 2, "key_events": ["Red moon."]},
        {"stage": "resolution", "goal": "A new dawn.", "episodes": 1, "key_events": ["Dawn."]},
    ],
}

PLACES = ["Eastwall gate", "The old chapel", "Mira's tower", "The duke's hall", "A muddy road"]


def beat_design(n: int) -> dict[str, Any]:
    return {
        "location": PLACES[n % len(PLACES)],
        "time": f"Dawn, day {n + 1}",
        "characters": ["Aren", "Mira"],
        "events": [f"Aren makes choice number {n + 1}."],
        "dialogue": [{"speaker": "Mira", "line": f"You are not who you were ({n + 1})."}],
        "emotions": ["resolve"],
        "conflicts": ["Aren hides the future."],
        "sets_up": [],
        "pays_off": [],
    }


def _reply(title: str, n: int) -> str:
    if title == "NovelPlot":
        return json.dumps(PLOT)
    if title == "BeatDesign":
        return json.dumps(beat_design(n))
    if title == "StoryExtraction":
        return json.dumps({"facts": [{"text": f"Aren made choice {n}.", "keyword": "choice"}]})
    if title == "CharacterExtraction":
        return json.dumps(
            {"facts": [{"character_name": "Aren", "text": "Aren remembers the future."}]}
        )
    if title == "RelationExtraction":
        return json.dumps(
            {"facts": [{"character1": "Aren", "character2": "Mira", "text": "Wary allies."}]}
        )
    if title == "SettingExtraction":
        return json.dumps({"facts": [{"keyword": "Eastwall", "text": "A fortress in the east."}]})
    if title == "BeatSummary":
        return json.dumps({"summary": f"Aren made choice {n} with Mira watching."})
    if title == "CharacterProfile":
        return json.dumps(
            {"name": "Stranger", "role": "extra", "profile": "A passer-by.", "goal": "To pass."}
        )
    if title:
        return "{}"
    return (
        "Red light spilled over the walls of Eastwall.\n\n"
        f"Aren drew a breath and made his choice ({n}).\n\n"
        '"You are not who you were," Mira said.'
    )


def _schema_title(messages: list[BaseMessage]) -> str:
    for message in messages:
        text = message.text
        marker = "validates against this JSON schema:"
        if marker in text:
            schema = json.loads(text.split(marker, 1)[1].strip())
            return str(schema.get("title", "Output"))
    return ""


class ScriptedChatModel(BaseChatModel):
    """Valid JSON for every writer schema, prose text otherwise; thread-safe call counter."""

    _calls: list[str] = PrivateAttr(default_factory=list)
    _fail: list[int] = PrivateAttr(default_factory=lambda: [0])
    _lock: Any = PrivateAttr(default_factory=threading.Lock)

    @property
    def _llm_type(self) -> str:
        return "scripted-fake"

    @property
    def calls(self) -> list[str]:
        """Schema title of every call so far ("" for prose)."""
        return list(self._calls)

    def fail_next(self, n: int = 1) -> None:
        self._fail[0] = n

    def _next(self, messages: list[BaseMessage]) -> str:
        title = _schema_title(messages)
        with self._lock:
            if self._fail[0] > 0:
                self._fail[0] -= 1
                raise RuntimeError("scripted failure: the model is unavailable")
            n = sum(1 for c in self._calls if c == title)
            self._calls.append(title)
        return _reply(title, n)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        text = self._next(messages)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        text = self._next(messages)
        for piece in re.findall(r"\S+\s*", text):
            yield ChatGenerationChunk(message=AIMessageChunk(content=piece))
