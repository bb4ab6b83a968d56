"""The memory built from an imported manuscript (:meth:`ApplicationService.read_manuscript`):
the scenes read in order into designs and memories, a turn per scene, resumed after a cancel
or a kill with nothing read twice, stopped by a budget, then written on from."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from aizac.application.importing import RECORD_KEY, ImportRecord
from aizac.application.reading import ReadBudget, unread_scenes
from aizac.application.service import ApplicationService
from aizac.cli.importing import register
from aizac.errors import CancelledError, InvalidInputError
from aizac.llm.embeddings import HashingEmbeddings
from aizac.settings import Settings
from aizac.text import Text
from aizac.writer.project_rows import UNREAD_CAST
from aizac.writer.service import Studio
from tests.fakes.reading import ReadingModel
from tests.web.conftest import ROLES

NAME = "북문의 기사"
FILLER = "바람이 차가웠고 하늘은 낮게 내려앉아 있었다. 성벽 위로 눈이 흩날렸다. "
SCENES = {
    (1, 1): "한서아는 북문에서 밤을 지켰다. 한서아는 왼팔을 다쳤다.",
    (1, 2): "도윤이 북문으로 찾아왔다. 서아는 도윤에게 검을 맡겼다.",
    (2, 1): "도윤은 북부 성으로 끌려갔다. 북문의 봉인은 보름달에만 열린다.",
    (2, 2): "한서아는 로엔 백작과 마주쳤다. 둘은 칼을 겨누었다.",
    (3, 1): "한서아의 왼팔이 나았다. 그녀는 다시 검을 들었다.",
    (3, 2): "한서아와 도윤은 서로를 안았다. 밤이 깊었다.",
}


@pytest.fixture
def model() -> ReadingModel:  # the web fixtures' studio takes it for every role
    reader = ReadingModel()
    reader.speak_korean()
    return reader


def scene(episode: int, index: int) -> str:
    head = f"{episode}화 {index}장. {SCENES[(episode, index)]}"
    return "\n\n".join([head, FILLER * 4, FILLER * 4])


def write_story(root: Path) -> Path:
    folder = root / "원고"
    folder.mkdir(parents=True)
    for n in (1, 2, 3):
        body = "\n\n***\n\n".join(scene(n, s) for s in (1, 2))
        (folder / f"{n}화.txt").write_text(f"{n}화\n\n{body}\n", encoding="utf-8")
    return folder


def imported(service: ApplicationService, tmp_path: Path) -> ApplicationService:
    service.import_manuscript(NAME, [write_story(tmp_path)], genre="판타지")
    return service


def memory_state(service: ApplicationService) -> dict[str, object]:
    """The memory and the beats, as comparable data (ids included)."""
    agent = service.agent(NAME)
    hits = sorted(service.all_memories(NAME), key=lambda h: h.id)
    return {
        "memories": [(h.id, h.tag, h.text, h.metadata.get("chapter"), h.metadata.get("beat"))
                     for h in hits],
        "turn": agent.memory.turn,
        "short_term": agent.memory.short_term.items(),
        "beats": [(b.episode, b.index, b.beat.characters, b.memory_ids, b.summary)
                  for b in service.accepted(NAME)],
        "record": ImportRecord.loads(agent.store.kv_get(RECORD_KEY)[0]).read_through,  # type: ignore[index]
    }


def test_reading_builds_characters_states_relations_and_rules_from_the_text(
        service: ApplicationService, model: ReadingModel, tmp_path: Path) -> None:
    imported(service, tmp_path)
    said: list[Text] = []
    report = service.read_manuscript(NAME, said.append)
    assert (report.scenes, report.read_now, report.scenes_read, report.read_through) == (
        6, 6, 6, 3)
    assert report.done and report.stopped == ""
    agent = service.agent(NAME)
    memory = agent.memory
    cast = memory.characters()
    assert set(cast) == {"한서아", "도윤", "백작"}
    assert "서아" in cast["한서아"] and "로엔 백작" in cast["백작"]
    # a state that changed in the text: the later one is current, the earlier its history
    assert [h.text for h in memory.current_states("한서아")
            if h.metadata.get("aspect") == "condition"] == ["한서아의 왼팔이 나았다."]
    assert memory.current_states("도윤")[0].text == "도윤은 북부 성에 갇혔다."
    relation = memory.current_relation("한서아", "도윤")
    assert relation is not None and relation.text == "서로 사랑하는 사이."
    enemy = memory.current_relation("한서아", "백작")
    assert enemy is not None and enemy.text == "서로 죽이려는 원수."
    assert [(h.text, h.metadata.get("keyword")) for h in memory.world_rules()] == [
        ("북문의 봉인은 보름달에만 열린다.", "봉인")]
    # each scene's design is the one read from its text, cast by canonical names
    beats = service.accepted(NAME)
    assert [b.beat.characters for b in beats] == [
        ["한서아"], ["한서아", "도윤"], ["도윤"], ["한서아", "백작"], ["한서아"],
        ["한서아", "도윤"]]
    assert all(b.summary and b.memory_ids for b in beats)
    assert beats[0].beat.events == [f"1화 1장. {SCENES[(1, 1)].split('.')[0]}."]
    # the extraction saw the scene's own text; the read call saw what memory knew by then
    extracts = [p for c, p in zip(model.calls, model.prompts, strict=True)
                if c == "CharacterExtraction"]
    assert all("작가가 쓴 장면 원문" in p for p in extracts[-6:])
    assert "한서아는 왼팔을 다쳤다." in extracts[-6]
    reads = [p for c, p in zip(model.calls, model.prompts, strict=True)
             if c == "BeatDesignWithCast"]
    assert len(reads) == 6 and "한서아" not in reads[0].split("지금까지의 이야기")[0]
    assert "한서아" in reads[1].split("지금까지의 이야기")[0]  # known by the second scene
    keys = [t.key for t in said]
    assert keys.count("progress.read.episode") == 3 and keys.count("progress.read.read") == 6


def test_a_scenes_memories_are_committed_at_its_own_turn(
        service: ApplicationService, tmp_path: Path) -> None:
    imported(service, tmp_path)
    agent = service.agent(NAME)
    assert agent.memory.turn == 0  # imported scenes not read are no turns
    service.generate_plot(NAME)  # a write: its recovery realigns the turn
    assert agent.memory.turn == 0
    service.read_manuscript(NAME)
    assert agent.memory.turn == 6
    for n, beat in enumerate(service.accepted(NAME)):
        turns = {agent.memory.get(i).metadata["created_turn"] for i in beat.memory_ids}
        assert turns == {n}, (beat.episode, beat.index, turns)


def test_cancel_between_scenes_then_read_again_equals_a_straight_read(
        service: ApplicationService, tmp_path: Path, studio: object) -> None:
    imported(service, tmp_path)

    def cancel_after_third(text: Text) -> None:
        if text.key == "progress.read.read" and text.params["where"] == "2-1":
            service.cancel(NAME)

    with pytest.raises(CancelledError):
        service.read_manuscript(NAME, cancel_after_third)
    agent = service.agent(NAME)
    assert [b.index for b in unread_scenes(agent)] == [2, 1, 2]
    assert agent.memory.turn == 3
    assert ImportRecord.loads(agent.store.kv_get(RECORD_KEY)[0]).read_through == 1  # type: ignore[index]
    report = service.read_manuscript(NAME)
    assert (report.read_now, report.scenes_read) == (3, 6)
    resumed = memory_state(service)

    straight = ApplicationService(service.studio, export_dir=tmp_path / "x2")
    service.delete_project(NAME)
    imported(straight, tmp_path / "again")
    straight.read_manuscript(NAME)
    assert _without_ids(memory_state(straight)) == _without_ids(resumed)
    assert len(resumed["memories"]) == len(memory_state(straight)["memories"])  # type: ignore[arg-type]


def _without_ids(state: dict[str, object]) -> dict[str, object]:
    """Two projects' memories compare by content (ids are random per project)."""
    out = dict(state)
    out["memories"] = sorted(m[1:] for m in state["memories"])  # type: ignore[attr-defined]
    out["beats"] = [(e, i, c, len(ids), s) for e, i, c, ids, s in state["beats"]]  # type: ignore[attr-defined]
    return out


def test_a_budget_stops_before_a_scene_and_says_how_to_go_on(
        service: ApplicationService, tmp_path: Path) -> None:
    imported(service, tmp_path)
    first = service.read_manuscript(NAME, budget=ReadBudget(tokens=1))
    assert (first.read_now, first.stopped, first.next_scene) == (0, "budget", "1-1")
    assert [t.key for t in first.lines()][-1] == "read.stopped_budget"
    one = service.read_manuscript(NAME, budget=ReadBudget(tokens=10**9))
    assert one.done and one.read_now == 6
    per_scene = one.spent.tokens / 6
    service.delete_project(NAME)
    imported(service, tmp_path / "again")
    part = service.read_manuscript(NAME, budget=ReadBudget(tokens=int(per_scene * 2.5)))
    assert part.stopped == "budget" and part.read_now in (1, 2)
    assert part.spent.tokens <= per_scene * 2.5
    assert part.next_scene == ["1-2", "2-1"][part.read_now - 1]
    rest = service.read_manuscript(NAME)
    assert rest.done and rest.read_now == 6 - part.read_now


def test_the_budget_text_reads_tokens_and_dollars() -> None:
    assert ReadBudget.parse("200k") == ReadBudget(tokens=200_000)
    assert ReadBudget.parse("150,000") == ReadBudget(tokens=150_000)
    assert ReadBudget.parse("$2.5") == ReadBudget(dollars=2.5)
    assert ReadBudget.parse("3usd") == ReadBudget(dollars=3.0)
    with pytest.raises(InvalidInputError) as bad:
        ReadBudget.parse("lots")
    assert bad.value.key == "error.read.budget_text"
    with pytest.raises(InvalidInputError):
        ReadBudget.parse("0")


def test_the_next_beat_after_reading_plans_with_the_real_cast(
        service: ApplicationService, model: ReadingModel, tmp_path: Path) -> None:
    imported(service, tmp_path)
    service.read_manuscript(NAME)
    service.generate_plot(NAME)
    agent = service.agent(NAME)
    assert agent.present_cast() == ["한서아", "도윤"]  # the last scene's, as read
    draft = service.next_beat(NAME)
    assert (draft.episode, draft.index) == (4, 1)
    accepted = service.accept(NAME, draft.id, draft.version)
    assert agent.memory.turn == 7
    assert accepted.status == "accepted"


def test_reading_after_new_beats_is_refused_and_a_read_project_reads_nothing(
        service: ApplicationService, model: ReadingModel, tmp_path: Path) -> None:
    imported(service, tmp_path)
    service.generate_plot(NAME)
    draft = service.next_beat(NAME)
    service.accept(NAME, draft.id, draft.version)
    assert service.agent(NAME).memory.turn == 1  # the unread scenes are no turns
    with pytest.raises(InvalidInputError) as refused:
        service.read_manuscript(NAME)
    assert refused.value.key == "error.read.after_new_beats"
    service.undo(NAME)
    service.undo(NAME)
    assert service.read_manuscript(NAME).read_now == 6
    again = service.read_manuscript(NAME)
    assert (again.read_now, again.spent.calls) == (0, 0)


def test_a_project_without_an_import_is_refused(service: ApplicationService) -> None:
    service.create_project("빈", genre="", keywords=["회귀"], language="ko")
    with pytest.raises(InvalidInputError) as refused:
        service.read_manuscript("빈")
    assert refused.value.key == "error.read.not_imported_project"


def test_the_unread_placeholder_is_gone_after_reading(
        service: ApplicationService, tmp_path: Path) -> None:
    imported(service, tmp_path)
    assert all(b.beat.characters == [UNREAD_CAST] for b in service.accepted(NAME))
    service.read_manuscript(NAME)
    assert not any(UNREAD_CAST in b.beat.characters for b in service.accepted(NAME))


# ----------------------------------------------------------------------------- kills
KILL_SCRIPT = """
import sys
from pathlib import Path
sys.path.insert(0, {root!r})
from aizac.application.service import ApplicationService
from aizac.cliches import ClicheDB
from aizac.llm.embeddings import HashingEmbeddings
from aizac.settings import Settings
from aizac.writer.service import Studio
from aizac.llm.embeddings import HashingEmbeddings
from aizac.writer.service import Studio
from tests.fakes.reading import ReadingModel
from tests.web.conftest import ROLES
from tests.web.conftest import ROLES

model = ReadingModel()
model.speak_korean()
settings = Settings(data_dir=Path({data!r}), language="en", structured_retries=1,
                    transient_retries=0)
studio = Studio(settings, models=dict.fromkeys(ROLES, model), embeddings=HashingEmbeddings(),
                cliches=ClicheDB(embeddings=HashingEmbeddings()), beats_per_episode=3)
ApplicationService(studio, export_dir=Path({data!r}) / "x").read_manuscript({name!r})
"""


@pytest.mark.parametrize("step", ["read:extracted", "read:logged", "read:committed",
                                  "read:summarised", "read:marked"])
def test_a_read_killed_at_each_step_resumes_with_nothing_lost_or_twice(
        step: str, service: ApplicationService, settings: Settings, tmp_path: Path) -> None:
    from chromadb.api.client import SharedSystemClient

    from aizac.writer.project_dirs import release_project

    imported(service, tmp_path)
    release_project(service.agent(NAME).store.directory)
    SharedSystemClient.clear_system_cache()  # the children open it afresh
    script = KILL_SCRIPT.format(root=str(Path(__file__).resolve().parents[2]),
                                data=str(settings.data_dir), name=NAME)
    env = {k: v for k, v in os.environ.items() if not k.startswith("AIZAC_")}
    killed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=300, env={**env, "AIZAC_KILL_AT": step})
    assert killed.returncode == -9, killed.stderr
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    SharedSystemClient.clear_system_cache()
    studio = Studio(settings, models=dict.fromkeys(ROLES, ReadingModel()),
                    embeddings=HashingEmbeddings(), beats_per_episode=3)
    again = ApplicationService(studio, export_dir=tmp_path / "x2")
    agent = again.agent(NAME)
    assert (agent.memory.turn, agent.store.count_unread()) == (6, 0)
    record = ImportRecord.loads(agent.store.kv_get(RECORD_KEY)[0])  # type: ignore[index]
    assert record.read_through == 3
    assert agent.memory.short_term.items() == [
        f"{e}화 {i}장에서 일어난 일." for e in (1, 2, 3) for i in (1, 2)]  # each once
    beat_ids = sorted(i for b in again.accepted(NAME) for i in b.memory_ids)
    assert beat_ids == sorted(h.id for h in agent.memory.all())  # each memory once, a scene's
    assert sorted(agent.memory.characters()) == ["도윤", "백작", "한서아"]


def test_reading_runs_in_a_thread_while_another_cancels(
        service: ApplicationService, model: ReadingModel, tmp_path: Path) -> None:
    imported(service, tmp_path)
    model.think(0.05)
    errors: list[BaseException] = []

    def read() -> None:
        try:
            service.read_manuscript(NAME)
        except BaseException as e:
            errors.append(e)

    worker = threading.Thread(target=read)
    worker.start()
    while not model.calls:
        threading.Event().wait(0.01)
    service.cancel(NAME)
    worker.join(60)
    assert errors and isinstance(errors[0], CancelledError)
    left = len(unread_scenes(service.agent(NAME)))
    assert 1 <= left <= 6
    model.think(0)
    report = service.read_manuscript(NAME)
    assert report.done and report.read_now == left


# ------------------------------------------------------------------------------- the CLI
def _cli(studio: Studio) -> typer.Typer:
    app = typer.Typer()
    register(app, lambda **_: studio)
    return app


def test_import_with_read_then_read_again_on_the_command_line(
        studio: Studio, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIZAC_UI_LANGUAGE", "en")
    runner = CliRunner()
    folder = write_story(tmp_path)
    out = runner.invoke(_cli(studio), ["import", str(folder), "--project", NAME, "--read",
                                       "--budget", "1"])
    assert out.exit_code == 0, out.output
    assert "Saved project" in out.output and "has not read" not in out.output
    assert "Stopped before scene 1-1" in out.output
    assert f"aizac read --project {NAME}" in out.output
    done = runner.invoke(_cli(studio), ["read", "--project", NAME])
    assert done.exit_code == 0, done.output
    assert "» Reading episode 1 of 3 into memory" in done.output
    assert "Read 6 scene(s) into memory: 6 of 6 scenes read, 3 of 3 episodes whole" in done.output
    assert "The memory has read the whole manuscript." in done.output
    bad = runner.invoke(_cli(studio), ["read", "--project", NAME, "--budget", "lots"])
    assert bad.exit_code == 1 and "'lots' is not a budget" in bad.output
