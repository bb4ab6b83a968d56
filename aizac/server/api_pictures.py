"""REST routes for a project's pictures (``/api/v1/projects/{name}/pictures``: list, the prompt
and cost of one, make one, its file) and where they are placed (``.../placements``).

The same operations as the web app's Gallery and ``aizac pictures``, through the caller's
:class:`~aizac.application.service.ApplicationService`. Making a picture is a generation (it
takes the user's generation slot); the request itself is the writer's confirmation of that one
picture, and a paid image model's pictures count against the project's image budget (429 when
it is spent). Placing is a step of the project's undo history.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Request, Response

from aizac.illustration.store import ImageRecord
from aizac.server.api_projects import MODEL, READ, WRITE, Project, plot_needed
from aizac.server.auth import CurrentBox, state_of
from aizac.server.models import (
    IMAGE_ID,
    SLOT,
    PictureIn,
    PictureOut,
    PicturePromptOut,
    PlaceIn,
    PlacementOut,
)

router = APIRouter(prefix="/api/v1", tags=["pictures"])
ImageId = Annotated[str, Path(pattern=IMAGE_ID, description="A picture's id.")]
Slot = Annotated[str, Query(pattern=SLOT, max_length=16,
                            description="cover, or beat:<id> of an accepted beat.")]


def _out(record: ImageRecord, placed: str | None) -> PictureOut:
    return PictureOut(id=record.id, kind=record.kind, episode=record.episode, beat=record.beat,
                      beat_id=record.beat_id, model=record.model, billable=record.billable,
                      media_type=record.media_type, width=record.width, height=record.height,
                      size=record.size, prompt=record.prompt, created_at=record.created_at,
                      placed=placed)


@router.get("/projects/{name}/pictures", response_model=list[PictureOut], responses=READ)
def list_pictures(name: Project, box: CurrentBox) -> list[PictureOut]:
    """Every picture of the project, newest first, with the slot each is placed in."""
    ill = box.service.illustrator(name)
    placed = {image: slot for slot, image in ill.placements().items()}
    return [_out(r, placed.get(r.id)) for r in ill.pictures()]


@router.get("/projects/{name}/pictures/prompt", response_model=PicturePromptOut,
            responses=READ)
def picture_prompt(name: Project, slot: Slot, box: CurrentBox) -> PicturePromptOut:
    """The prompt a picture for ``slot`` is made from (drawn from the story as it stood at
    that beat, or the writer's edit) and what one costs. Without a plot: 409."""
    with plot_needed(box, name):
        ill = box.service.illustrator(name)
        shown = ill.prompt(slot)
    quote = ill.quote()
    return PicturePromptOut(slot=slot, prompt=shown.text, edited=shown.edited,
                            model=quote.model, billable=quote.billable, left=quote.left,
                            budget=quote.budget)


@router.post("/projects/{name}/pictures", response_model=PictureOut, status_code=201,
             responses=MODEL)
def make_picture(name: Project, body: PictureIn, request: Request,
                 box: CurrentBox) -> PictureOut:
    """Make one picture for ``slot`` (not placed). Without a plot: 409; the image budget
    spent: 429; the image provider failed: 502."""
    box.service.agent(name)  # an unknown project is 404 before a slot is taken
    state_of(request).sandboxes.check_storage(box)
    with plot_needed(box, name):
        record = box.service.generate_image(name, body.slot, body.prompt)
    return _out(record, None)


@router.get("/projects/{name}/pictures/{image_id}", response_class=Response, responses={
    **READ, 200: {"description": "The picture's file.", "content": {
        "image/png": {"schema": {"type": "string", "format": "binary"}},
        "image/jpeg": {"schema": {"type": "string", "format": "binary"}},
        "image/webp": {"schema": {"type": "string", "format": "binary"}}}}})
def picture_file(name: Project, image_id: ImageId, box: CurrentBox) -> Response:
    ill = box.service.illustrator(name)
    record = ill.picture(image_id)
    return Response(ill.data(record), media_type=record.media_type)


@router.put("/projects/{name}/placements", response_model=PlacementOut,
            responses=WRITE)
def place_picture(name: Project, body: PlaceIn, box: CurrentBox) -> PlacementOut:
    """Put a picture in ``slot`` (``image_id`` null: take it out); a beat's slot takes only
    an accepted beat (409 otherwise). Undo (``POST .../undo``) takes it back."""
    before = box.service.place_image(name, body.slot, body.image_id)
    return PlacementOut(slot=body.slot, image_id=body.image_id, before=before)
