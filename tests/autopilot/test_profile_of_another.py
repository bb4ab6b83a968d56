"""A profile reply for another name (issue 43, item 4): at autopilot episode 19 aizac asked for
a new profile of the antagonist 顾衡, whose memories had faded from the live cast, and stored
the reply (named "配角", describing a bystander) as his. A profile reply for another name is
now refused (told to the model, asked again, then reported), and a character the story holds,
faded or not, is never profiled again: only the writer re-profiles."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from langchain_core.messages import BaseMessage
from pydantic import Field, PrivateAttr

from aizac.writer.schemas import NovelBeat
from tests.autopilot.fakes import JudgingModel, make_studio
from tests.fakes.scripted import _schema_title, beat_design

ANTAGONIST = "顾衡"


def _profile(name: str) -> dict[str, Any]:
    return {"name": name, "role": "bystander", "profile": "A passer-by in the market.",
            "goal": "To get home."}


class ProfileModel(JudgingModel):
    """Designs beats with 顾衡 on stage and answers each profile request with the next name
    of a script (the last one repeated)."""

    names: list[str] = Field(default_factory=lambda: ["配角"])
    _asked: list[str] = PrivateAttr(default_factory=list)

    def _next(self, messages: list[BaseMessage]) -> str:
        title = _schema_title(messages)
        if title == "BeatDesign":
            with self._lock:
                n = sum(1 for c in self._calls if c == title)
                self._calls.append(title)
            return json.dumps({**beat_design(n), "characters": ["Aren", ANTAGONIST]})
        if title == "CharacterProfile":
            with self._lock:
                self._asked.append("\n".join(m.text for m in messages))
                name = self.names[min(len(self._asked), len(self.names)) - 1]
                self._calls.append(title)
            return json.dumps(_profile(name), ensure_ascii=False)
        return super()._next(messages)

    @property
    def asked(self) -> list[str]:
        return list(self._asked)


def _agent(tmp_path: Path, model: ProfileModel) -> Any:
    studio = make_studio(tmp_path / "data", model, beats_per_episode=2,
                         combined_extraction=False)
    agent = studio.create("profiles", "regression, revenge", genre="fantasy", language="en")
    agent.plan()
    return agent


def _his_profiles(agent: Any) -> list[str]:
    return [h.text for h in agent.memory.current_states(ANTAGONIST)
            if h.metadata.get("aspect") == "profile"]


def test_a_profile_of_another_name_is_refused_and_asked_again(tmp_path: Path) -> None:
    model = ProfileModel(names=["配角", ANTAGONIST])
    agent = _agent(tmp_path, model)
    draft = agent.next_beat()
    assert [p.name for p in draft.new_characters] == [ANTAGONIST]
    assert draft.new_characters[0].role == "bystander"
    assert len(model.asked) == 2  # refused once, asked again with the error
    assert "profiles '配角'" in model.asked[1] and ANTAGONIST in model.asked[1]


def test_a_reply_that_keeps_profiling_another_name_is_reported_and_nothing_stored(
    tmp_path: Path,
) -> None:
    model = ProfileModel(names=["配角"])
    agent = _agent(tmp_path, model)
    said: list[Any] = []
    draft = agent.next_beat(progress=said.append)
    assert len(model.asked) >= 2
    # the beat goes on without a profile (the embedded model must not stop the story), says
    # so, and keeps nothing of the bystander's reply
    assert draft.new_characters == []
    assert any(getattr(x, "key", "") == "progress.profile_refused" for x in said), said
    assert ANTAGONIST not in agent.memory.characters()
    assert "配角" not in agent.memory.characters()
    assert agent.store.beats() == [draft]


def _accepted(agent: Any, episodes: int) -> None:
    """``episodes`` of 2 accepted beats with Aren alone (store and memory turn, no model)."""
    for episode in range(1, episodes + 1):
        for index in (1, 2):
            beat = NovelBeat(episode=episode, index=index, location="The old road", time="dusk",
                             characters=["Aren"], events=[f"Scene {episode}-{index}."])
            record = agent.store.add_draft(beat)
            agent.store.set_status(record.id, "accepted", summary=f"Scene {episode}-{index}.")
            agent.memory.finish_beat(f"Scene {episode}-{index}.")


def test_a_faded_character_is_not_profiled_over(tmp_path: Path) -> None:
    model = ProfileModel(names=["配角"])
    agent = _agent(tmp_path, model)
    # known by notes that fade (weak ones: a few episodes unseen), no profile of his own
    for text, aspect in (("顾衡 watches the court from behind a screen.", None),
                         ("顾衡 is furious.", "emotion")):
        agent.memory.remember(text, "Character", character_name=ANTAGONIST, aspect=aspect,
                              chapter=1, beat=1, strength=2.0)
    _accepted(agent, 5)
    assert ANTAGONIST not in agent.memory.characters()  # faded from the live cast
    draft = agent.next_beat()
    assert ANTAGONIST in draft.beat.characters and draft.new_characters == []
    assert model.asked == []  # no profile asked for someone the story holds
    agent.accept(draft.id)
    assert _his_profiles(agent) == []  # no bystander's profile stored as his
