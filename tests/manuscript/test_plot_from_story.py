"""The planner drafts the plot of an imported story from what the memory knows
(:meth:`ApplicationService.draft_plot_from_story`, ``aizac plot --from-story``): the prompt
holds the story, the cast, their relations and the open threads; the plot is saved for the
writer to edit; a plot already there is kept unless replaced on purpose; the memories the
reading made stay as they are."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from aizac.application.service import ApplicationService
from aizac.cli.story import register
from aizac.errors import ConflictError, InvalidInputError
from aizac.memory.facts import PROFILE
from aizac.tokens import count_tokens
from aizac.writer.ports import ProjectMemory
from aizac.writer.service import Studio
from aizac.writer.story_plot import condense, episode_lines
from tests.fakes import ScriptedChatModel

from .conftest import write_serial

NAME = "귀환한 기사"
THREAD = "깨진 인장이 우물 속에 숨겨졌다."
RELATION = "아렌과 한서아는 서로를 믿지 않는 동료다."


def _read(memory: ProjectMemory) -> list[str]:
    """What a reading of the manuscript commits (through the memory's public batch)."""
    batch = memory.stage()
    batch.remember("아렌 — 기사. 북문을 지키던 젊은 기사.", "Character", character_name="아렌",
                   aspect=PROFILE, chapter=1)
    batch.remember("한서아 — 순례자. 왕도를 떠도는 여인.", "Character",
                   character_name="한서아", aspect=PROFILE, chapter=1)
    batch.remember(RELATION, "CharacterRelation", character1="아렌", character2="한서아",
                   chapter=2)
    batch.remember(THREAD, "Story", keyword="인장", foreshadow=True, chapter=2)
    return list(batch.commit())


@pytest.fixture
def imported(service: ApplicationService, model: ScriptedChatModel, tmp_path: Path
             ) -> list[str]:
    model.speak_korean()
    service.import_manuscript(NAME, [write_serial(tmp_path)], genre="판타지")
    return service.change_memory(NAME, _read)


def _profiles(service: ApplicationService, who: str) -> list[str]:
    return [h.id for h in service.all_memories(NAME)
            if h.metadata.get("character_name") == who and h.metadata.get("aspect") == PROFILE
            and not h.superseded and not h.metadata.get("forgotten")]


def test_the_planner_drafts_the_plot_from_the_story_and_its_memory(
        service: ApplicationService, model: ScriptedChatModel, imported: list[str]) -> None:
    said: list[str] = []
    record = service.draft_plot_from_story(NAME, lambda t: said.append(t.key))
    assert said == ["progress.plot_from_story"]
    assert model.calls[-1] == "NovelPlot"
    prompt = model.prompts[-1]
    for held in ("아렌", "한서아", RELATION, THREAD, "1: 1화 1장 1문단", "3: 3화 1장 1문단"):
        assert held in prompt, held
    saved = service.plot(NAME)
    assert saved is not None and saved.plot.title == "두 번째 새벽" == record.plot.title
    assert (saved.plot.genre, saved.version) == ("판타지", record.version)


def test_the_memories_the_reading_made_are_not_replaced(
        service: ApplicationService, imported: list[str]) -> None:
    reading = _profiles(service, "아렌")
    record = service.draft_plot_from_story(NAME)
    assert _profiles(service, "아렌") == reading  # the plot's 아렌 is the reading's one
    assert len(_profiles(service, "미라")) == 1  # a main character the reading never met
    current = {h.id for h in service.all_memories(NAME) if not h.superseded}
    assert set(imported) <= current
    assert not set(record.memory_ids) & set(imported)


def test_a_plot_already_there_is_kept_unless_replaced_on_purpose(
        service: ApplicationService, model: ScriptedChatModel, imported: list[str]) -> None:
    first = service.draft_plot_from_story(NAME)
    calls = len(model.calls)
    with pytest.raises(ConflictError) as caught:
        service.draft_plot_from_story(NAME)
    assert caught.value.key == "error.plot.exists" and len(model.calls) == calls
    assert service.plot(NAME) == first
    again = service.draft_plot_from_story(NAME, force=True)
    assert again.version > first.version
    assert len(_profiles(service, "미라")) == 1  # the first draft's seed forgotten, not doubled


def test_a_project_without_story_has_nothing_to_draft_from(
        service: ApplicationService) -> None:
    service.create_project("empty", genre="fantasy", keywords=["sword"], language="en")
    with pytest.raises(InvalidInputError) as caught:
        service.draft_plot_from_story("empty")
    assert caught.value.key == "error.plot.no_story" and service.plot("empty") is None


class _Killed(BaseException):
    """The process dying at a kill point (in process: nothing after it runs)."""


def test_a_kill_between_seeding_and_saving_leaves_no_seed(
        service: ApplicationService, imported: list[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    def checkpoint(step: str) -> None:
        if step == "plot:memory-seeded":
            raise _Killed(step)

    monkeypatch.setattr("aizac.writer.story_plot.checkpoint", checkpoint)
    before = {h.id for h in service.all_memories(NAME) if not h.metadata.get("forgotten")}
    with pytest.raises(_Killed):
        service.draft_plot_from_story(NAME)
    assert len(service.all_memories(NAME)) > len(before)  # the seeds were committed
    service.agent(NAME).reconcile()  # what the next write does first
    after = {h.id for h in service.all_memories(NAME) if not h.metadata.get("forgotten")}
    assert service.plot(NAME) is None and after == before


def test_a_long_story_is_condensed_to_its_budget_with_every_episode() -> None:
    lines = {n: f"에피소드 {n}의 사건. " * (3 if n % 2 else 40) for n in range(1, 101)}
    out = condense(lines, budget=3000)
    assert sum(count_tokens(line) for line in out) <= 3000
    assert [line.split(":")[0] for line in out][:3] == ["1", "2", "3"] and len(out) == 100
    assert out[0] == "1: " + lines[1]  # a short episode is kept whole
    many = condense(dict.fromkeys(range(1, 1001), "긴 사건이 있었다. " * 5), budget=1500)
    assert many[0].startswith("1-") and len(many) < 1000  # neighbours share a line


def test_an_unread_scene_tells_the_story_by_its_first_line(
        service: ApplicationService, tmp_path: Path) -> None:
    service.import_manuscript(NAME, [write_serial(tmp_path)])
    lines = episode_lines(service.accepted(NAME))
    assert sorted(lines) == [1, 2, 3] and lines[2].startswith("2화 1장 1문단")


def test_the_command_drafts_the_plot_from_the_story(
        studio: Studio, service: ApplicationService, imported: list[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIZAC_UI_LANGUAGE", "en")
    app = typer.Typer()
    register(app, lambda **_: studio)
    out = CliRunner().invoke(app, ["plot", "--project", NAME, "--from-story"])
    assert out.exit_code == 0, out.output
    assert "두 번째 새벽" in out.output
    again = CliRunner().invoke(app, ["plot", "--project", NAME, "--from-story"])
    assert again.exit_code == 1 and "already has a plot" in again.output
