"""'Plan this episode' (issue 26): the beat editor designs the episode's remaining beats in one
planner call when the planner declares larger structured replies, as drafts the writer still
sees, edits and accepts one by one (one extraction per accepted beat); the fields a writer
wrote in a draft survive; a planner that declares nothing gets one call per beat."""

from __future__ import annotations

import json
from pathlib import Path

from langchain_core.messages import BaseMessage

from tests.autopilot.fakes import JudgingModel, _extraction, make_studio


def _agent(tmp_path: Path, model: JudgingModel, combined: bool | None = True) -> object:
    studio = make_studio(tmp_path / "data", model, beats_per_episode=3,
                         combined_extraction=combined)
    agent = studio.create("plan", "regression, revenge", genre="fantasy", language="en")
    agent.plan()
    return agent


def test_one_call_designs_the_episode_and_each_beat_is_accepted_and_extracted_alone(
    tmp_path: Path,
) -> None:
    model = JudgingModel()
    agent = _agent(tmp_path, model)
    drafts = agent.plan_episode("Keep it tense.")
    assert [(d.episode, d.index, d.status) for d in drafts] == [(1, i, "draft") for i in (1, 2, 3)]
    assert model.calls.count("EpisodeDesign") == 1
    assert not [c for c in model.calls if c.startswith("BeatDesign")]
    prompt = next(p for p, c in zip(model.prompts, model.calls, strict=True)
                  if c == "EpisodeDesign")
    assert "Keep it tense." in prompt and "scenes 1 to 3 of episode 1" in prompt
    assert agent.store.episode_titles().get(1)  # named as by the first beat's design
    for draft in drafts:
        assert agent.next_beat().id == draft.id  # the stored draft, no new design
        agent.accept(draft.id)
    assert model.calls.count("EpisodeDesign") == 1
    assert model.calls.count("BeatExtraction") == 3  # canon: once per accepted beat
    assert agent.next_position() == (2, 1)


def test_the_writers_fields_survive_and_are_told_to_the_model(tmp_path: Path) -> None:
    model = JudgingModel()
    agent = _agent(tmp_path, model)
    first = agent.next_beat()
    agent.accept(first.id)
    second = agent.next_beat()
    mine = second.beat.model_copy(update={"location": "The salt cellar under the keep"})
    agent.edit_beat(second.id, mine)
    drafts = agent.plan_episode()
    assert [(d.index, d.status) for d in drafts] == [(2, "draft"), (3, "draft")]
    assert drafts[0].id == second.id  # the writer's draft, designed again in place
    assert drafts[0].beat.location == "The salt cellar under the keep"
    assert drafts[0].written == ["location"]
    assert drafts[1].written == []
    prompt = [p for p, c in zip(model.prompts, model.calls, strict=True)
              if c == "EpisodeDesign"][-1]
    assert "[1-2]" in prompt and "The salt cellar under the keep" in prompt
    assert "scenes 2 to 3 of episode 1" in prompt


def test_a_planner_that_declares_nothing_gets_one_call_per_beat(tmp_path: Path) -> None:
    model = JudgingModel()  # a fake: provider "other", no declared capability
    agent = _agent(tmp_path, model, combined=None)
    drafts = agent.plan_episode()
    assert [d.index for d in drafts] == [1, 2, 3]
    assert model.calls.count("BeatDesign") == 3 and "EpisodeDesign" not in model.calls


class _Remembers(JudgingModel):
    """A planner that gives each designed beat its memory, as the episode prompt asks."""

    def _combined(self, title: str, messages: list[BaseMessage]) -> str | None:
        reply = super()._combined(title, messages)
        if title != "EpisodeDesign" or reply is None:
            return reply
        items = json.loads(reply)
        for k, key in enumerate(items, start=1):
            memory = _extraction(False, 100 + k)
            memory.pop("summary")
            memory["story"].pop("facts")  # the design's events are its story (issue 43)
            items[key]["memory"] = memory
        return json.dumps(items)


def test_a_beat_accepted_as_planned_keeps_the_designs_memory_an_edited_one_is_extracted(
    tmp_path: Path,
) -> None:
    """Issue 43: "plan this episode" asks for each beat's memory with its design, so a beat the
    writer accepts as designed needs no extraction call; its memory reaches canon as an
    extraction's would. A beat the writer changed is extracted from what it now says."""
    model = _Remembers()
    agent = _agent(tmp_path, model)
    drafts = agent.plan_episode()
    prompt = next(p for p, c in zip(model.prompts, model.calls, strict=True)
                  if c == "EpisodeDesign")
    assert "- relations:" in prompt  # the memory is asked for
    agent.accept(drafts[0].id)
    changed = drafts[1].beat.model_copy(update={"location": "The salt cellar under the keep"})
    agent.edit_beat(drafts[1].id, changed)
    agent.accept(drafts[1].id)
    agent.accept(drafts[2].id)
    assert model.calls.count("EpisodeDesign") == 1
    assert model.calls.count("BeatExtraction") == 1  # the edited beat's only
    extraction = next(p for p, c in zip(model.prompts, model.calls, strict=True)
                      if c == "BeatExtraction")
    assert "The salt cellar under the keep" in extraction
    stories = {h.text for h in agent.memory.get_where({"tag": "Story"}, limit=50)}
    # the design's events are the story of the beats accepted as designed
    assert {"Aren makes choice number 1.", "Aren makes choice number 3."} <= stories
    assert "Aren makes choice number 2." not in stories
    assert agent.next_position() == (2, 1)
