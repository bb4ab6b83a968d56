"""A scripted model that reads imported scenes (tests only, never the product).

``ReadingModel`` answers as :class:`~tests.fakes.scripted.ScriptedChatModel` does, and reads the
scene a prompt carries: a read call (schema ``BeatDesignWithCast``) names the characters of
:data:`CAST` the scene's text names, profiles those the memory's list does not show, and the
extraction calls report the facts :data:`FACTS` holds for the scene (found by its marker, the
``N화 M장`` its text starts with). Replies refer to characters by name, as the scripted model
does. Every call's prompt is kept, so a test sees what the model was shown.
"""

from __future__ import annotations

import json
import re
from typing import Any

from langchain_core.messages import BaseMessage

from tests.fakes.scripted import ScriptedChatModel, _schema_title

CAST: dict[str, dict[str, Any]] = {
    "한서아": {"aliases": ["서아"], "role": "주인공", "profile": "북문을 지키는 기사.",
             "goal": "잃어버린 검을 되찾는 것."},
    "도윤": {"aliases": [], "role": "조력자", "profile": "왕도의 젊은 마법사.",
           "goal": "스승의 행방을 찾는 것."},
    "백작": {"aliases": ["로엔 백작"], "role": "악역", "profile": "북부를 다스리는 귀족.",
           "goal": "왕좌를 차지하는 것."},
}
"""Who the scenes name, and the profile a read gives a newcomer."""

FACTS: dict[str, dict[str, list[Any]]] = {
    "1화 1장": {"states": [("한서아", "condition", "한서아는 왼팔을 다쳤다.")]},
    "1화 2장": {"relations": [("한서아", "도윤", "서로 믿는 동료.")]},
    "2화 1장": {"states": [("도윤", "whereabouts", "도윤은 북부 성에 갇혔다.")],
               "rules": [("봉인", "북문의 봉인은 보름달에만 열린다.")]},
    "2화 2장": {"relations": [("한서아", "백작", "서로 죽이려는 원수.")]},
    "3화 1장": {"states": [("한서아", "condition", "한서아의 왼팔이 나았다.")]},
    "3화 2장": {"relations": [("한서아", "도윤", "서로 사랑하는 사이.")]},
}
"""What each scene's text says, as the extraction reports it."""

_MARKER = re.compile(r"(\d+화 \d+장)")
_SCENE_HEAD = ("장면:\n", "번째 장면:\n", "Scene ")
_PROSE_LABEL = "작가가 쓴 장면 원문"


def _scene_text(prompt: str) -> str:
    """The scene's own text in a read or extraction prompt ('' when there is none)."""
    for head in ("번째 장면:\n", _PROSE_LABEL):
        if head in prompt:
            return prompt.split(head, 1)[1]
    return ""


class ReadingModel(ScriptedChatModel):
    """The scripted model, reading the scenes of :func:`tests.manuscript.conftest.write_story`
    (a Korean project)."""

    def _next(self, messages: list[BaseMessage]) -> str:
        title = _schema_title(messages)
        prompt = "\n".join(m.text for m in messages)
        scene = _scene_text(prompt)
        marker = _MARKER.search(scene)
        facts = FACTS.get(marker[1], {}) if marker else {}
        told = _MARKER.search(prompt)
        if title == "BeatSummary" and told:  # the beat read from a scene: its own summary
            self._count(title, prompt)
            return _dump({"summary": f"{told[1]}에서 일어난 일."})
        if title == "BeatDesignWithCast":
            self._count(title, prompt)
            return self._read(prompt, scene)
        if title == "CharacterExtraction" and scene:
            self._count(title, prompt)
            return _dump({"facts": [{"who": who, "aspect": aspect, "text": text}
                                    for who, aspect, text in facts.get("states", [])]})
        if title == "RelationExtraction" and scene:
            self._count(title, prompt)
            return _dump({"facts": [{"a": a, "b": b, "text": text}
                                    for a, b, text in facts.get("relations", [])]})
        if title == "SettingExtraction" and scene:
            self._count(title, prompt)
            return _dump({"facts": [{"keyword": k, "text": text, "rule": True, "revises": "new"}
                                    for k, text in facts.get("rules", [])]})
        if title == "StoryExtraction" and scene:
            self._count(title, prompt)
            return _dump({"facts": []})
        return super()._next(messages)

    def _count(self, title: str, prompt: str) -> None:
        with self._lock:
            if self._fail[0] > 0:
                self._fail[0] -= 1
                raise RuntimeError("scripted failure: the model is unavailable")
            self._calls.append(title)
            self._prompts.append(prompt)

    def _read(self, prompt: str, scene: str) -> str:
        shown = prompt.split("지금까지의 이야기", 1)[0]  # the memory's list, before the story
        cast = [n for n, p in CAST.items() if n in scene or any(a in scene for a in p["aliases"])]
        first = next((s.strip() for s in re.split(r"(?<=다\.)", scene) if s.strip()), "-")
        design = {
            "location": "북문", "time": "밤", "characters": cast or ["한서아"],
            "events": [first[:150]], "dialogue": [], "emotions": [], "conflicts": [],
            "sets_up": [], "pays_off": [],
            "new_characters": [{"name": n, **CAST[n]} for n in cast if n not in shown][:3],
        }
        return _dump(design)


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


__all__ = ["CAST", "FACTS", "ReadingModel"]
