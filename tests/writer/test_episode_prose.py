"""'Write this episode' (issue 26): the prose of an episode's accepted beats in one writer call
when the writer declares larger replies, split back per beat; a scene the reply leaves out, or
the token limit cuts, is written on its own afterwards; a dropped stream saves nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import BaseMessage

from aizac.errors import IncompleteReplyError, NotFoundError
from aizac.writer.episode_prose import MARK, scenes_block, split_scenes
from tests.autopilot.fakes import JudgingModel, make_studio


# ------------------------------------------------------------------------------- the split
def test_each_heading_starts_its_scene_and_a_preamble_is_dropped() -> None:
    text = "Here is the episode.\n### 1\nRain on the roofs.\n\n### 2\nThe gate opened.\n"
    assert split_scenes(text, 2) == {1: "Rain on the roofs.", 2: "The gate opened."}


@pytest.mark.parametrize("heading", ["### 2", "## Scene 2", "### 장면 2: 성문", "### 场景 2：城门",
                                     "#2", "### 2."])
def test_a_heading_may_carry_a_word_or_a_title(heading: str) -> None:
    assert split_scenes(f"### 1\nA.\n{heading}\nB.", 2) == {1: "A.", 2: "B."}


def test_a_number_out_of_order_or_range_stays_prose() -> None:
    text = "### 1\nA.\n### 7\nstill one\n### 2\nB.\n### 1\nstill two\n### 3\nC."
    assert split_scenes(text, 3) == {1: "A.\n### 7\nstill one", 2: "B.\n### 1\nstill two",
                                     3: "C."}
    assert MARK.search("第3章 in the middle of a line") is None


def test_text_before_a_first_heading_of_two_is_the_first_scene() -> None:
    assert split_scenes("A.\n### 2\nB.", 2) == {1: "A.", 2: "B."}
    assert split_scenes("No headings at all.", 2) == {}
    assert split_scenes("### 1\n\n### 2\nB.", 2) == {2: "B."}  # an empty scene is missing


def test_the_scenes_block_numbers_each_brief_with_its_notes() -> None:
    assert scenes_block([("Dusk, the gate", "Voices: Aren"), ("Night", "")]) == (
        "### 1\nDusk, the gate\nVoices: Aren\n\n### 2\nNight")


# ------------------------------------------------------------------------- co-writing
def _accepted(tmp_path: Path, model: JudgingModel, combined: bool | None = True) -> Any:
    studio = make_studio(tmp_path / "data", model, beats_per_episode=3,
                         combined_extraction=combined)
    agent = studio.create("ep", "regression, revenge", genre="fantasy", language="en")
    agent.plan()
    for draft in agent.plan_episode():
        agent.accept(draft.id)
    return agent


def _prose_calls(model: JudgingModel) -> int:
    return sum(1 for c in model.calls if c == "")


def test_one_call_writes_the_episode_and_each_beat_keeps_its_scene(tmp_path: Path) -> None:
    model = JudgingModel()
    agent = _accepted(tmp_path, model)
    before = _prose_calls(model)
    streamed = "".join(agent.write_episode(1))
    assert _prose_calls(model) - before == 1
    prompt = model.prompts[-1]
    assert "### 1\n" in prompt and "### 3\n" in prompt and "about" in prompt
    beats = agent.store.beats(episode=1)
    assert [bool(b.prose) for b in beats] == [True, True, True]
    assert len({b.prose for b in beats}) == 3  # each its own scene
    assert all(b.prose in streamed and "###" not in (b.prose or "") for b in beats)
    with pytest.raises(NotFoundError) as done:
        list(agent.write_episode(1))
    assert done.value.key == "error.prose.episode_written"


class _SkipsScene(JudgingModel):
    """Leaves scene 2 out of an episode reply."""

    def _next(self, messages: list[BaseMessage]) -> str:
        text = super()._next(messages)
        if "### 2\n" not in text:
            return text
        head, _, rest = text.partition("### 2\n")
        return head + rest[rest.index("### 3"):]


def test_a_scene_the_reply_left_out_is_written_on_its_own(tmp_path: Path) -> None:
    model = _SkipsScene()
    agent = _accepted(tmp_path, model)
    before = _prose_calls(model)
    list(agent.write_episode(1))
    assert _prose_calls(model) - before == 2  # the episode, then beat 2 alone
    assert "### 1" not in model.prompts[-1]  # the one-beat prompt
    assert all(b.prose for b in agent.store.beats(episode=1))


def test_a_writer_that_declares_nothing_writes_beat_by_beat(tmp_path: Path) -> None:
    model = JudgingModel()  # provider "other": no declared capability
    agent = _accepted(tmp_path, model, combined=None)
    before = _prose_calls(model)
    list(agent.write_episode(1))
    assert _prose_calls(model) - before == 3
    assert all(b.prose for b in agent.store.beats(episode=1))


class _Stream:
    """A router whose writer streams ``chunks`` and then raises ``error`` (if any)."""

    def __init__(self, chunks: list[str], error: Exception | None) -> None:
        self.chunks, self.error = chunks, error

    def stream(self, role: str, messages: list[Any]) -> Iterator[str]:
        yield from self.chunks
        if self.error is not None:
            raise self.error


def _cut_run(tmp_path: Path, error: Exception) -> tuple[Any, list[str]]:
    model = JudgingModel()
    agent = _accepted(tmp_path, model)
    writer = agent.prose_writer
    real = writer.router
    writer.router = _Stream(["### 1\nA done.\n\n### 2\nB done.\n\n", "### 3\nC was cu"], error)
    messages = writer.episode_messages([r.beat for r in agent.store.beats(episode=1)], "")[0]
    kept = writer.stream_episode(messages)
    seen: list[str] = []
    try:
        while True:
            seen.append(next(kept))
    except StopIteration as end:
        text = end.value
    finally:
        writer.router = real
    return text, seen


def test_a_length_cut_keeps_the_finished_scenes(tmp_path: Path) -> None:
    cut = IncompleteReplyError("error.model.cut_length", reason="length", started=True,
                               role="writer", model="m")
    text, seen = _cut_run(tmp_path, cut)
    assert "".join(seen).endswith("C was cu")  # the writer saw it all as it came
    assert split_scenes(text, 3) == {1: "A done.", 2: "B done."}  # scene 3 is written alone


def test_a_dropped_stream_saves_nothing(tmp_path: Path) -> None:
    model = JudgingModel()
    agent = _accepted(tmp_path, model)
    writer = agent.prose_writer
    writer.router = _Stream(["### 1\nA done.\n\n### 2\nB"],
                            IncompleteReplyError("error.model.cut_stream", reason="cut",
                                                 role="writer", model="m", started=True))
    with pytest.raises(IncompleteReplyError):
        list(writer.write_episode(1, together=True))
    assert not any(b.prose for b in agent.store.beats(episode=1))
