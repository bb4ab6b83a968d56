"""The prose prompt: a label-free scene brief and smaller budgets for the small local model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aizac.llm.profiles import attach
from aizac.llm.registry import row
from aizac.writer.context import scene_brief
from aizac.writer.output import small_local_writer
from aizac.writer.schemas import NovelBeat

from .conftest import AgentFactory


def _beat() -> NovelBeat:
    return NovelBeat.model_validate({
        "episode": 1, "index": 2, "location": "Eastwall gate", "time": "midnight",
        "characters": ["Aren", "Mira"], "events": ["Mira stops Aren at the gate"],
        "dialogue": [{"speaker": "Mira", "line": "You know too much."}],
        "conflicts": ["she suspects his secret"], "sets_up": ["PLANNING NOTE"],
    })


def test_scene_brief_is_the_scene_without_labels_or_planning_notes() -> None:
    brief = scene_brief(_beat())
    assert brief.splitlines()[0] == "midnight, Eastwall gate"
    assert 'Mira: "You know too much."' in brief and "she suspects his secret" in brief
    assert "PLANNING NOTE" not in brief
    assert "characters:" not in brief and "sets up" not in brief and "1-2" not in brief
    looped = _beat().model_copy(update={"events": ["same", "same"], "conflicts": ["same"]})
    assert scene_brief(looped).count("same") == 1


class _Router:
    def __init__(self, model: Any) -> None:
        self._model = model

    def model(self, role: str) -> Any:
        return self._model


class _Model:
    """A stand-in chat model; its profile is what the provider table declares for it."""


def test_small_local_writer_is_recognised_through_the_router() -> None:
    local = row("local")
    assert local is not None
    assert small_local_writer(_Router(attach(_Model(), local.profile)))  # type: ignore[arg-type]
    routed = attach(_Model(), local.profile.as_routed())  # the router's wrapper of a local model
    assert small_local_writer(_Router(routed))  # type: ignore[arg-type]
    assert not small_local_writer(_Router(_Model()))  # type: ignore[arg-type]


def test_prose_prompt_uses_the_scene_and_its_own_context_budget(
    make_agent: AgentFactory,
) -> None:
    budgets: list[int] = []

    def context(memory: Any, *, budget: int, **_: Any) -> str:
        budgets.append(budget)
        return "NOTES"

    agent, models, _ = make_agent(context_builder=context, prose_context_tokens=123)
    agent.plan()
    draft = agent.next_beat()
    agent.accept(draft.id)
    "".join(agent.write_prose(draft.id))
    assert budgets[0] == agent.context_tokens and budgets[-1] == 123
    prompt = next(p for k, p in models["writer"].calls if k == "prose")
    assert scene_brief(draft.beat) in prompt and "NOTES" in prompt


def test_a_repeated_paragraph_is_found_once_it_is_complete() -> None:
    from aizac.writer.context import repeated_line_start

    para = 'The King: "I was told I am not the king," he said.\n'
    text = "Dawn came.\n" + para + "He left.\n" + para.replace(",", "").upper()
    assert text[: repeated_line_start(text)] == "Dawn came.\n" + para + "He left.\n"
    assert repeated_line_start(text[:-1]) is None  # the line is not finished yet
    assert repeated_line_start("...\n...\n") is None  # short lines may repeat
    assert repeated_line_start("Dawn came over the hills.\nHe left the hall quietly.\n") is None


def test_prose_stops_at_a_repeated_paragraph_and_at_length(make_agent: AgentFactory) -> None:
    from tests.fakes import fake_models

    para = "Rain fell on the old gate while the guards watched the road.\n"
    models = fake_models()
    models["writer"].replies["prose"] = "Night.\n" + para + para + "Never reached.\n"
    agent, _, _ = make_agent(models=models)
    agent.plan()
    draft = agent.next_beat()
    agent.accept(draft.id)
    "".join(agent.write_prose(draft.id))
    assert agent.store.beat(draft.id).prose == "Night.\n" + para.strip()
    agent.prose_writer.prose_words = 5  # 15 tokens: the first paragraph past that ends the prose
    "".join(agent.write_prose(draft.id))
    saved = agent.store.beat(draft.id).prose or ""
    assert saved.startswith("Night.") and "Never reached" not in saved and len(saved) < 150


def test_the_agent_writes_and_exports_through_the_prose_writer_it_is_given(
    make_agent: AgentFactory, settings: Any, tmp_path: Path
) -> None:
    from aizac.llm.router import ModelRouter
    from aizac.writer.agent import WriterAgent
    from aizac.writer.output import ProseWriter
    from tests.fakes import fake_context, fake_models

    agent, _, memory = make_agent()
    agent.plan()
    draft = agent.next_beat()
    agent.accept(draft.id)
    other = fake_models()
    other["writer"].replies["prose"] = "Prose from the injected writer."
    writer = ProseWriter(agent.store, memory, ModelRouter(settings, models=dict(other)),
                         context_builder=fake_context)
    facade = WriterAgent(agent.store, memory, agent.router, None, settings=settings,
                         prose_writer=writer)
    assert facade.prose_writer is writer
    assert "".join(facade.write_prose(draft.id)).strip() == "Prose from the injected writer."
    assert [k for k, _ in other["writer"].calls] == ["prose"]
    assert agent.store.beat(draft.id).prose == "Prose from the injected writer."
    path = facade.export("txt", tmp_path / "out")
    assert "Prose from the injected writer." in path.read_text(encoding="utf-8")
