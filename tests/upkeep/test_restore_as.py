"""A backup restored under another name is a second project of its own: listed and opened by
that name, with the same beats and memories, the first one untouched."""

from __future__ import annotations

from collections.abc import Callable

from aizac.writer.service import Studio
from tests.upkeep.conftest import written


def test_a_backup_restored_under_another_name_is_its_own_project(
    make_studio: Callable[..., Studio]
) -> None:
    written(make_studio(), "saga")
    archive = make_studio().backup("saga").path
    studio = make_studio()
    report = studio.restore(archive, "copy")
    assert report.project == "copy" and report.kept is None
    assert sorted(i.name for i in studio.projects()) == ["copy", "saga"]
    copy, saga = studio.open("copy"), studio.open("saga")
    assert copy.info.name == "copy" and saga.info.name == "saga"
    assert len(copy.store.beats(status="accepted")) == len(saga.store.beats(status="accepted"))
    assert sorted(h.id for h in copy.memory.all()) == sorted(h.id for h in saga.memory.all())
    copy.accept(copy.next_beat().id)  # it goes on by itself
    assert copy.memory.turn == saga.memory.turn + 1
