"""Doubles for the autopilot tests: a scripted model that also judges, and a studio on it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from langchain_core.messages import BaseMessage
from pydantic import PrivateAttr

from aizac.llm.embeddings import HashingEmbeddings
from aizac.settings import Settings
from aizac.writer.service import Studio
from tests.fakes.scripted import ScriptedChatModel, _schema_title


class JudgingModel(ScriptedChatModel):
    """:class:`ScriptedChatModel` that also answers the reviewer's ``Verdict`` (from a script
    of decisions, then ``accept``) and the steering arbiter's ``SteeringPlan``."""

    _verdicts: list[str] = PrivateAttr(default_factory=list)
    _steering: list[dict[str, Any]] = PrivateAttr(default_factory=list)

    def verdicts(self, *decisions: str) -> None:
        self._verdicts.extend(decisions)

    def steering(self, plan: dict[str, Any]) -> None:
        self._steering.append(plan)

    def _next(self, messages: list[BaseMessage]) -> str:
        title = _schema_title(messages)
        if title == "Verdict":
            with self._lock:
                self._calls.append(title)
                self._prompts.append("\n".join(m.text for m in messages))
                decision = self._verdicts.pop(0) if self._verdicts else "accept"
            return json.dumps({"decision": decision, "reasons": [f"scripted {decision}"]})
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
        return super()._next(messages)


def make_studio(data_dir: Path, model: ScriptedChatModel, **options: Any) -> Studio:
    settings = Settings(data_dir=data_dir, language="en")
    models = {role: model for role in ("planner", "writer", "extractor", "reviewer")}
    return Studio(settings, models=models, embeddings=HashingEmbeddings(),
                  beats_per_episode=options.pop("beats_per_episode", 2), **options)


def planned_project(data_dir: Path, model: ScriptedChatModel, name: str = "auto") -> Any:
    """A project with a plot, on ``model`` (English, 2 beats per episode)."""
    studio = make_studio(data_dir, model)
    agent = studio.create(name, "regression, revenge", genre="fantasy", language="en")
    agent.plan()
    return studio, agent
