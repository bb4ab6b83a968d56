"""The application service's own collaborators: the slot policy that admits generations, the
records it hands out instead of the store, the project folder held still, deletion."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from aizac.application.service import ApplicationService
from aizac.errors import ConflictError, LimitError, NotFoundError
from aizac.writer.project_dirs import DB_NAME
from aizac.writer.service import Studio


class CountingSlots:
    """A slot policy that counts the generations it admits (or refuses every one)."""

    def __init__(self, *, refuse: bool = False) -> None:
        self.taken: list[str] = []
        self.held = 0
        self.refuse = refuse

    @contextlib.contextmanager
    def generation(self) -> Iterator[None]:
        if self.refuse:
            raise LimitError("error.server.generation_limit", retry_after=5.0, count=1)
        self.held += 1
        self.taken.append("slot")
        try:
            yield
        finally:
            self.held -= 1


def _service(studio: Studio, tmp_path: Path, slots: CountingSlots) -> ApplicationService:
    return ApplicationService(studio, export_dir=tmp_path / "exports", slots=slots)


def test_each_model_generation_takes_one_slot_and_reads_take_none(
    studio: Studio, tmp_path: Path
) -> None:
    slots = CountingSlots()
    service = _service(studio, tmp_path, slots)
    service.create_project("dawn", genre="fantasy", keywords=["regression"], language="en")
    service.generate_plot("dawn")
    assert len(slots.taken) == 1
    draft = service.next_beat("dawn")
    draft = service.regenerate("dawn", draft.id, draft.version, "darker")
    accepted = service.accept("dawn", draft.id, draft.version)
    assert len(slots.taken) == 4
    held_while_streaming = [slots.held for _ in service.write_prose("dawn", accepted.id)]
    assert held_while_streaming and set(held_while_streaming) == {1}  # held for the stream
    assert slots.held == 0 and len(slots.taken) == 5
    service.ask("dawn", "Who is Aren?")
    assert len(slots.taken) == 6
    service.beat("dawn", accepted.id)
    service.beats("dawn")
    service.history("dawn")
    service.all_memories("dawn")
    service.undo("dawn")
    assert len(slots.taken) == 6  # reads, and undo (no model call), take none


def test_a_refused_slot_changes_nothing(studio: Studio, tmp_path: Path) -> None:
    slots = CountingSlots(refuse=True)
    service = _service(studio, tmp_path, slots)
    service.create_project("dawn", genre="fantasy", keywords=["regression"], language="en")
    with pytest.raises(LimitError):
        service.generate_plot("dawn")
    assert service.plot("dawn") is None
    assert not service.running("dawn")  # refused before the operation began


def test_the_default_policy_admits_every_generation(service: ApplicationService) -> None:
    service.create_project("dawn", genre="fantasy", keywords=["regression"], language="en")
    assert service.generate_plot("dawn").plot.title


def test_a_beat_is_read_through_the_service(service: ApplicationService) -> None:
    service.create_project("dawn", genre="fantasy", keywords=["regression"], language="en")
    service.generate_plot("dawn")
    draft = service.next_beat("dawn")
    assert service.beat("dawn", draft.id) == draft
    with pytest.raises(NotFoundError):
        service.beat("dawn", draft.id + 100)


def test_the_project_folder_is_held_still_while_it_is_copied(
    service: ApplicationService,
) -> None:
    service.create_project("dawn", genre="fantasy", keywords=["regression"], language="en")
    finished = threading.Event()

    def write() -> None:
        service.update_project("dawn", genre="romance", keywords=["contract"])
        finished.set()

    with service.project_folder("dawn") as folder:
        assert (folder / DB_NAME).is_file()
        writer = threading.Thread(target=write)
        writer.start()
        assert not finished.wait(0.5)  # the write waits for the copy
    writer.join(10)
    assert finished.is_set() and service.agent("dawn").info.genre == "romance"


def test_a_project_is_deleted_with_its_exports_but_not_while_it_generates(
    service: ApplicationService, tmp_path: Path
) -> None:
    service.create_project("dawn", genre="fantasy", keywords=["regression"], language="en")
    (service.export_dir / "dawn").mkdir(parents=True)
    (service.export_dir / "dawn" / "old.txt").write_text("x", encoding="utf-8")
    with service.operation("dawn"), pytest.raises(ConflictError):
        service.delete_project("dawn")
    assert service.list_projects() == ["dawn"]
    service.delete_project("dawn")
    assert service.list_projects() == []
    assert not (service.export_dir / "dawn").exists()
