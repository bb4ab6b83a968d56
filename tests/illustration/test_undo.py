"""A placed or removed picture is a node of the beat editor's undo tree: undo takes it back,
redo puts the same stored picture there again without asking the image model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aizac.application.service import ApplicationService
from aizac.illustration.service import Illustrator
from aizac.illustration.store import COVER, beat_slot
from aizac.text import render

StudioFactory = Any
Written = Any


def test_placing_is_undone_and_redone_without_a_model_call(
    make_studio: StudioFactory, written: Written, tmp_path: Path,
) -> None:
    studio = make_studio()
    agent, beat_id = written(studio)
    service = ApplicationService(studio, export_dir=tmp_path / "exports")
    service._agents[agent.info.name] = agent  # the same open project
    ill = Illustrator(agent)
    first = ill.generate(beat_slot(beat_id), confirmed=True)
    second = ill.generate(beat_slot(beat_id), confirmed=True)
    cover = ill.generate(COVER, confirmed=True)
    made = agent.router.usage.totals("image").images
    slot = beat_slot(beat_id)
    assert service.place_image("saga", slot, first.id) is None
    assert service.place_image("saga", slot, second.id) == first.id
    assert service.place_image("saga", COVER, cover.id) is None
    view = service.history("saga")
    said = [render(step.text(), "en") for step in view.path[-3:]]
    assert said == ["illustration placed 1-1: Seoul gate", "illustration placed 1-1: Seoul gate",
                    "cover placed: The Second Life"]
    assert render(view.path[-1].text(), "ko") == "표지 배치: The Second Life"
    service.undo("saga")
    assert ill.placed(COVER) is None and ill.placed(slot) == second
    service.undo("saga")
    assert ill.placed(slot) == first
    service.redo("saga")
    service.redo("saga")
    assert ill.placed(slot) == second and ill.placed(COVER) == cover
    service.place_image("saga", slot, None)  # removing is a node too
    assert ill.placed(slot) is None
    service.undo("saga")
    assert ill.placed(slot) == second
    assert agent.router.usage.totals("image").images == made  # no picture was made again
    assert service.place_image("saga", slot, second.id) == second.id  # no change, no node
    assert len(service.history("saga").path) == len(view.path)
