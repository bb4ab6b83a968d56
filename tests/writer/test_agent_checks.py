"""The agent's own checks and limits: ask's ``k``, a plot that did not save (fake models)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from aizac.cliches import ClicheDB
from aizac.errors import ConflictError, InvalidInputError
from aizac.llm.embeddings import HashingEmbeddings
from aizac.llm.router import ModelRouter
from aizac.settings import Settings
from aizac.writer.agent import WriterAgent
from aizac.writer.project import ProjectStore
from aizac.writer.service import Studio
from tests.fakes import DictMemory, fake_context, fake_models

ASK_REPLY = '```json\n{"query": "gate", "filter": "NO_FILTER"}\n```'


def test_ask_returns_up_to_k_memories(tmp_path: Path, cliches: ClicheDB) -> None:
    settings = Settings(data_dir=tmp_path, language="en", structured_retries=1)
    models = fake_models(extractor={"unknown": ASK_REPLY})
    studio = Studio(
        settings, models=dict(models), embeddings=HashingEmbeddings(), cliches=cliches
    )
    agent = studio.create("gates", "회귀, 복수", genre="modern fantasy", language="en")
    batch = agent.memory.stage()
    for n in range(14):
        batch.remember(f"Gate {n} opened over Seoul district {n}.", "Story", keyword="gate",
                       chapter=1)
    batch.commit()
    assert len(agent.ask("which gates opened?", k=10)) == 10
    assert len(agent.ask("which gates opened?", k=3)) == 3
    assert len(agent.ask("which gates opened?")) == 5


class PlotNotSaved(ProjectStore):
    """A store whose plot never reads back (a save that silently did not land)."""

    def plot(self) -> Any:
        return None


def test_a_plot_that_does_not_read_back_is_an_error_not_an_assert(
    tmp_path: Path, cliches: ClicheDB
) -> None:
    settings = Settings(data_dir=tmp_path, language="en", structured_retries=1)
    root = tmp_path / "projects"
    ProjectStore.create(root, "n", language="en", genre="modern fantasy", keywords=["회귀"])
    models = fake_models()
    agent = WriterAgent(
        PlotNotSaved(root / "n"), DictMemory(), ModelRouter(settings, models=dict(models)),
        cliches, settings=settings, context_builder=fake_context,
    )
    with pytest.raises(InvalidInputError, match="no plot"):  # was an AssertionError
        agent.plan()
    assert models["planner"].kinds() == ["plot"]


def test_not_a_draft_and_a_stale_version_are_one_error_each_everywhere(
    tmp_path: Path, cliches: ClicheDB
) -> None:
    from aizac.application.service import ApplicationService

    settings = Settings(data_dir=tmp_path, language="en", structured_retries=1)
    studio = Studio(settings, models=dict(fake_models()), embeddings=HashingEmbeddings(),
                    cliches=cliches)
    agent = studio.create("n", "회귀", genre="modern fantasy", language="en")
    web = ApplicationService(studio, export_dir=tmp_path / "exports")
    plot = agent.plan()
    first = agent.next_beat()
    accepted = agent.accept(first.id)
    not_a_draft = [
        lambda: agent.reject(first.id),
        lambda: agent.edit_beat(first.id, first.beat),
        lambda: agent.regenerate(first.id),
        lambda: agent.store.update_draft(first.id, first.beat),
        lambda: web.edit_beat("n", first.id, None, first.beat),
    ]
    for call in not_a_draft:
        with pytest.raises(InvalidInputError, match="is accepted; only a draft") as err:
            call()
        assert err.value.key == "error.beat.not_draft"  # one rule: one message and hint
    draft = agent.next_beat()
    stale = draft.version + 1
    for call in [
        lambda: agent.reject(draft.id, expected_version=stale),
        lambda: agent.edit_beat(draft.id, draft.beat, expected_version=stale),
        lambda: agent.accept(draft.id, expected_version=stale),
        lambda: web.edit_beat("n", draft.id, stale, draft.beat),
        lambda: agent.update_plot(plot.plot, expected_version=plot.version + 1),
    ]:
        with pytest.raises(ConflictError, match="changed since you loaded it"):
            call()
    assert agent.store.beat(draft.id).version == draft.version  # nothing was written
    agent.reject(draft.id)
    with pytest.raises(ConflictError, match="changed since you loaded it"):
        agent.unaccept(accepted.id, expected_version=accepted.version + 1)


def test_prose_only_for_an_accepted_beat_is_one_error_in_the_agent_and_the_store(
    tmp_path: Path, cliches: ClicheDB
) -> None:
    settings = Settings(data_dir=tmp_path, language="en", structured_retries=1)
    studio = Studio(settings, models=dict(fake_models()), embeddings=HashingEmbeddings(),
                    cliches=cliches)
    agent = studio.create("n", "회귀", genre="modern fantasy", language="en")
    agent.plan()
    draft = agent.next_beat()
    for call in [
        lambda: "".join(agent.write_prose(draft.id)),
        lambda: agent.save_prose(draft.id, "Words."),
        lambda: agent.store.save_prose(draft.id, "Words."),
    ]:
        with pytest.raises(InvalidInputError, match="is draft; prose is written") as err:
            call()
        assert err.value.key == "error.beat.not_accepted"
    assert not agent.store.beat(draft.id).prose
