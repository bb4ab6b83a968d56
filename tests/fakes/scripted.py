"""A deterministic scripted chat model (the web tests' model; tests only, never the product).

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
import time
from collections.abc import Iterator
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import PrivateAttr

from aizac.llm import instructions

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


PLOT_KO = {
    "title": "두 번째 새벽",
    "logline": "배신당한 기사가 십 년 전으로 돌아와 운명을 다시 쓴다.",
    "genre": "판타지",
    "keywords": ["회귀", "복수"],
    "characters": [
        {"name": "아렌", "role": "주인공", "profile": "과거로 돌아온 기사."},
        {"name": "미라", "role": "조력자", "profile": "그의 비밀을 의심하는 궁정 마법사."},
        {"name": "베일 공작", "role": "악역", "profile": "아렌을 배신한 사람."},
    ],
    "settings": [{"name": "동쪽 성벽", "description": "붉은 달 아래의 국경 요새."}],
    "acts": [
        {"stage": "exposition", "goal": "아렌이 돌아와 그것을 숨긴다.", "episodes": 2,
         "key_events": ["아렌이 과거에서 깨어난다.", "미라를 다시 만난다."]},
        {"stage": "development", "goal": "동료를 모은다.", "episodes": 3,
         "key_events": ["미라가 합류한다."]},
        {"stage": "crisis", "goal": "공작이 눈치챈다.", "episodes": 2,
         "key_events": ["함정이 닫힌다."]},
        {"stage": "climax", "goal": "전면전.", "episodes": 2, "key_events": ["붉은 달."]},
        {"stage": "resolution", "goal": "새로운 새벽.", "episodes": 1, "key_events": ["새벽."]},
    ],
}
PLACES_KO = ["동쪽 성문", "낡은 예배당", "미라의 탑", "공작의 홀", "진흙 길"]


def beat_design_ko(n: int) -> dict[str, Any]:
    return {
        "location": PLACES_KO[n % len(PLACES_KO)],
        "time": f"새벽, {n + 1}일째",
        "characters": ["아렌", "미라"],
        "events": [f"아렌이 {n + 1}번째 선택을 한다."],
        "dialogue": [{"speaker": "미라", "line": f"예전의 당신이 아니군요 ({n + 1})."}],
        "emotions": ["결의"],
        "conflicts": ["아렌은 미래를 숨긴다."],
        "sets_up": [],
        "pays_off": [],
    }


def _reply_ko(title: str, n: int) -> str:
    replies: dict[str, Any] = {
        "NovelPlot": PLOT_KO,
        "StoryExtraction": {"facts": [{"text": f"아렌이 {n}번째 선택을 했다.",
                                       "keyword": "선택"}]},
        "CharacterExtraction": {"facts": [{"who": "아렌", "aspect": "other",
                                           "text": "아렌은 미래를 기억한다."}]},
        "RelationExtraction": {"facts": [{"a": "아렌", "b": "미라",
                                          "text": "서로 경계하는 동료."}]},
        "SettingExtraction": {"facts": [{"keyword": "동쪽 성벽", "text": "동쪽의 요새."}]},
        "BeatSummary": {"summary": f"아렌이 미라가 지켜보는 앞에서 {n}번째 선택을 했다."},
        "CharacterProfile": {"name": "나그네", "role": "행인", "profile": "지나가는 사람.",
                             "goal": "지나가는 것."},
    }
    if title in replies:
        return json.dumps(replies[title], ensure_ascii=False)
    if title:
        return _reply(title, n)
    return (
        "붉은 빛이 동쪽 성벽 위로 쏟아졌다.\n\n"
        f"아렌은 숨을 들이쉬고 선택했다 ({n}).\n\n"
        '"예전의 당신이 아니군요." 미라가 말했다.'
    )


def _reply(title: str, n: int) -> str:
    if title == "NovelPlot":
        return json.dumps(PLOT)
    if title == "BeatDesign":
        return json.dumps(beat_design(n))
    if title == "StoryExtraction":
        return json.dumps({"facts": [{"text": f"Aren made choice {n}.", "keyword": "choice"}]})
    if title == "CharacterExtraction":
        return json.dumps({"facts": [{"who": "Aren", "aspect": "other",
                                      "text": "Aren remembers the future."}]})
    if title == "RelationExtraction":
        return json.dumps({"facts": [{"a": "Aren", "b": "Mira", "text": "Wary allies."}]})
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


_SCENES = re.compile(r"^### (\d+)$", re.MULTILINE)
"""The scene headings of the episode prose prompt (aizac.writer.episode_prose)."""
_SPEAKERS = re.compile(r"^(?:Speakers|말하는 인물|说话的人物)[:：]\s*(.+)$", re.M)


def _plan(prompt: str) -> str:
    """A dialogue plan: each speaker of the prompt talks to the next, in turn."""
    found = _SPEAKERS.search(prompt)
    names = [n.strip() for n in (found[1] if found else "").split(",") if n.strip()]
    turns = [{"speaker": a, "to": b, "wants": "-", "gist": f"turn {i + 1}"}
             for i, (a, b) in enumerate(zip(names, [*names[1:], *names[:1]], strict=True))]
    return json.dumps({"turns": turns or [{"speaker": "-", "to": "-", "wants": "-",
                                           "gist": "-"}]}, ensure_ascii=False)


def _schema_title(messages: list[BaseMessage]) -> str:
    # The schema's lead-in is in the prompt's language (aizac.llm.instructions).
    leads = [texts["schema"] for texts in instructions.TEXTS.values()]
    for message in messages:
        text = message.text
        for lead in leads:
            if lead in text:
                schema = json.loads(text.split(lead, 1)[1].strip())
                return str(schema.get("title", "Output"))
    return ""


class ScriptedChatModel(BaseChatModel):
    """Valid JSON for every writer schema, prose text otherwise; thread-safe call counter."""

    _calls: list[str] = PrivateAttr(default_factory=list)
    _prompts: list[str] = PrivateAttr(default_factory=list)
    _fail: list[int] = PrivateAttr(default_factory=lambda: [0])
    _lock: Any = PrivateAttr(default_factory=threading.Lock)
    _reactions: list[tuple[str, dict[str, Any]]] = PrivateAttr(default_factory=list)
    _casts: list[list[str]] = PrivateAttr(default_factory=list)
    _delay: list[float] = PrivateAttr(default_factory=lambda: [0.0])
    _think: list[float] = PrivateAttr(default_factory=lambda: [0.0])
    _streamed: list[int] = PrivateAttr(default_factory=lambda: [0])
    _started: threading.Event = PrivateAttr(default_factory=threading.Event)
    _korean: list[bool] = PrivateAttr(default_factory=lambda: [False])

    @property
    def _llm_type(self) -> str:
        return "scripted-fake"

    @property
    def calls(self) -> list[str]:
        """Schema title of every call so far ("" for prose)."""
        return list(self._calls)

    @property
    def prompts(self) -> list[str]:
        """The whole prompt text of every call so far."""
        return list(self._prompts)

    @property
    def started(self) -> threading.Event:
        """Set once a streamed reply has begun."""
        return self._started

    @property
    def streamed(self) -> int:
        """Chunks handed out by streamed calls so far."""
        return self._streamed[0]

    def fail_next(self, n: int = 1) -> None:
        self._fail[0] = n

    def react(self, phrase: str, fields: dict[str, Any]) -> None:
        """A beat designed from a prompt containing ``phrase`` gets ``fields`` (a model that
        follows an instruction)."""
        self._reactions.append((phrase, fields))

    def cast_next(self, names: list[str]) -> None:
        """The next designed beat has exactly these characters."""
        self._casts.append(names)

    def speak_korean(self) -> None:
        """Answer in Korean (a ko project refuses English content)."""
        self._korean[0] = True

    def slow(self, seconds_per_chunk: float) -> None:
        """Stream replies slowly (one word per chunk), to cancel them midway."""
        self._delay[0] = seconds_per_chunk

    def think(self, seconds: float) -> None:
        """Take ``seconds`` before every reply, streamed or not (an accept of many seconds)."""
        self._think[0] = seconds

    def _next(self, messages: list[BaseMessage]) -> str:
        if self._think[0]:
            time.sleep(self._think[0])
        title = _schema_title(messages)
        prompt = "\n".join(m.text for m in messages)
        with self._lock:
            if self._fail[0] > 0:
                self._fail[0] -= 1
                raise RuntimeError("scripted failure: the model is unavailable")
            n = sum(1 for c in self._calls if c == title)
            self._calls.append(title)
            self._prompts.append(prompt)
            cast = self._casts.pop(0) if title == "BeatDesign" and self._casts else None
        korean = self._korean[0]
        if title == "DialoguePlan":
            return _plan(prompt)
        scenes = _SCENES.findall(prompt) if not title else []
        if scenes:  # an episode's scenes in one call: each under its own heading, as asked
            one = _reply_ko if korean else _reply
            return "\n\n".join(f"### {s}\n{one('', n * 10 + k)}" for k, s in enumerate(scenes))
        if title == "CharacterProfile":  # a model that follows the prompt: the asked name
            reply = json.loads(_reply_ko(title, n) if korean else _reply(title, n))
            asked = re.search(r'name \(exactly "(.+?)"\)', prompt)
            return json.dumps({**reply, "name": asked[1] if asked else reply["name"]},
                              ensure_ascii=False)
        if title != "BeatDesign":
            return _reply_ko(title, n) if korean else _reply(title, n)
        design = beat_design_ko(n) if korean else beat_design(n)
        if cast is not None:
            design["characters"] = cast
        for phrase, fields in self._reactions:
            if phrase in prompt:
                design.update(fields)
        return json.dumps(design, ensure_ascii=False)

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
        self._started.set()
        for piece in re.findall(r"\S+\s*", text):
            if self._delay[0]:
                time.sleep(self._delay[0])
            with self._lock:
                self._streamed[0] += 1
            yield ChatGenerationChunk(message=AIMessageChunk(content=piece))
