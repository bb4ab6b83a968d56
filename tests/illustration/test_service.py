"""Illustrating a project: confirmation, the budget, storing, placing (Illustrator)."""

from __future__ import annotations

from typing import Any

import pytest
from acceptance.image_servers import TXT2IMG, Fault, SDWebUIServer, sdwebui

from aizac.errors import InvalidInputError, LimitError
from aizac.illustration.service import Illustrator
from aizac.illustration.store import COVER, beat_slot
from aizac.llm.images.base import ImageRefusedError

__all__ = ["sdwebui"]
StudioFactory = Any
Written = Any


def _txt2img(server: SDWebUIServer) -> list[object]:
    return [r for r in server.requests if r.path == TXT2IMG]


def test_nothing_is_made_without_the_writers_confirmation(
    make_studio: StudioFactory, written: Written,
) -> None:
    agent, _ = written(make_studio())
    ill = Illustrator(agent)
    with pytest.raises(InvalidInputError) as caught:
        ill.generate(COVER, confirmed=False)
    assert caught.value.key == "error.image.unconfirmed"
    assert ill.images.all() == []


def test_the_typographic_cover_is_free_and_stored_under_the_project(
    make_studio: StudioFactory, written: Written,
) -> None:
    agent, _ = written(make_studio(image_budget=0))
    ill = Illustrator(agent)
    quote = ill.quote()
    assert (quote.model, quote.billable, quote.left) == ("typographic", False, 0)
    record = ill.generate(COVER, confirmed=True)  # a budget of 0 does not stop a free cover
    path = ill.images.path(record)
    assert path.parent == agent.store.directory / "images" and path.read_bytes()[:4] == b"\x89PNG"
    assert (record.kind, record.billable, record.width, record.height) == (
        "cover", False, 1024, 1536)
    assert ill.images.billable_count() == 0
    assert agent.router.usage.totals("image").images == 1  # the usage log counts it


def test_a_billable_provider_stops_at_the_budget_before_asking(
    make_studio: StudioFactory, written: Written, sdwebui: SDWebUIServer,
) -> None:
    agent, beat_id = written(make_studio(image_model=f"sdwebui:{sdwebui.url}",
                                                 image_budget=5))
    ill = Illustrator(agent)
    ill.images.set_budget(1)  # the project's own budget wins over the setting
    slot = beat_slot(beat_id)
    made = ill.generate(slot, confirmed=True)
    assert made.billable and made.beat_id == beat_id and made.episode == 1
    with pytest.raises(LimitError) as caught:
        ill.generate(slot, confirmed=True)
    assert caught.value.key == "error.image.budget_spent"
    assert caught.value.params == {"used": 1, "budget": 1}
    assert len(_txt2img(sdwebui)) == 1  # the second was never sent
    assert ill.of_slot(slot) == [made]


def test_a_refused_prompt_stores_nothing_and_costs_nothing(
    make_studio: StudioFactory, written: Written, sdwebui: SDWebUIServer,
) -> None:
    agent, beat_id = written(make_studio(image_model=f"sdwebui:{sdwebui.url}"))
    ill = Illustrator(agent)
    sdwebui.fault(Fault(TXT2IMG, refuse=True))
    with pytest.raises(ImageRefusedError):
        ill.generate(beat_slot(beat_id), confirmed=True)
    assert ill.images.all() == [] and ill.images.billable_count() == 0
    assert not list((agent.store.directory / "images").glob("*.png"))


def test_the_writers_edited_prompt_is_what_is_sent_and_kept(
    make_studio: StudioFactory, written: Written, sdwebui: SDWebUIServer,
) -> None:
    agent, beat_id = written(make_studio(image_model=f"sdwebui:{sdwebui.url}"))
    ill = Illustrator(agent)
    slot = beat_slot(beat_id)
    shown = ill.prompt(slot)
    assert not shown.edited and "Kang Jun" in shown.text  # the beat's cast, from the story
    edited = shown.text + "\nink wash style"
    record = ill.generate(slot, edited, confirmed=True)
    assert _txt2img(sdwebui)[0].body["prompt"] == edited  # type: ignore[attr-defined]
    assert record.prompt == edited and ill.prompt(slot).edited
    assert ill.save_prompt(slot, "").text == shown.text  # emptied: the drawn prompt again


def test_placing_takes_an_accepted_beat_and_returns_what_was_there(
    make_studio: StudioFactory, written: Written,
) -> None:
    agent, beat_id = written(make_studio())
    ill = Illustrator(agent)
    first = ill.generate(beat_slot(beat_id), confirmed=True)
    second = ill.generate(beat_slot(beat_id), confirmed=True)
    assert ill.place(beat_slot(beat_id), first.id) is None
    assert ill.place(beat_slot(beat_id), second.id) == first.id
    assert ill.placed(beat_slot(beat_id)) == second
    assert ill.place(beat_slot(beat_id), None) == second.id
    assert ill.placed(beat_slot(beat_id)) is None
    draft = agent.next_beat()
    with pytest.raises(InvalidInputError) as caught:
        ill.place(beat_slot(draft.id), first.id)
    assert caught.value.key == "error.image.not_accepted"
    with pytest.raises(InvalidInputError):
        ill.place("chapter:1", first.id)
