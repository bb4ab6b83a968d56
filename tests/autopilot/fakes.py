"""Doubles for the autopilot tests: a scripted model that also judges, and a studio on it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from pydantic import PrivateAttr

from aizac.llm import instructions
from aizac.llm.embeddings import HashingEmbeddings
from aizac.settings import Settings
from aizac.writer.service import Studio
from tests.fakes.scripted import (
    ScriptedChatModel,
    _reply,
    _reply_ko,
    _schema_title,
    beat_design,
    beat_design_ko,
)

# The per-tag replies a combined reply is made of (key in BeatExtraction -> schema title).
TAGS = {"story": "StoryExtraction", "characters": "CharacterExtraction",
        "relations": "RelationExtraction", "settings": "SettingExtraction"}


class JudgingModel(ScriptedChatModel):
    """:class:`ScriptedChatModel` that also answers the reviewer's ``Verdict`` (from a script
    of decisions, then ``accept``), the steering arbiter's ``SteeringPlan``, and the combined
    schemas of models that declare them: ``BeatDesignWithCast`` (a design, no new profiles),
    ``BeatExtraction`` (the four tags and the summary in one reply), ``EpisodeDesign`` and
    ``EpisodeExtraction`` (one item per ``beat_N`` field of the schema)."""

    _verdicts: list[str] = PrivateAttr(default_factory=list)
    _findings: list[list[dict[str, Any]]] = PrivateAttr(default_factory=list)
    _steering: list[dict[str, Any]] = PrivateAttr(default_factory=list)

    def verdicts(self, *decisions: str) -> None:
        self._verdicts.extend(decisions)

    def findings(self, *found: list[dict[str, Any]]) -> None:
        """The model-check findings of the next one-call reviews (``EpisodeReview``)."""
        self._findings.extend(found)

    def steering(self, plan: dict[str, Any]) -> None:
        self._steering.append(plan)

    def _next(self, messages: list[BaseMessage]) -> str:
        title = _schema_title(messages)
        if title in ("Verdict", "EpisodeReview"):  # the verdict, or it with the model check
            with self._lock:
                self._calls.append(title)
                self._prompts.append("\n".join(m.text for m in messages))
                decision = self._verdicts.pop(0) if self._verdicts else "accept"
                found = self._findings.pop(0) if self._findings else []
            extra = {"findings": found} if title == "EpisodeReview" else {}
            return json.dumps({**extra, "decision": decision, "reasons": [f"scripted {decision}"]})
        if title == "SteeringPlan":
            with self._lock:
                self._calls.append(title)
                plan = self._steering.pop(0) if self._steering else {"actions": [{"kind": "pause"}]}
            return json.dumps(plan)
        if title == "ArcOutline":
            prompt = "\n".join(m.text for m in messages)
            numbers = re.search(r"Outline episodes ([\d, ]+) \(", prompt)
            episodes = [int(n) for n in numbers.group(1).split(",")] if numbers else [1]
            with self._lock:
                self._calls.append(title)
            return json.dumps({"title": "Next arc", "goal": "Aren strikes back.", "episodes": [
                {"episode": n, "goal": f"Aren takes step {n} against the duke."}
                for n in episodes]})
        combined = self._combined(title, messages)
        return combined if combined is not None else super()._next(messages)

    def _combined(self, title: str, messages: list[BaseMessage]) -> str | None:
        if title not in ("BeatDesignWithCast", "BeatExtraction", "EpisodeDesign",
                         "EpisodeExtraction"):
            return None
        prompt = "\n".join(m.text for m in messages)
        with self._lock:
            n = sum(1 for c in self._calls if c == title)
            self._calls.append(title)
            self._prompts.append(prompt)
        korean = self._korean[0]
        if title == "BeatExtraction":
            return json.dumps(_extraction(korean, n), ensure_ascii=False)
        fields = _fields(messages)  # an episode-wide reply: beat_1 .. beat_N
        if title == "EpisodeExtraction":
            items = {f: _extraction(korean, n * 10 + k) for k, f in enumerate(fields)}
            return json.dumps(items, ensure_ascii=False)
        design = beat_design_ko if korean else beat_design
        if title == "EpisodeDesign":
            beats = {f: {**design(n * 10 + k), "new_characters": []} for k, f in enumerate(fields)}
            return json.dumps(beats, ensure_ascii=False)
        return json.dumps({**design(n), "new_characters": []}, ensure_ascii=False)


def _fields(messages: list[BaseMessage]) -> list[str]:
    """The top-level fields of the schema a prompt carries (as :func:`_schema_title` reads it)."""
    leads = [texts["schema"] for texts in instructions.TEXTS.values()]
    for message in messages:
        for lead in leads:
            if lead in message.text:
                schema = json.loads(message.text.split(lead, 1)[1].strip())
                return list(schema.get("properties", {}))
    return []


def _extraction(korean: bool, n: int) -> dict[str, Any]:
    """A combined extraction reply made of the per-tag replies."""
    reply = _reply_ko if korean else _reply
    parts = {key: json.loads(reply(tag, n)) for key, tag in TAGS.items()}
    return {**parts, "summary": json.loads(reply("BeatSummary", n))["summary"]}


def _schema_name(body: dict[str, Any]) -> str:
    fmt = body.get("response_format") or {}
    if fmt.get("type") == "json_schema":
        return str(fmt["json_schema"].get("name", ""))
    from acceptance.openai_server import forced_tool
    from acceptance.outline import outline_of

    outlined = outline_of(body)
    if outlined is not None:
        return outlined[0]

    return forced_tool(body) or ""


class WireStory:
    """A responder for the loopback OpenAI-compatible server: :class:`~acceptance.story.
    KoreanStory` (Korean content for any schema), with the reviewer's verdicts from a script
    (then ``accept``), and one goal per episode an outline prompt names."""

    def __init__(self, script: list[str]) -> None:
        from acceptance.story import KoreanStory

        self.story = KoreanStory()
        self.script = list(script)

    def __call__(self, body: dict[str, Any]) -> Any:
        name = _schema_name(body)
        if name in ("Verdict", "EpisodeReview"):
            decision = self.script.pop(0) if self.script else "accept"
            extra: dict[str, Any] = {"findings": []} if name == "EpisodeReview" else {}
            return {**extra, "decision": decision, "reasons": [f"대본에 따른 판정: {decision}"]}
        if name == "ArcOutline":
            return self.outline(body)
        return self.story(body)

    def outline(self, body: dict[str, Any]) -> Any:
        """An arc with one goal per episode the prompt names."""
        from acceptance.openai_server import prompt_text, requested_schema

        schema = requested_schema(body) or {}
        numbers = re.search(r"Outline episodes ([\d, ]+) \(", prompt_text(body))
        wanted = [int(n) for n in numbers.group(1).split(",")] if numbers else [1]
        item = schema["properties"]["episodes"]["items"]
        value = self.story(body)
        value["episodes"] = [{**self.story.fill(item, schema, "episodes", k), "episode": n}
                             for k, n in enumerate(wanted)]
        return value


def make_studio(data_dir: Path, model: ScriptedChatModel, database_url: str | None = None,
                **options: Any) -> Studio:
    settings = Settings(data_dir=data_dir, language="en", database_url=database_url)
    roles = ("planner", "writer", "extractor", "reviewer")
    models: dict[str, BaseChatModel] = {role: model for role in roles}
    return Studio(settings, models=models, embeddings=HashingEmbeddings(),
                  beats_per_episode=options.pop("beats_per_episode", 2), **options)


def planned_project(data_dir: Path, model: ScriptedChatModel, name: str = "auto",
                    database_url: str | None = None) -> Any:
    """A project with a plot, on ``model`` (English, 2 beats per episode), on the embedded
    files or the server database at ``database_url``."""
    studio = make_studio(data_dir, model, database_url)
    agent = studio.create(name, "regression, revenge", genre="fantasy", language="en")
    agent.plan()
    return studio, agent
