"""REST routes for projects, the plot and the beat editor (``/api/v1/projects/...``).

Routes only translate HTTP to the :class:`~aizac.web.service.WebService` of the caller's
sandbox (the same object the web app calls) and back; every rule lives in the service. They are
plain ``def`` functions, so FastAPI runs them in its thread pool: one user's generation holds
one worker thread and never blocks another user's requests. Model work also takes a
generation slot (:meth:`~aizac.server.sandbox.Sandboxes.generation`).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request

from aizac.errors import NotFoundError
from aizac.server.auth import CurrentBox, state_of
from aizac.server.models import (
    BeatEdit,
    BeatOut,
    BeatsOut,
    HistoryOut,
    PlotIn,
    PlotOut,
    ProjectEdit,
    ProjectIn,
    ProjectOut,
    RegenerateIn,
    SwitchIn,
    VersionIn,
    WrittenIn,
)
from aizac.writer.project_dirs import validate_project_name
from aizac.writer.service import parse_keywords


def project_name(name: str) -> str:
    """The project named in the path, checked (separators, '..', control characters: 422)."""
    return validate_project_name(name)


Project = Annotated[str, Depends(project_name)]
router = APIRouter(prefix="/api/v1", tags=["projects"])


@router.get("/projects", response_model=list[ProjectOut])
def list_projects(box: CurrentBox) -> list[ProjectOut]:
    return [ProjectOut.of(info) for info in box.studio.projects()]


@router.post("/projects", response_model=ProjectOut, status_code=201)
def create_project(body: ProjectIn, request: Request, box: CurrentBox) -> ProjectOut:
    state_of(request).sandboxes.check_new_project(box)
    agent = box.service.create_project(
        body.name, genre=body.genre, keywords=parse_keywords(body.keywords),
        language=body.language or box.studio.settings.language,
    )
    return ProjectOut.of(agent.info)


@router.get("/projects/{name}", response_model=ProjectOut)
def get_project(name: Project, box: CurrentBox) -> ProjectOut:
    return ProjectOut.of(box.service.agent(name).info)


@router.patch("/projects/{name}", response_model=ProjectOut)
def edit_project(name: Project, body: ProjectEdit, box: CurrentBox) -> ProjectOut:
    words = parse_keywords(body.keywords)
    return ProjectOut.of(box.service.update_project(name, genre=body.genre, keywords=words))


# ---------------------------------------------------------------------------------- plot
@router.get("/projects/{name}/plot", response_model=PlotOut)
def get_plot(name: Project, box: CurrentBox) -> PlotOut:
    record = box.service.plot(name)
    if record is None:
        raise NotFoundError("The project has no plot yet.", hint="Generate or write one.")
    return PlotOut(version=record.version, plot=record.plot, tropes=record.tropes)


@router.post("/projects/{name}/plot/generate", response_model=PlotOut)
def generate_plot(name: Project, request: Request, box: CurrentBox) -> PlotOut:
    box.service.agent(name)  # an unknown project is 404 before a slot is taken
    with state_of(request).sandboxes.generation(box):
        record = box.service.generate_plot(name)
    return PlotOut(version=record.version, plot=record.plot, tropes=record.tropes)


@router.put("/projects/{name}/plot", response_model=PlotOut)
def save_plot(name: Project, body: PlotIn, box: CurrentBox) -> PlotOut:
    record = box.service.save_plot(name, body.plot, body.version)
    return PlotOut(version=record.version, plot=record.plot, tropes=record.tropes)


# --------------------------------------------------------------------------------- beats
def _history(box: CurrentBox, name: str) -> HistoryOut:
    return HistoryOut.of(box.service.history(name))


@router.get("/projects/{name}/beats", response_model=BeatsOut)
def list_beats(name: Project, box: CurrentBox) -> BeatsOut:
    episode, beats, draft = box.service.beats(name)
    return BeatsOut(episode=episode, beats=[BeatOut.of(b) for b in beats],
                    draft=BeatOut.of(draft) if draft else None, history=_history(box, name))


@router.get("/projects/{name}/beats/{beat_id}", response_model=BeatOut)
def get_beat(name: Project, beat_id: int, box: CurrentBox) -> BeatOut:
    return BeatOut.of(box.service.agent(name).store.beat(beat_id))


@router.post("/projects/{name}/beats/next", response_model=BeatOut)
def design_beat(name: Project, request: Request, box: CurrentBox) -> BeatOut:
    """Design the next beat (a pending draft is returned as it is)."""
    box.service.agent(name)
    with state_of(request).sandboxes.generation(box):
        return BeatOut.of(box.service.next_beat(name))


@router.put("/projects/{name}/beats/{beat_id}", response_model=BeatOut)
def edit_beat(name: Project, beat_id: int, body: BeatEdit, box: CurrentBox) -> BeatOut:
    return BeatOut.of(box.service.edit_beat(name, beat_id, body.version, body.beat))


@router.post("/projects/{name}/beats/{beat_id}/regenerate", response_model=BeatOut)
def regenerate_beat(
    name: Project, beat_id: int, body: RegenerateIn, request: Request, box: CurrentBox
) -> BeatOut:
    box.service.agent(name).store.beat(beat_id)
    with state_of(request).sandboxes.generation(box):
        record = box.service.regenerate(name, beat_id, body.version, body.instruction,
                                        locked=body.locked)
    return BeatOut.of(record)


@router.put("/projects/{name}/beats/{beat_id}/written", response_model=BeatOut)
def set_written(name: Project, beat_id: int, body: WrittenIn, box: CurrentBox) -> BeatOut:
    """Lock exactly ``fields`` of the draft (unlocking the others)."""
    return BeatOut.of(box.service.set_written(name, beat_id, body.version, body.fields))


@router.post("/projects/{name}/beats/{beat_id}/accept", response_model=BeatOut)
def accept_beat(
    name: Project, beat_id: int, body: VersionIn, request: Request, box: CurrentBox
) -> BeatOut:
    box.service.agent(name).store.beat(beat_id)
    with state_of(request).sandboxes.generation(box):
        return BeatOut.of(box.service.accept(name, beat_id, body.version))


@router.post("/projects/{name}/undo", response_model=HistoryOut)
def undo(name: Project, box: CurrentBox) -> HistoryOut:
    return HistoryOut.of(box.service.undo(name))


@router.post("/projects/{name}/redo", response_model=HistoryOut)
def redo(name: Project, box: CurrentBox) -> HistoryOut:
    return HistoryOut.of(box.service.redo(name))


@router.post("/projects/{name}/switch", response_model=HistoryOut)
def switch(name: Project, body: SwitchIn, box: CurrentBox) -> HistoryOut:
    return HistoryOut.of(box.service.switch(name, body.node_id))


@router.post("/projects/{name}/cancel")
def cancel(name: Project, box: CurrentBox) -> dict[str, int]:
    """Cancel the project's running generations (in any of the user's sessions)."""
    box.service.agent(name)
    return {"cancelled": box.service.cancel(name)}
