"""Request and response bodies of the REST API (Pydantic, unknown fields refused)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from aizac.text import render
from aizac.web.service import HistoryView
from aizac.writer.project import BeatRecord, ProjectInfo
from aizac.writer.schemas import NovelBeat, NovelPlot


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


# ------------------------------------------------------------------------------ accounts
class Credentials(Body):
    name: str = Field(min_length=1, max_length=40)
    password: str = Field(min_length=1, max_length=256)


class UserOut(Body):
    id: str
    name: str


class Me(UserOut):
    projects: int
    storage_mb: float


class TokenIn(Body):
    label: str = Field(default="", max_length=80)


class TokenOut(Body):
    id: str
    label: str
    created_at: float
    token: str | None = Field(default=None, description="The secret, shown only once.")


# ------------------------------------------------------------------------------ projects
class ProjectIn(Body):
    name: str = Field(min_length=1, max_length=64)
    keywords: list[str] | str
    genre: str = Field(default="", max_length=40)
    language: str | None = None


class ProjectOut(Body):
    name: str
    language: str
    genre: str
    keywords: list[str]
    created_at: float

    @classmethod
    def of(cls, info: ProjectInfo) -> ProjectOut:
        return cls(name=info.name, language=info.language, genre=info.genre,
                   keywords=list(info.keywords), created_at=info.created_at)


class ProjectEdit(Body):
    genre: str = Field(default="", max_length=40)
    keywords: list[str] | str


class PlotOut(Body):
    version: int
    plot: NovelPlot
    tropes: str = ""


class PlotIn(Body):
    plot: NovelPlot
    version: int | None = None


# --------------------------------------------------------------------------------- beats
class BeatOut(Body):
    id: int
    episode: int
    index: int
    status: str
    version: int
    beat: NovelBeat
    prose: str | None = None

    @classmethod
    def of(cls, r: BeatRecord) -> BeatOut:
        return cls(id=r.id, episode=r.episode, index=r.index, status=r.status,
                   version=r.version, beat=r.beat, prose=r.prose)


class HistoryOut(Body):
    node_id: str | None
    can_undo: bool
    can_redo: bool
    path: list[str]
    siblings: list[tuple[str, str]]

    @classmethod
    def of(cls, h: HistoryView) -> HistoryOut:
        # the history's steps are data now (aizac.web.service.HistoryStep): said in English here,
        # as the API said them before
        return cls(node_id=h.node_id, can_undo=h.can_undo, can_redo=h.can_redo,
                   path=[render(s.text(), "en") for s in h.path],
                   siblings=[(render(label, "en"), node) for label, node in h.siblings])


class BeatsOut(Body):
    episode: int
    beats: list[BeatOut]
    draft: BeatOut | None
    history: HistoryOut


class BeatEdit(Body):
    version: int | None = None
    beat: NovelBeat


class RegenerateIn(Body):
    version: int | None = None
    instruction: str = Field(default="", max_length=500)
    locked: list[str] = Field(default_factory=list, max_length=20)


class VersionIn(Body):
    version: int | None = None


class SwitchIn(Body):
    node_id: str = Field(min_length=1, max_length=64)


class ProseIn(Body):
    text: str = Field(min_length=1, max_length=200_000)


# -------------------------------------------------------------------------------- memory
class MemoryOut(Body):
    id: str
    text: str
    tag: str
    pinned: bool
    strength: float
    memory_factor: float
    live: bool

    @classmethod
    def of(cls, hit: Any) -> MemoryOut:
        return cls(id=str(hit.id), text=str(hit.text), tag=str(hit.tag), pinned=bool(hit.pinned),
                   strength=float(hit.strength), memory_factor=float(hit.memory_factor),
                   live=bool(hit.live))


class PinIn(Body):
    ids: list[str] = Field(min_length=1, max_length=200)
    pinned: bool = True


class AskIn(Body):
    question: str = Field(min_length=1, max_length=500)


class Answer(Body):
    id: str | None
    text: str
    tag: str | None


# -------------------------------------------------------------------------- export, runs
class ExportIn(Body):
    format: str = Field(default="txt", max_length=8)
    first: int | None = Field(default=None, ge=1)
    last: int | None = Field(default=None, ge=1)
    filename: str | None = Field(default=None, max_length=200)


class ExportOut(Body):
    file: str
    without_prose: list[str]


class RunOut(Body):
    id: str
    kind: str
    project: str
    beat_id: int | None
    status: str
    text: str
    error: str
