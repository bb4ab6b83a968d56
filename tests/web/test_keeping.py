"""The web app's project box over a damaged project (issue 37, items 2 and 3): it is listed,
marked; Check says what is wrong and which backup; Back up offers a consistent backup for
download (through the application service); the other projects open as always."""

from __future__ import annotations

from pathlib import Path

from aizac.application.service import ApplicationService
from aizac.llm.embeddings import HashingEmbeddings
from aizac.upkeep.archive import verify
from aizac.web import handlers as h
from aizac.web.labels import Labels
from aizac.web.runner import Ui
from aizac.writer.service import Studio


def _project(service: ApplicationService, name: str) -> Path:
    agent = service.create_project(name, genre="fantasy", keywords=["gate"], language="en")
    service.generate_plot(name)
    draft = service.next_beat(name)
    service.accept(name, draft.id, draft.version)
    return agent.info.path


def test_check_and_back_up_beside_the_project_box(service: ApplicationService) -> None:
    L = Labels("en")
    good = _project(service, "good")
    _project(service, "bad")
    offered = Path(h.backup_file(service, "bad"))  # taken while the app holds the project
    manifest = verify(offered)
    assert manifest.project == "bad" and "project.sqlite3" in manifest.files
    assert offered.is_relative_to(service.export_dir)  # served from the export folder
    assert "every store is whole" in h.check_text(service, "good", L)

    service.studio.close()
    old = service.studio
    service = ApplicationService(  # another start of the app
        Studio(old.settings, router=old.router, embeddings=HashingEmbeddings(),
               cliches=old.cliches), export_dir=service.export_dir)
    (good.parent / "bad" / "project.sqlite3").write_bytes(b"")
    choices = h.project_choices(service, L)
    assert ("good", "good") in choices and ("bad (damaged)", "bad") in choices
    said = h.check_text(service, "bad", L)
    assert "1 problem" in said and "project.sqlite3" in said and "it is empty" in said
    assert offered.name in said  # the newest backup
    ui = Ui(service, L, "en")
    try:
        h.start_view(service, "bad")
        raise AssertionError("a damaged project opened")
    except Exception as e:  # the status line names the file and says what to do
        line = ui.message(e)
        assert "project.sqlite3" in line and "Check" in line and "Traceback" not in line
    assert h.start_view(service, "good").project == "good"
