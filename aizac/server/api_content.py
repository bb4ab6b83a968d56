"""REST routes for prose (streamed as Server-Sent Events), runs, memory and exports."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import FileResponse
from sse_starlette.sse import EventSourceResponse

from aizac.errors import AizacError, InvalidInputError, NotFoundError
from aizac.server.api_projects import Project
from aizac.server.auth import CurrentBox, state_of
from aizac.server.models import (
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
from aizac.server.sandbox import Run, Sandbox, hold_slot

router = APIRouter(prefix="/api/v1", tags=["content"])
_END = object()


def _run_out(run: Run) -> RunOut:
    return RunOut(id=run.id, kind=run.kind, project=run.project, beat_id=run.beat_id,
                  status=run.status, text=run.text, error=run.error)


# --------------------------------------------------------------------------------- prose
def _start_prose(request: Request, box: Sandbox, name: str, beat_id: int) -> Callable[[], None]:
    """Check the beat is the user's and accepted, then take a generation slot; returns its
    release (errors here are plain HTTP errors, before any event is sent)."""
    record = box.service.agent(name).store.beat(beat_id)
    if record.status != "accepted":
        raise InvalidInputError(f"Beat {beat_id} is not accepted yet.",
                                hint="Accept the beat first; prose is written for canon only.")
    return state_of(request).sandboxes.acquire(box)


def _event(kind: str, **data: Any) -> dict[str, str]:
    return {"event": kind, "data": json.dumps(data, ensure_ascii=False)}


@router.post("/projects/{name}/beats/{beat_id}/prose")
async def write_prose(
    name: Project, beat_id: int, request: Request, box: CurrentBox
) -> EventSourceResponse:
    """Stream the beat's prose: events ``run`` (its id), ``chunk`` (``delta``), then ``done``
    (the whole ``text``) or ``error``. Closing the stream cancels the generation."""
    release = await run_in_threadpool(_start_prose, request, box, name, beat_id)
    run = box.new_run("prose", name, beat_id)
    loop = asyncio.get_running_loop()
    items: asyncio.Queue[Any] = asyncio.Queue()

    def work() -> None:  # the whole stream in one thread (its cancel watch lives there)
        hold_slot()  # taken above for this stream
        try:
            for text in box.service.write_prose(name, beat_id):
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

    async def events() -> AsyncIterator[dict[str, str]]:
        threading.Thread(target=work, daemon=True, name=f"aizac-prose-{run.id[:8]}").start()
        yield _event("run", id=run.id)
        sent = 0
        try:
            while (item := await items.get()) is not _END:
                if isinstance(item, BaseException):
                    hint = item.hint if isinstance(item, AizacError) else ""
                    yield _event("error", error=run.error, hint=hint)
                    continue
                yield _event("chunk", delta=item[sent:])
                sent = len(item)
            if run.status == "done":
                yield _event("done", text=run.text)
        finally:
            if run.status == "running":  # the client went away: stop the model
                run.status = "cancelling"
                box.service.cancel(name)

    return EventSourceResponse(events(), ping=15)


@router.put("/projects/{name}/beats/{beat_id}/prose", response_model=BeatOut)
def save_prose(name: Project, beat_id: int, body: ProseIn, box: CurrentBox) -> BeatOut:
    return BeatOut.of(box.service.save_prose(name, beat_id, body.text))


# ---------------------------------------------------------------------------------- runs
@router.get("/runs", response_model=list[RunOut])
def list_runs(box: CurrentBox) -> list[RunOut]:
    with box.lock:
        runs = list(box.runs.values())
    return [_run_out(r) for r in runs]


@router.get("/runs/{run_id}", response_model=RunOut)
def get_run(run_id: str, box: CurrentBox) -> RunOut:
    return _run_out(box.run(run_id))


@router.delete("/runs/{run_id}", response_model=RunOut)
def cancel_run(run_id: str, box: CurrentBox) -> RunOut:
    run = box.run(run_id)
    if run.status == "running":
        run.status = "cancelling"
        box.service.cancel(run.project)
    return _run_out(run)


# -------------------------------------------------------------------------------- memory
@router.get("/projects/{name}/memories", response_model=list[MemoryOut])
def memories(name: Project, box: CurrentBox) -> list[MemoryOut]:
    return [MemoryOut.of(m) for m in box.service.all_memories(name)]


@router.post("/projects/{name}/memories/pin", response_model=list[MemoryOut])
def pin(name: Project, body: PinIn, box: CurrentBox) -> list[MemoryOut]:
    """Pin (or unpin) memories of this project; an id it does not hold is 404, nothing
    changed."""
    known = {m.id for m in box.service.all_memories(name)}
    unknown = [i for i in body.ids if i not in known]
    if unknown:
        raise NotFoundError(f"No memory {unknown[0]!r} in this project.",
                            hint="List the project's memories first.")
    box.service.set_pinned(name, body.ids, body.pinned)
    chosen = set(body.ids)
    return [MemoryOut.of(m) for m in box.service.all_memories(name) if m.id in chosen]


@router.post("/projects/{name}/memories/ask", response_model=list[Answer])
def ask(name: Project, body: AskIn, request: Request, box: CurrentBox) -> list[Answer]:
    agent = box.service.agent(name)
    with state_of(request).sandboxes.generation(box):
        docs = agent.ask(body.question)
    return [Answer(id=d.metadata.get("id") or getattr(d, "id", None), text=d.page_content,
                   tag=d.metadata.get("tag")) for d in docs]


# -------------------------------------------------------------------------------- export
@router.post("/projects/{name}/exports", response_model=ExportOut, status_code=201)
def export(name: Project, body: ExportIn, request: Request, box: CurrentBox) -> ExportOut:
    state_of(request).sandboxes.check_storage(box)
    result = box.service.export(name, body.format, body.first, body.last, body.filename)
    return ExportOut(file=Path(result.target).name, without_prose=result.without_prose)


def _export_folder(box: Sandbox, name: str) -> Path:
    return (box.export_dir / box.service.agent(name).info.name).resolve()


@router.get("/projects/{name}/exports", response_model=list[str])
def list_exports(name: Project, box: CurrentBox) -> list[str]:
    folder = _export_folder(box, name)
    return sorted(p.name for p in folder.glob("*") if p.is_file()) if folder.is_dir() else []


@router.get("/projects/{name}/exports/{filename}")
def download(name: Project, filename: str, box: CurrentBox) -> FileResponse:
    from aizac.export.files import safe_export_name

    _, dot, ext = filename.rpartition(".")
    if not dot:
        raise InvalidInputError(f"{filename!r} is not an export file name.",
                                hint="Use a name listed by GET .../exports.")
    clean = safe_export_name(filename, ext)
    folder = _export_folder(box, name)
    path = (folder / clean).resolve()
    if not path.is_relative_to(folder) or not path.is_file():
        raise NotFoundError(f"No export {clean!r} in this project.")
    return FileResponse(path, filename=clean)
