"""An imported manuscript becomes the project's story (through the application service and
``aizac import --project``): episodes and beats with their prose, exported, continued by the
next beat, undone up to the import and no further, all or nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from aizac.application.importing import RECORD_KEY, ImportRecord
from aizac.application.service import ApplicationService
from aizac.cli.importing import register
from aizac.errors import InvalidInputError
from aizac.manuscript.preview import Merge
from aizac.writer.service import Studio
from tests.fakes import ScriptedChatModel

from .conftest import scene_text, write_serial

NAME = "귀환한 기사"


def _story(service: ApplicationService, name: str = NAME) -> list[tuple[int, int, str]]:
    return [(b.episode, b.index, b.prose or "") for b in service.accepted(name)]


def test_each_episode_becomes_an_episode_of_beats_with_their_prose(
        service: ApplicationService, tmp_path: Path) -> None:
    report = service.import_manuscript(NAME, [write_serial(tmp_path)], genre="판타지")
    assert (report.project, report.episodes, report.beats) == (NAME, 3, 6)
    assert report.files == ("1화.txt", "2화.txt", "3화.txt")
    assert _story(service) == [(e, s, scene_text(e, s)) for e in (1, 2, 3) for s in (1, 2)]
    info = service.agent(NAME).info
    assert (info.language, info.genre, info.keywords) == ("ko", "판타지", [])
    store = service.agent(NAME).store
    assert store.episode_titles() == {1: "귀환 1", 2: "귀환 2", 3: "귀환 3"}
    stored = store.kv_get(RECORD_KEY)
    assert stored is not None
    record = ImportRecord.loads(stored[0])
    assert (record.episodes, record.beats, record.read_through) == (3, 6, 0)  # memory: unread
    assert service.all_memories(NAME) == []
    # the episodes written next aim at the manuscript's own length
    assert service.agent(NAME).episodes.current().length == report.characters // 3


def test_the_writers_adjustments_are_what_is_saved(
        service: ApplicationService, tmp_path: Path) -> None:
    service.import_manuscript(NAME, [write_serial(tmp_path)], [Merge(2)])
    story = _story(service)
    assert [e for e, _, _ in story] == [1, 1, 1, 2, 2]
    first = "\n".join(prose for e, _, prose in story if e == 1)
    # a merged heading is kept as text (it may be prose)
    assert first == "\n".join([scene_text(1, 1), scene_text(1, 2), "2화 귀환 2",
                               scene_text(2, 1), scene_text(2, 2)])
    assert [prose for e, _, prose in story if e == 2] == [scene_text(3, 1), scene_text(3, 2)]


def test_the_export_holds_the_imported_prose_in_order(
        service: ApplicationService, tmp_path: Path) -> None:
    service.import_manuscript(NAME, [write_serial(tmp_path)])
    result = service.export(NAME, "txt", None, None, None)
    text = Path(result.target).read_text(encoding="utf-8")
    assert result.without_prose == []
    places = [text.index(paragraph) for e in (1, 2, 3) for s in (1, 2)
              for paragraph in scene_text(e, s).splitlines()]
    assert places == sorted(places)


def test_the_next_beat_goes_after_the_last_imported_episode(
        service: ApplicationService, model: ScriptedChatModel, tmp_path: Path) -> None:
    model.speak_korean()
    service.import_manuscript(NAME, [write_serial(tmp_path)])
    # the fixtures' service makes episodes of 3 beats; the imported ones have 2 each
    assert service.agent(NAME).episodes.current().beats == 3
    service.generate_plot(NAME)
    draft = service.next_beat(NAME)
    assert (draft.episode, draft.index) == (4, 1)
    assert service.beats(NAME)[0] == 4
    accepted = service.accept(NAME, draft.id, draft.version)
    assert accepted.status == "accepted"
    assert [(e, s) for e, s, _ in _story(service)][-2:] == [(3, 2), (4, 1)]
    follow = service.next_beat(NAME)
    assert (follow.episode, follow.index) == (4, 2)


def test_undo_stops_at_the_import(
        service: ApplicationService, model: ScriptedChatModel, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    model.speak_korean()
    service.import_manuscript(NAME, [write_serial(tmp_path)])
    adopted: list[object] = []  # the imported beats are in the tree: never walked to adopt
    monkeypatch.setattr(service, "_adopt", lambda *a, **k: adopted.append(a))
    imported = _story(service)
    history = service.history(NAME)
    assert not history.can_undo
    assert [(s.kind, s.where) for s in history.path] == [("import", "1-1…3-2")]
    assert history.path[0].first == "1화.txt, 2화.txt, 3화.txt"
    with pytest.raises(InvalidInputError) as refused:
        service.undo(NAME)
    assert refused.value.key == "error.history.import_start"

    service.generate_plot(NAME)
    draft = service.next_beat(NAME)
    service.accept(NAME, draft.id, draft.version)
    assert len(_story(service)) == 7
    service.undo(NAME)  # the acceptance
    service.undo(NAME)  # the design
    assert _story(service) == imported
    assert service.agent(NAME).store.beat(draft.id).status == "rejected"
    with pytest.raises(InvalidInputError) as again:
        service.undo(NAME)
    assert again.value.key == "error.history.import_start"
    with pytest.raises(InvalidInputError):
        service.switch(NAME, "n0")  # the empty project before the import
    assert _story(service) == imported
    redone = service.redo(NAME)
    assert redone.path[-1].kind == "generate"
    assert service.pending_draft(NAME) is not None
    assert adopted == []


def test_a_second_import_into_the_same_name_is_refused_and_the_first_kept(
        service: ApplicationService, tmp_path: Path) -> None:
    first = write_serial(tmp_path / "a")
    service.import_manuscript(NAME, [first])
    before = _story(service)
    other = tmp_path / "b" / "other.txt"
    other.parent.mkdir()
    other.write_text("1화\n\n" + scene_text(9, 9), encoding="utf-8")
    with pytest.raises(InvalidInputError) as refused:
        service.import_manuscript(NAME, [other])
    assert refused.value.key == "error.project.exists"
    assert _story(service) == before
    assert service.list_projects() == [NAME]


def test_an_import_that_fails_midway_leaves_no_project(
        service: ApplicationService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from aizac.writer import project

    def crash(step: str) -> None:
        if step == "import:beats-written":
            raise OSError("the disk is gone")

    monkeypatch.setattr(project, "_checkpoint", crash)
    folder = write_serial(tmp_path)
    with pytest.raises(OSError):
        service.import_manuscript(NAME, [folder])
    assert service.list_projects() == []
    projects = service.studio.settings.data_dir / "projects"
    assert [p.name for p in projects.iterdir() if not p.name.startswith(".")] == []
    monkeypatch.undo()
    service.import_manuscript(NAME, [folder])  # the name is free
    assert len(_story(service)) == 6


def _app(studio: Studio) -> typer.Typer:
    app = typer.Typer()
    register(app, lambda **_: studio)
    app.command("noop")(lambda: None)  # two commands, so typer keeps "import" as a name
    return app


def test_import_with_a_project_saves_it_and_says_what_was_saved(
        studio: Studio, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = write_serial(tmp_path)
    monkeypatch.setenv("AIZAC_UI_LANGUAGE", "en")
    runner = CliRunner()
    out = runner.invoke(_app(studio), ["import", str(folder), "--project", NAME,
                                       "--merge", "3", "--keywords", "회귀, 복수"])
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert lines[0] == (f"Saved project '{NAME}' from 3 file(s): 2 episodes, 5 beats, "
                        "2,005 characters.")
    assert "has not read these episodes yet" in lines[1]
    assert studio.open(NAME).info.keywords == ["회귀", "복수"]
    again = runner.invoke(_app(studio), ["import", str(folder), "--project", NAME])
    assert again.exit_code == 1 and f"A project named '{NAME}' already exists" in again.output


def test_import_without_preview_or_project_asks_for_a_name_and_saves_nothing(
        tmp_path: Path) -> None:
    folder = write_serial(tmp_path)
    app = typer.Typer()
    register(app, lambda **_: pytest.fail("no Studio is needed to refuse"))
    app.command("noop")(lambda: None)
    out = CliRunner().invoke(app, ["import", str(folder)])
    assert out.exit_code == 1
    assert "error: Name the new project to save the manuscript in" in out.output
    assert "hint: Run aizac import FILE... --project NAME" in out.output


def _aizac(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from aizac.cli import main; main()", *args],
        capture_output=True, text=True, timeout=120, env={**os.environ, **env},
    )


def test_an_import_killed_midway_leaves_no_project(tmp_path: Path) -> None:
    folder = write_serial(tmp_path)
    killed = _aizac("import", str(folder), "--project", NAME,
                    AIZAC_KILL_AT="import:beats-written")
    assert killed.returncode == -9, killed.stderr
    assert NAME not in _aizac("projects").stdout
    again = _aizac("import", str(folder), "--project", NAME)
    assert again.returncode == 0, again.stderr
    listed = _aizac("projects")
    assert NAME in listed.stdout, listed


def test_the_import_record_round_trips() -> None:
    record = ImportRecord(("1화.txt",), 1, 2, 300, read_through=1)
    assert ImportRecord.loads(record.dumps()) == record
    assert json.loads(record.dumps())["read_through"] == 1


def test_a_manuscript_of_headings_only_is_refused_and_saves_nothing(
        service: ApplicationService, tmp_path: Path) -> None:
    only = tmp_path / "목차.txt"
    only.write_text("1화\n\n2화\n", encoding="utf-8")
    with pytest.raises(InvalidInputError) as refused:
        service.import_manuscript(NAME, [only])
    assert refused.value.key == "error.manuscript.no_text"
    assert service.list_projects() == []
