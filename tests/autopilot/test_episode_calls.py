"""Calls per episode (issue 13: <= 8 in autopilot mode): a planner and an extractor that declare
larger structured replies get one call for the episode's beat designs and one for their
extraction; models that declare nothing keep the per-beat calls; a reply missing a beat is
asked again; over the real wire, a 4-beat Korean episode takes at most 8 requests (issue 26: 4,
the design carrying each beat's memory and the episode's prose in one call)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from langchain_core.messages import BaseMessage
from pydantic import PrivateAttr

from aizac.autopilot.runner import Autopilot
from aizac.autopilot.state import Options
from aizac.llm.embeddings import HashingEmbeddings
from aizac.settings import Settings
from aizac.writer.service import Studio
from tests.acceptance.invariants import check_project
from tests.autopilot.fakes import JudgingModel, WireStory, _schema_name, make_studio

PER_BEAT = ("BeatDesign", "BeatDesignWithCast", "BeatExtraction", "StoryExtraction",
            "CharacterExtraction", "RelationExtraction", "SettingExtraction", "BeatSummary")


def _run(model: JudgingModel, tmp_path: Path, episodes: int = 2, beats: int = 3,
         combined: bool | None = True) -> Any:
    studio = make_studio(tmp_path / "data", model, beats_per_episode=beats,
                         combined_extraction=combined)
    agent = studio.create("calls", "regression, revenge", genre="fantasy", language="en")
    agent.plan()
    autopilot = Autopilot(agent)
    result = autopilot.start(Options(episodes=episodes, every=0))
    autopilot.close()
    assert result.status == "finished", result.message
    written = [(b.episode, b.index, bool(b.prose)) for b in agent.store.beats(status="accepted")]
    assert written == [(e, i, True) for e in range(1, episodes + 1) for i in range(1, beats + 1)]
    assert check_project(agent.store.directory).problems == []
    return agent


def test_a_capable_model_designs_and_extracts_an_episode_in_one_call_each(
    tmp_path: Path,
) -> None:
    model = JudgingModel()
    agent = _run(model, tmp_path)
    calls = model.calls
    assert calls.count("EpisodeDesign") == 2 and calls.count("EpisodeExtraction") == 2
    assert not [c for c in calls if c in PER_BEAT]
    design = next(p for p, c in zip(model.prompts, calls, strict=True) if c == "EpisodeDesign")
    assert "Give exactly 3 beats" in design and "scenes 1 to 3 of episode 1" in design
    extraction = next(p for p, c in zip(model.prompts, calls, strict=True)
                      if c == "EpisodeExtraction")
    assert all(f"[1-{i}]" in extraction for i in (1, 2, 3)) and "[2-1]" not in extraction
    # every beat's candidates became canon: one distinct story fact per beat
    stories = {h.text for h in agent.memory.get_where({"tag": "Story"}, limit=50)}
    assert len(stories) == 6


def test_models_that_declare_nothing_keep_the_per_beat_calls(tmp_path: Path) -> None:
    model = JudgingModel()  # a fake: provider "other", no declared capability
    _run(model, tmp_path, episodes=1, combined=None)
    calls = model.calls
    assert calls.count("BeatDesign") == 3 and calls.count("StoryExtraction") == 3
    assert "EpisodeDesign" not in calls and "EpisodeExtraction" not in calls


class ShortReplies(JudgingModel):
    """Answers the first episode-wide call of each kind with its first beat only."""

    _cut: set[str] = PrivateAttr(default_factory=set)

    def _combined(self, title: str, messages: list[BaseMessage]) -> str | None:
        reply = super()._combined(title, messages)
        if reply is not None and title.startswith("Episode") and title not in self._cut:
            self._cut.add(title)
            return json.dumps({"beat_1": json.loads(reply)["beat_1"]})
        return reply


def test_a_reply_missing_a_beat_is_asked_again(tmp_path: Path) -> None:
    # beat_1 .. beat_3 are all required: a reply without beat_2 and beat_3 fails validation
    # and the model is asked again with the error.
    model = ShortReplies()
    agent = _run(model, tmp_path, episodes=1)
    calls = model.calls
    assert calls.count("EpisodeDesign") == 2 and calls.count("EpisodeExtraction") == 2
    assert not [c for c in calls if c in PER_BEAT]
    retry = [p for p, c in zip(model.prompts, calls, strict=True) if c == "EpisodeDesign"][1]
    assert "beat_2" in retry  # the validation error names the missing beat
    assert len({h.text for h in agent.memory.get_where({"tag": "Story"}, limit=50)}) == 3


class IntroducesOnce(JudgingModel):
    """Beat 1 introduces 'Stranger' with a profile; beat 2 has Stranger again, no profile."""

    def _combined(self, title: str, messages: list[BaseMessage]) -> str | None:
        reply = super()._combined(title, messages)
        if reply is not None and title == "EpisodeDesign":
            data = json.loads(reply)
            for beat in data.values():  # the scene's cast stays (a speaker not in it waits)
                beat["characters"] = [*dict.fromkeys([*beat.get("characters", []), "Stranger"])]
            data["beat_1"]["new_characters"] = [
                {"name": "Stranger", "aliases": [], "role": "guide", "profile": "A hooded guide.",
                 "goal": "To be paid."}]
            return json.dumps(data)
        return reply


def test_a_character_introduced_earlier_in_the_episode_gets_one_profile(tmp_path: Path) -> None:
    model = IntroducesOnce()
    agent = _run(model, tmp_path, episodes=1, beats=2)
    assert "CharacterProfile" not in model.calls  # no separate call for beat 2
    assert "Stranger" in agent.memory.characters()
    first, second = agent.store.beats(status="accepted")
    assert [p.name for p in first.new_characters] == ["Stranger"]
    assert list(second.new_characters) == []


def test_over_the_wire_a_four_beat_episode_takes_at_most_four_requests(
    tmp_path: Path,
) -> None:
    from acceptance.openai_server import OpenAIServer

    with OpenAIServer(WireStory([]), chunk_chars=64) as server:
        spec = f"openai-compatible:{server.base_url}:{server.model}"
        roles = {f"{r}_model": spec for r in ("planner", "writer", "extractor", "reviewer")}
        settings = Settings(data_dir=tmp_path / "data", language="ko", embedding="hash",
                            openai_compatible_api_key="test", **roles)
        studio = Studio(settings, embeddings=HashingEmbeddings(), beats_per_episode=4)
        agent = studio.create("연재", "회귀, 복수", genre="현대판타지", language="ko")
        agent.plan()
        before = len(server.chat_requests)
        autopilot = Autopilot(agent)
        result = autopilot.start(Options(episodes=1, every=0))
        autopilot.close()
        requests = server.chat_requests[before:]
    assert result.status == "finished", result.message
    names = [_schema_name(r.body) for r in requests]
    # issue 26: the design carries each beat's memory (no extraction call) and the episode's
    # prose is one streamed call, its scenes under their headings
    assert names.count("EpisodeDesign") == 1 and "EpisodeExtraction" not in names
    assert not [n for n in names if n in PER_BEAT]
    assert names.count("") == 1
    assert len(requests) <= 4, names
    assert len(agent.store.beats(status="accepted")) == 4
    assert check_project(agent.store.directory).problems == []


class _Remembers(JudgingModel):
    """A planner that gives each designed beat its memory (as the episode prompt asks), except
    the beats whose 1-based position is in ``forgets``."""

    _forgets: set[int] = PrivateAttr(default_factory=set)

    def _combined(self, title: str, messages: list[BaseMessage]) -> str | None:
        reply = super()._combined(title, messages)
        if title != "EpisodeDesign" or reply is None:
            return reply
        from tests.autopilot.fakes import _extraction

        prompt = "\n".join(m.text for m in messages)
        assert "In each beat's memory" in prompt and "- relations:" in prompt
        items = json.loads(reply)
        for k, key in enumerate(items, start=1):
            if k not in self._forgets:  # the memory asks for no summary (issue 43)
                memory = _extraction(False, 100 + k)
                memory.pop("summary")
                memory["story"].pop("facts")  # the design's events are its story (issue 43)
                items[key]["memory"] = memory
        return json.dumps(items)


def test_the_design_carries_the_memory_and_a_rewrite_keeps_it(tmp_path: Path) -> None:
    """Issue 26: a planner that declares larger replies designs and remembers an episode in
    one call; the extractor is not asked; a rewrite changes the prose, not the beats, and
    keeps that memory; the memory reaches canon as an extraction's would."""
    model = _Remembers()
    model.verdicts("rewrite", "accept")
    agent = _run(model, tmp_path, episodes=1)
    calls = model.calls
    assert calls.count("EpisodeDesign") == 1
    assert "EpisodeExtraction" not in calls and not [c for c in calls if c in PER_BEAT]
    assert calls.count("") == 4  # the episode's prose in one call, then each beat rewritten
    stories = {h.text for h in agent.memory.get_where({"tag": "Story"}, limit=50)}
    # issue 43: the story facts are the design's events (the memory does not restate them)
    assert stories == {"Aren makes choice number 1.", "Aren makes choice number 2.",
                       "Aren makes choice number 3."}


def test_the_designed_memory_asks_for_no_summary_its_events_are_it(tmp_path: Path) -> None:
    """Issue 43: a beat designed with its memory had the model write what happens twice (the
    events, then the memory's summary); the memory the model is shown has no summary field, the
    prompt no summary line, and each beat's summary is its events."""
    from aizac.writer.episode_design import episode_schema

    shown = json.dumps(episode_schema(3, memory=True).model_json_schema())
    assert '"memory"' in shown and '"summary"' not in shown
    assert '"foreshadow"' not in shown and '"pays_off"' in shown  # story facts: the events
    model = _Remembers()
    agent = _run(model, tmp_path, episodes=1)
    design = next(p for p, c in zip(model.prompts, model.calls, strict=True)
                  if c == "EpisodeDesign")
    assert "- relations:" in design and "- summary" not in design
    assert "foreshadow" not in design and "pays_off" in design
    beats = agent.store.beats(status="accepted")
    assert [b.summary for b in beats] == [" ".join(b.beat.events) for b in beats]
    assert all(b.summary for b in beats)


def test_a_beat_the_design_left_without_memory_is_extracted_alone(tmp_path: Path) -> None:
    model = _Remembers()
    model._forgets = {2}
    agent = _run(model, tmp_path, episodes=1)
    calls = model.calls
    assert "EpisodeExtraction" not in calls and calls.count("BeatExtraction") == 1
    extraction = next(p for p, c in zip(model.prompts, calls, strict=True)
                      if c == "BeatExtraction")
    assert "[1-2]" in extraction or "1-2" in extraction
    assert len({h.text for h in agent.memory.get_where({"tag": "Story"}, limit=50)}) == 3


def test_a_designed_beats_story_is_its_events_and_the_threads_it_sets_up() -> None:
    """Issue 43: the memory of a beat designed with it does not restate the design; its story
    facts are the events, and each thread it sets up is open foreshadowing."""
    from aizac.writer.episode_design import designed_story
    from aizac.writer.schemas import BeatDesign, NovelBeat
    from tests.fakes.scripted import beat_design

    beat = NovelBeat.place(BeatDesign.model_validate(
        {**beat_design(4), "sets_up": ["The locked door in the cellar"]}), 1, 2)
    story = designed_story(beat)
    assert [(s.text, s.foreshadow) for s in story] == [
        ("Aren makes choice number 5.", False), ("The locked door in the cellar", True)]
