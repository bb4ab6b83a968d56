"""REST routes for projects, the plot and the beat editor (``/api/v1/projects/...``).

Routes only translate HTTP to the :class:`~aizac.application.service.ApplicationService` of the
caller's sandbox (the same object the web app calls) and back; every rule lives in the service,
and they read records through it, never from a project's store. They are plain ``def``
functions, so FastAPI runs them in its thread pool: one user's generation holds one worker
thread and never blocks another user's requests. The service takes each model generation's
slot (:class:`~aizac.server.sandbox.UserSlots`).
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator
from pathlib import Path as FilePath
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, File, Form, Path, Request, Response, UploadFile
from pydantic import StringConstraints

from aizac.errors import ConflictError, InvalidInputError, NotFoundError
from aizac.server.auth import CurrentBox, state_of
from aizac.server.errors import language_of, problem_body
from aizac.server.models import (
    INT4_MAX,
    KEYWORDS_TEXT,
    NO_NUL,
    PROJECT_NAME,
    BeatEdit,
    BeatOut,
    BeatsOut,
    HistoryOut,
    ImportOut,
    PlanEpisodeIn,
    PlotIn,
    PlotOut,
    ProjectEdit,
    ProjectIn,
    ProjectOut,
    ReadIn,
    ReadingEstimateOut,
    ReadOut,
    RegenerateIn,
    SwitchIn,
    VersionIn,
    WrittenIn,
)
from aizac.server.openapi import responses
from aizac.writer.project_dirs import validate_project_name
from aizac.writer.service import parse_keywords

BeatId = Annotated[int, Path(ge=1, le=INT4_MAX, description="A beat's id.")]
READ = responses(401, 404, 409)  # 409: a name the schema allows but the writer's rules refuse
WRITE = responses(401, 404, 409, 422, 429, 503)
MODEL = responses(401, 404, 409, 422, 429, 502, 503)


def project_name(
    name: Annotated[str, Path(pattern=PROJECT_NAME, min_length=1, max_length=64,
                              description="The project's name.")],
) -> str:
    """The project named in the path, checked (separators, '..', control characters: 422)."""
    return validate_project_name(name)


Project = Annotated[str, Depends(project_name)]
router = APIRouter(prefix="/api/v1", tags=["projects"])


@contextlib.contextmanager
def plot_needed(box: CurrentBox, name: str) -> Iterator[None]:
    """A refusal inside the block because the project has no plot (checked after it failed,
    so a plan still running in another session is waited for, not refused) is a 409."""
    try:
        yield
    except InvalidInputError as e:
        if box.service.plot(name) is None:
            raise ConflictError("error.server.plot_first") from e
        raise


@router.get("/projects", response_model=list[ProjectOut], responses=responses(401))
def list_projects(request: Request, box: CurrentBox) -> list[ProjectOut]:
    """The user's projects; one that cannot be opened (a damaged file) is listed too, with
    ``status`` and ``problem`` saying what is wrong, and the others work as always."""
    return [ProjectOut.of(info, problem_body(request, info.problem) if info.problem else None)
            for info in box.service.projects()]


@router.post("/projects", response_model=ProjectOut, status_code=201,
             responses=responses(401, 409, 422, 429, 503, 507))
def create_project(body: ProjectIn, request: Request, box: CurrentBox) -> ProjectOut:
    """Create a project. A name in use is 409; with the memory server down it is 503 and no
    project is left behind."""
    name = validate_project_name(body.name)
    if name in box.service.list_projects():
        raise ConflictError("error.server.project_exists", name=name)
    state_of(request).sandboxes.check_new_project(box)
    agent = box.service.create_project(
        name, genre=body.genre, keywords=parse_keywords(body.keywords),
        language=body.language or box.studio.settings.language,
    )
    return ProjectOut.of(agent.info)


SPLIT = r"^[1-9][0-9]{0,5}:[1-9][0-9]{0,5}$"


@router.post("/projects/{name}/import", response_model=ImportOut, status_code=201,
             responses=responses(401, 409, 413, 422, 429, 503, 507))
def import_manuscript(
    name: Project, request: Request, box: CurrentBox,
    files: Annotated[list[UploadFile], File(
        min_length=1, description="The manuscript's files (.txt in UTF-8 or CP949, .md, "
                                  ".docx, .epub, .hwpx), read in the order sent as one serial.")],
    genre: Annotated[str, Form(max_length=40, pattern=NO_NUL)] = "",
    keywords: Annotated[str, Form(max_length=500, pattern=KEYWORDS_TEXT,
                                  description="Optional, separated by commas.")] = "",
    language: Annotated[Literal["", "ko", "en", "zh"], Form(
        description="ko, en or zh; empty: the manuscript's script.")] = "",
    # Lists and no nulls: a form cannot say null, and FastAPI copies a default per request.
    merge: Annotated[list[int], Form(
        description="Join episode N to the one before it (in order, before the splits).")
    ] = [],  # noqa: B006
    split: Annotated[list[Annotated[str, StringConstraints(pattern=SPLIT)]], Form(
        description="EPISODE:PARAGRAPH: start a new episode at that paragraph "
                                   "(in order, after the merges).")] = [],  # noqa: B006
) -> ImportOut:
    """Save a manuscript as a new project ``name``: each episode found (as ``aizac import
    --preview`` shows it, after ``merge`` and ``split``) an episode, each scene an accepted
    beat with its prose; all of it or nothing. A name in use is 409 (never replaced)."""
    from aizac.manuscript.preview import Adjustment, Merge, SplitAt

    if name in box.service.list_projects():
        raise ConflictError("error.server.project_exists", name=name)
    state_of(request).sandboxes.check_new_project(box)
    steps: list[Adjustment] = [Merge(n) for n in merge]
    steps += [SplitAt(*(int(n) for n in value.split(":"))) for value in split]
    words = parse_keywords(keywords) if keywords.strip() else []
    with tempfile.TemporaryDirectory(prefix="aizac-import-") as folder:
        paths = []
        for n, upload in enumerate(files):
            # its own folder each: the name the writer gave it, never a path of theirs
            base = FilePath((upload.filename or "").replace("\x00", "")).name
            base = base if base.strip(".") else f"{n + 1}.txt"
            path = FilePath(folder) / str(n) / base
            path.parent.mkdir()
            path.write_bytes(upload.file.read())
            paths.append(path)
        report = box.service.import_manuscript(name, paths, steps, genre=genre,
                                               keywords=words, language=language or None)
    return ImportOut(project=ProjectOut.of(box.service.agent(report.project).info),
                     files=list(report.files), episodes=report.episodes, beats=report.beats,
                     characters=report.characters)


@router.post("/projects/{name}/read", response_model=ReadOut, responses=MODEL)
def read_manuscript(name: Project, box: CurrentBox, body: ReadIn | None = None) -> ReadOut:
    """Build the memory from the project's imported manuscript: each scene not read yet, in
    story order (as ``aizac read`` does). Resumable: after a cancel
    (``POST /api/v1/projects/{name}/cancel``), a budget stop or a crash, post again and it goes
    on at the first unread scene, nothing read twice. A project without an imported
    manuscript, or with beats accepted after it while scenes are unread, is 409."""
    from aizac.application.reading import ReadBudget
    from aizac.text import render

    box.service.agent(name)  # an unknown project is 404 before a slot is taken
    wanted = body or ReadIn()
    budget = (ReadBudget(wanted.budget_tokens, wanted.budget_usd)
              if wanted.budget_tokens or wanted.budget_usd else None)
    report = box.service.read_manuscript(name, budget=budget)
    language = box.service.agent(name).info.language
    return ReadOut(
        project=report.project, episodes=report.episodes, scenes=report.scenes,
        read_through=report.read_through, scenes_read=report.scenes_read,
        read_now=report.read_now, calls=report.spent.calls, tokens=report.spent.tokens,
        dollars=report.spent.dollars, stopped="budget" if report.stopped else "",
        next_scene=report.next_scene, memories=report.memories,
        said=[render(line, language) for line in report.lines()])


@router.get("/projects/{name}", response_model=ProjectOut, responses=READ)
def get_project(name: Project, box: CurrentBox) -> ProjectOut:
    return ProjectOut.of(box.service.agent(name).info)


@router.patch("/projects/{name}", response_model=ProjectOut, responses=WRITE)
def edit_project(name: Project, body: ProjectEdit, box: CurrentBox) -> ProjectOut:
    words = parse_keywords(body.keywords)
    return ProjectOut.of(box.service.update_project(name, genre=body.genre, keywords=words))


@router.delete("/projects/{name}", status_code=204, responses=responses(401, 404, 409, 503))
def delete_project(name: Project, box: CurrentBox) -> Response:
    """Delete the project for good: its plot, beats, prose, history, memory (on the Chroma
    server too) and exports. A project with a generation running is 409 (cancel it first:
    ``POST /api/v1/projects/{name}/cancel``)."""
    if name not in box.service.list_projects():  # 404 for a project that is not the user's
        raise NotFoundError("error.project.missing", name=name, root=str(box.studio.root))
    box.service.delete_project(name)  # a damaged one too: its writer asks for it
    return Response(status_code=204)


# ---------------------------------------------------------------------------------- plot
@router.get("/projects/{name}/plot", response_model=PlotOut, responses=READ)
def get_plot(name: Project, box: CurrentBox) -> PlotOut:
    record = box.service.plot(name)
    if record is None:
        raise NotFoundError("error.server.no_plot")
    return PlotOut(version=record.version, plot=record.plot, tropes=record.tropes)


@router.post("/projects/{name}/plot/generate", response_model=PlotOut, responses=MODEL)
def generate_plot(name: Project, box: CurrentBox) -> PlotOut:
    box.service.agent(name)  # an unknown project is 404 before a slot is taken
    record = box.service.generate_plot(name)
    return PlotOut(version=record.version, plot=record.plot, tropes=record.tropes)


@router.post("/projects/{name}/plot/from-story", response_model=PlotOut, responses=MODEL)
def draft_plot_from_story(name: Project, box: CurrentBox, force: bool = False) -> PlotOut:
    """The planner's draft of the plot of the story so far (an imported manuscript read into
    memory), saved for the writer to edit (``PUT .../plot``); 409 when the project has a plot,
    unless ``force``."""
    box.service.agent(name)  # an unknown project is 404 before a slot is taken
    record = box.service.draft_plot_from_story(name, force=force)
    return PlotOut(version=record.version, plot=record.plot, tropes=record.tropes)


@router.get("/projects/{name}/reading/estimate", response_model=ReadingEstimateOut,
            responses=READ)
def reading_estimate(name: Project, box: CurrentBox, request: Request) -> ReadingEstimateOut:
    """What reading the imported manuscript into memory will cost with the configured models
    (calls, tokens, money, time); no model call."""
    return ReadingEstimateOut.of(box.service.estimate_reading(name), language_of(request))


@router.put("/projects/{name}/plot", response_model=PlotOut, responses=WRITE)
def save_plot(name: Project, body: PlotIn, box: CurrentBox) -> PlotOut:
    record = box.service.save_plot(name, body.plot, body.version)
    return PlotOut(version=record.version, plot=record.plot, tropes=record.tropes)


# --------------------------------------------------------------------------------- beats
def _history(box: CurrentBox, name: str) -> HistoryOut:
    return HistoryOut.of(box.service.history(name))


@router.get("/projects/{name}/beats", response_model=BeatsOut, responses=READ)
def list_beats(name: Project, box: CurrentBox) -> BeatsOut:
    episode, beats, draft = box.service.beats(name)
    return BeatsOut(episode=episode, beats=[BeatOut.of(b) for b in beats],
                    draft=BeatOut.of(draft) if draft else None, history=_history(box, name))


@router.get("/projects/{name}/beats/{beat_id:int}", response_model=BeatOut,
            responses=responses(401, 404, 422))
def get_beat(name: Project, beat_id: BeatId, box: CurrentBox) -> BeatOut:
    return BeatOut.of(box.service.beat(name, beat_id))


@router.post("/projects/{name}/beats/next", response_model=BeatOut, responses=MODEL)
def design_beat(name: Project, box: CurrentBox) -> BeatOut:
    """Design the next beat (a pending draft is returned as it is). Without a plot: 409."""
    box.service.agent(name)
    with plot_needed(box, name):
        return BeatOut.of(box.service.next_beat(name))


@router.post("/projects/{name}/beats/plan", response_model=BeatsOut, responses=MODEL)
def plan_episode(
    name: Project, body: PlanEpisodeIn, request: Request, box: CurrentBox
) -> BeatsOut:
    """Design every beat left in the current episode as drafts ("plan this episode"; one
    planner call when the planner declares it can); drafts already there keep the fields the
    writer wrote. Each draft is still accepted on its own. Without a plot: 409."""
    box.service.agent(name)
    with plot_needed(box, name), state_of(request).sandboxes.generation(box):
        box.service.plan_episode(name, body.instruction)
    return list_beats(name, box)


@router.put("/projects/{name}/beats/{beat_id:int}", response_model=BeatOut, responses=WRITE)
def edit_beat(name: Project, beat_id: BeatId, body: BeatEdit, box: CurrentBox) -> BeatOut:
    return BeatOut.of(box.service.edit_beat(name, beat_id, body.version, body.beat))


@router.post("/projects/{name}/beats/{beat_id:int}/regenerate", response_model=BeatOut,
             responses=MODEL)
def regenerate_beat(
    name: Project, beat_id: BeatId, body: RegenerateIn, box: CurrentBox
) -> BeatOut:
    box.service.beat(name, beat_id)  # an unknown beat is 404 before a slot is taken
    record = box.service.regenerate(name, beat_id, body.version, body.instruction,
                                    locked=body.locked)
    return BeatOut.of(record)


@router.put("/projects/{name}/beats/{beat_id:int}/written", response_model=BeatOut,
            responses=MODEL)
def set_written(name: Project, beat_id: BeatId, body: WrittenIn, box: CurrentBox) -> BeatOut:
    """Lock exactly ``fields`` of the draft (unlocking the others)."""
    return BeatOut.of(box.service.set_written(name, beat_id, body.version, body.fields))


@router.post("/projects/{name}/beats/{beat_id:int}/accept", response_model=BeatOut,
             responses=MODEL)
def accept_beat(name: Project, beat_id: BeatId, body: VersionIn, box: CurrentBox) -> BeatOut:
    box.service.beat(name, beat_id)  # an unknown beat is 404 before a slot is taken
    return BeatOut.of(box.service.accept(name, beat_id, body.version))


@router.post("/projects/{name}/undo", response_model=HistoryOut, responses=WRITE)
def undo(name: Project, box: CurrentBox) -> HistoryOut:
    """Step back in the history (nothing to undo: 409)."""
    if not box.service.history(name).can_undo:
        raise ConflictError("error.server.nothing_to_undo")
    return HistoryOut.of(box.service.undo(name))


@router.post("/projects/{name}/redo", response_model=HistoryOut, responses=WRITE)
def redo(name: Project, box: CurrentBox) -> HistoryOut:
    """Step forward again (nothing to redo: 409)."""
    if not box.service.history(name).can_redo:
        raise ConflictError("error.server.nothing_to_redo")
    return HistoryOut.of(box.service.redo(name))


@router.post("/projects/{name}/switch", response_model=HistoryOut, responses=WRITE)
def switch(name: Project, body: SwitchIn, box: CurrentBox) -> HistoryOut:
    """Jump to another branch of the history (an unknown node: 404)."""
    view = box.service.history(name)
    if body.node_id == view.node_id:
        raise ConflictError("error.server.on_that_branch")
    try:
        return HistoryOut.of(box.service.switch(name, body.node_id))
    except InvalidInputError as e:  # the service's "that branch does not exist"
        raise NotFoundError("error.server.no_branch") from e


@router.post("/projects/{name}/cancel", responses=READ)
def cancel(name: Project, box: CurrentBox) -> dict[str, int]:
    """Cancel the project's running generations (in any of the user's sessions)."""
    box.service.agent(name)
    return {"cancelled": box.service.cancel(name)}
