"""REST routes for prose (streamed as Server-Sent Events), runs, memory and exports."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path as FilePath
from typing import Annotated, Any

import anyio
from fastapi import APIRouter, Path, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import FileResponse
from sse_starlette.sse import EventSourceResponse

from aizac.errors import AizacError, ConflictError, NotFoundError
from aizac.server.api_projects import MODEL, READ, WRITE, BeatId, Project, plot_needed
from aizac.server.auth import CurrentBox, state_of
from aizac.server.errors import InternalError, UnavailableError, body_of, clip, language_of
from aizac.server.gate import caller_of
from aizac.server.models import (
    NO_NUL,
    Answer,
    AskIn,
    BeatOut,
    ExportIn,
    ExportOut,
    MemoryOut,
    PinIn,
    ProseIn,
    RunOut,
)
from aizac.server.openapi import responses
from aizac.server.sandbox import Run, Sandbox, hold_slot
from aizac.server.watch import CredentialWatch

EpisodeNumber = Annotated[int, Path(ge=1, le=100_000, description="An episode's number.")]

router = APIRouter(prefix="/api/v1", tags=["content"])
_END = object()
_SHUTDOWN = object()
_REVOKED = object()
SHUTDOWN_GRACE_S = 5.0
"""On SIGTERM, how long a prose stream gets to say so before it is cut."""
RunId = Annotated[str, Path(min_length=1, max_length=64, pattern=NO_NUL)]
FileName = Annotated[str, Path(min_length=1, max_length=220, pattern=NO_NUL)]
STREAM: dict[int | str, dict[str, Any]] = {200: {
    "description": "Server-Sent Events: ``run`` (its id), ``chunk`` (``delta``), then "
    "``done`` (the whole ``text``) or ``error`` (``code``, ``message``, ``hint``; also when "
    "the server shuts down or the stream's session or token ends).",
    "content": {"text/event-stream": {"schema": {
        "type": "object", "required": ["event", "data"],
        "properties": {"event": {"enum": ["run", "chunk", "done", "error"]},
                       "data": {"type": "string", "contentMediaType": "application/json",
                                "description": "run: {id}; chunk: {delta}; done: {text}; "
                                "error: the error body {code, message, hint}."}}}}}}}


def _run_out(run: Run) -> RunOut:
    return RunOut(id=run.id, kind=run.kind, project=run.project, beat_id=run.beat_id,
                  status=run.status, text=run.text, error=run.error)


# --------------------------------------------------------------------------------- prose
def _start_prose(request: Request, box: Sandbox, name: str, beat_id: int) -> Callable[[], None]:
    """Check the beat is the user's and accepted, then take a generation slot; returns its
    release (errors here are plain HTTP errors, before any event is sent)."""
    record = box.service.beat(name, beat_id)
    if record.status != "accepted":
        raise ConflictError("error.server.beat_not_accepted", beat=beat_id)
    return state_of(request).sandboxes.acquire(box)


def _event(kind: str, **data: Any) -> dict[str, str]:
    return {"event": kind, "data": json.dumps(data, ensure_ascii=False)}


@router.post("/projects/{name}/beats/{beat_id:int}/prose", response_class=EventSourceResponse,
             responses={**STREAM, **MODEL})
async def write_prose(
    name: Project, beat_id: BeatId, request: Request, box: CurrentBox
) -> EventSourceResponse:
    """Stream the beat's prose: events ``run`` (its id), ``chunk`` (``delta``), then ``done``
    (the whole ``text``) or ``error`` (the error body). Closing the stream cancels the
    generation; so does a server shutdown, which the stream says in an ``error`` event."""
    release = await run_in_threadpool(_start_prose, request, box, name, beat_id)
    run = box.new_run("prose", name, beat_id)
    return _streamed(request, box, name, run, release,
                     lambda: box.service.write_prose(name, beat_id))


def _start_episode(request: Request, box: Sandbox, name: str, episode: int) -> Callable[[], None]:
    """Check the episode has accepted beats without prose, then take a generation slot."""
    box.service.episode_to_write(name, episode)
    return state_of(request).sandboxes.acquire(box)


@router.post("/projects/{name}/episodes/{episode:int}/prose",
             response_class=EventSourceResponse, responses={**STREAM, **MODEL})
async def write_episode(
    name: Project, episode: EpisodeNumber, request: Request, box: CurrentBox
) -> EventSourceResponse:
    """"Write this episode": stream the prose of the episode's accepted beats that have none,
    in one writer call when the writer declares it can (each scene under its ``### N`` line;
    a scene the reply leaves out is written after it on its own). The same events as a beat's
    prose; each beat's prose is saved when the stream completes."""
    release = await run_in_threadpool(_start_episode, request, box, name, episode)
    run = box.new_run("episode_prose", name, None)
    return _streamed(request, box, name, run, release,
                     lambda: box.service.write_episode(name, episode))


def _streamed(request: Request, box: Sandbox, name: str, run: Run, release: Callable[[], None],
              produce: Callable[[], Iterator[str]]) -> EventSourceResponse:
    """The server-sent events of a generation ``produce`` makes (the text so far after each
    chunk), run in its own thread with the slot ``release`` gives back."""
    language = language_of(request)
    loop = asyncio.get_running_loop()
    items: asyncio.Queue[Any] = asyncio.Queue()
    shutdown = anyio.Event()
    state = state_of(request)
    watch = CredentialWatch(state, caller_of(request), state.config.credential_check_s)

    def work() -> None:  # the whole stream in one thread (its cancel watch lives there)
        hold_slot()  # taken above for this stream
        try:
            for text in produce():
                run.text = text
                loop.call_soon_threadsafe(items.put_nowait, text)
            run.status = "done"
        except BaseException as e:
            run.status = "cancelled" if run.status == "cancelling" else "failed"
            run.error = getattr(e, "message", None) or f"{type(e).__name__}: {e}"
            loop.call_soon_threadsafe(items.put_nowait, e)
        finally:
            release()
            loop.call_soon_threadsafe(items.put_nowait, _END)

    async def next_item() -> Any:
        """The next chunk (or the end), else why the stream must stop: the server shuts
        down, or the credential ended (checked every ``credential_check_s`` meanwhile)."""
        got = asyncio.ensure_future(items.get())
        stop = asyncio.ensure_future(shutdown.wait())
        try:
            while True:
                if watch.due() and await run_in_threadpool(watch.ended) is not None:
                    return _REVOKED
                done, _ = await asyncio.wait({got, stop}, timeout=watch.every_s,
                                             return_when=asyncio.FIRST_COMPLETED)
                if got in done:
                    return got.result()
                if stop in done:
                    return _SHUTDOWN
        finally:
            for task in (got, stop):
                if not task.done():
                    task.cancel()

    async def events() -> AsyncIterator[dict[str, str]]:
        threading.Thread(target=work, daemon=True, name=f"aizac-prose-{run.id[:8]}").start()
        yield _event("run", id=run.id)
        sent = 0
        try:
            while (item := await next_item()) is not _END:
                if item is _SHUTDOWN or item is _REVOKED:
                    run.status = "cancelling"
                    box.service.cancel(name)  # the model stops at its next token
                    said = watch.ended() if item is _REVOKED else None
                    stop = said or UnavailableError("error.server.shutting_down")
                    yield {"event": "error", "data": json.dumps(body_of(stop, language),
                                                                ensure_ascii=False)}
                    return
                if isinstance(item, BaseException):
                    said = item if isinstance(item, AizacError) else InternalError(
                        "error.server.internal", request_id=clip(run.id, 40))
                    yield {"event": "error", "data": json.dumps(body_of(said, language),
                                                                ensure_ascii=False)}
                    continue
                yield _event("chunk", delta=item[sent:])
                sent = len(item)
            if run.status == "done":
                yield _event("done", text=run.text)
        finally:
            if run.status == "running":  # the client went away: stop the model
                run.status = "cancelling"
                box.service.cancel(name)

    return EventSourceResponse(events(), ping=15, shutdown_event=shutdown,
                               shutdown_grace_period=SHUTDOWN_GRACE_S)


@router.put("/projects/{name}/beats/{beat_id:int}/prose", response_model=BeatOut,
            responses=WRITE)
def save_prose(name: Project, beat_id: BeatId, body: ProseIn, box: CurrentBox) -> BeatOut:
    return BeatOut.of(box.service.save_prose(name, beat_id, body.text))


# ---------------------------------------------------------------------------------- runs
@router.get("/runs", response_model=list[RunOut], responses=READ)
def list_runs(box: CurrentBox) -> list[RunOut]:
    with box.lock:
        runs = list(box.runs.values())
    return [_run_out(r) for r in runs]


@router.get("/runs/{run_id}", response_model=RunOut, responses=READ)
def get_run(run_id: RunId, box: CurrentBox) -> RunOut:
    return _run_out(box.run(run_id))


@router.delete("/runs/{run_id}", response_model=RunOut, responses=READ)
def cancel_run(run_id: RunId, box: CurrentBox) -> RunOut:
    """Remove the run, cancelling it if it still runs; its last state is the reply."""
    run = box.run(run_id)
    if run.status == "running":
        run.status = "cancelling"
        box.service.cancel(run.project)
    with box.lock:
        box.runs.pop(run.id, None)
    return _run_out(run)


# -------------------------------------------------------------------------------- memory
@router.get("/projects/{name}/memories", response_model=list[MemoryOut],
            responses=responses(401, 404, 503))
def memories(name: Project, box: CurrentBox) -> list[MemoryOut]:
    return [MemoryOut.of(m) for m in box.service.all_memories(name)]


@router.post("/projects/{name}/memories/pin", response_model=list[MemoryOut], responses=WRITE)
def pin(name: Project, body: PinIn, box: CurrentBox) -> list[MemoryOut]:
    """Pin (or unpin) memories of this project; an id it does not hold is 404, nothing
    changed."""
    known = {m.id for m in box.service.all_memories(name)}
    unknown = [i for i in body.ids if i not in known]
    if unknown:
        raise NotFoundError("error.server.memory_not_found", id=clip(unknown[0], 60))
    box.service.set_pinned(name, body.ids, body.pinned)
    chosen = set(body.ids)
    return [MemoryOut.of(m) for m in box.service.all_memories(name) if m.id in chosen]


@router.post("/projects/{name}/memories/ask", response_model=list[Answer], responses=MODEL)
def ask(name: Project, body: AskIn, box: CurrentBox) -> list[Answer]:
    docs = box.service.ask(name, body.question)
    return [Answer(id=d.metadata.get("id") or getattr(d, "id", None), text=d.page_content,
                   tag=d.metadata.get("tag")) for d in docs]


# -------------------------------------------------------------------------------- export
@router.post("/projects/{name}/exports", response_model=ExportOut, status_code=201,
             responses=WRITE)
def export(name: Project, body: ExportIn, request: Request, box: CurrentBox) -> ExportOut:
    state_of(request).sandboxes.check_storage(box)
    with plot_needed(box, name):
        result = box.service.export(name, body.format, body.first, body.last, body.filename)
    lengths = result.lengths
    if lengths is None:
        return ExportOut(file=FilePath(result.target).name, without_prose=result.without_prose)
    return ExportOut(file=FilePath(result.target).name, without_prose=result.without_prose,
                     target_length=lengths.target, too_short=[n for n, _ in lengths.too_short],
                     too_long=[n for n, _ in lengths.too_long])


def _export_folder(box: Sandbox, name: str) -> FilePath:
    return (box.export_dir / box.service.agent(name).info.name).resolve()


@router.get("/projects/{name}/exports", response_model=list[str], responses=READ)
def list_exports(name: Project, box: CurrentBox) -> list[str]:
    folder = _export_folder(box, name)
    return sorted(p.name for p in folder.glob("*") if p.is_file()) if folder.is_dir() else []


@router.get("/projects/{name}/exports/{filename}", response_class=FileResponse, responses={
    **READ, 200: {"description": "The export file.", "content": {
        "application/octet-stream": {"schema": {"type": "string", "format": "binary"}}}}})
def download(name: Project, filename: FileName, box: CurrentBox) -> FileResponse:
    """An export file of the project, by a name ``GET .../exports`` listed (anything else,
    whatever it names, is 404)."""
    folder = _export_folder(box, name)
    listed = {p.name: p for p in folder.glob("*") if p.is_file()} if folder.is_dir() else {}
    path = listed.get(filename)
    if path is None or not path.resolve().is_relative_to(folder):
        raise NotFoundError("error.server.export_not_found", file=clip(filename, 80))
    return FileResponse(path, filename=path.name)
