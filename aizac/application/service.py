"""The application service: the one object web and REST handlers call, over the writer's projects.

It adds to the writer agent what an interactive front end needs: the undo/redo tree of the beat
editor (kept in the project's key-value slot, so it survives restarts), serialised writes per
project (two tabs or clients on one project never interleave a change: this is where handlers'
locks are taken), version checks on edits (a stale tab gets a :class:`ConflictError`, not a
silent overwrite), and cancellation of long operations (a cancelled generation stops the model
and is thrown away before it touches the project). Collaborators: the projects
(:class:`~aizac.application.ports.Projects`), the slot policy that admits model generations
(:class:`~aizac.application.ports.GenerationSlots`) and the exports
(:class:`~aizac.application.exports.ExportService`). Handlers read records through it and never
reach the project's store.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import threading
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from aizac.application import history as hist
from aizac.application.cancel import CancelToken
from aizac.application.effects import move
from aizac.application.exports import ExportResult, ExportService, export_dir_for
from aizac.application.planned import PlannedBeat, commit_planned
from aizac.application.ports import GenerationSlots, Projects, Unlimited
from aizac.errors import ConflictError, InvalidInputError, NotFoundError
from aizac.text import Text, Verbatim
from aizac.writer.agent import WriterAgent
from aizac.writer.project import BeatRecord, PlotRecord, ProjectInfo
from aizac.writer.rules import require_draft
from aizac.writer.schemas import NovelBeat, NovelPlot

PLOT_KEYWORDS: int = next(m.max_length for m in NovelPlot.model_fields["keywords"].metadata
                          if getattr(m, "max_length", None))
"""How many keywords a plot holds (a project may have more)."""

if TYPE_CHECKING:
    from langchain_core.documents import Document

    from aizac.application.importing import ImportRecord
    from aizac.application.reading import ReadBudget, ReadingReport
    from aizac.application.reading_estimate import ReadingEstimate
    from aizac.application.tree import Node, UndoTree
    from aizac.continuity.serial_report import SerialReport
    from aizac.illustration.service import Illustrator, SlotPrompt
    from aizac.illustration.store import ImageRecord
    from aizac.manuscript.preview import Adjustment, ManuscriptPreview
    from aizac.memory.records import MemoryHit
    from aizac.style.store import Scope
    from aizac.upkeep.check import CheckReport
    from aizac.writer.ports import ProjectMemory

T = TypeVar("T")
TREE_KEY = hist.TREE_KEY
Progress = Callable[[Text], None]
PLOT_EXISTS = "error.plot.exists"
__all__ = ["ApplicationService", "CancelToken", "HistoryStep", "HistoryView", "ImportReport"]


@dataclass(frozen=True)
class HistoryStep:
    """What one node of the undo tree did, as data (the label is said at the edge).

    Attributes:
        kind: ``generate``, ``edit``, ``regenerate`` or ``accept``
            (:mod:`aizac.application.history`).
        where: the beat's position (``1-2``); ``""`` when a node saved before positions were
            kept cannot say.
        first: the beat's first event (or place) as the model or the writer wrote it.
    """

    kind: str
    where: str
    first: str
    placed: bool = True  # a picture's step: placed, or removed

    def text(self, quote: Callable[[str], str] = str) -> Text | Verbatim:
        """The step as the history list says it: ``designed 1-2: Mira opens the door``;
        ``quote`` makes what the model or the writer wrote safe where it is shown."""
        first = Verbatim(quote(self.first))
        if self.kind == hist.PLACE and self.where:
            cover = self.where == hist.COVER_WHERE
            said = (("ui.history.cover_placed" if cover else "ui.history.placed") if self.placed
                    else ("ui.history.cover_removed" if cover else "ui.history.removed"))
            return Text(said, where=self.where, first=first)
        key = hist.KIND_KEYS.get(self.kind)
        if key is None or not self.where:
            return Verbatim(quote(self.first or self.kind))
        return Text("ui.history.step", kind=Text(key), where=self.where, first=first)


@dataclass(frozen=True)
class ImportReport:
    """What :meth:`ApplicationService.import_manuscript` saved."""

    project: str
    files: tuple[str, ...]
    episodes: int
    beats: int
    characters: int


@dataclass(frozen=True)
class HistoryView:
    """Where the editor stands in its undo tree."""

    node_id: str | None
    can_undo: bool
    can_redo: bool
    path: list[HistoryStep]
    siblings: list[tuple[Text, str]]  # (label, node id), current node excluded


class ApplicationService:
    """What the web app and the REST API do over the projects of one data directory.

    Args:
        studio: creates/opens/lists projects and returns their :class:`WriterAgent`.
        export_dir: where exported files are written (served to the browser from there).
        exports: the export service (default: an :class:`ExportService` over ``export_dir``).
        slots: admits each model generation (default: :class:`Unlimited`, the single-writer
            app; the server passes its per-user and per-server limits).
    """

    def __init__(
        self,
        studio: Projects,
        *,
        export_dir: Path,
        exports: ExportService | None = None,
        slots: GenerationSlots | None = None,
    ) -> None:
        self.studio = studio
        self.export_dir = Path(export_dir)
        self.exports = exports or ExportService(self.agent, self.export_dir)
        self.slots: GenerationSlots = slots or Unlimited()
        self._agents: dict[str, WriterAgent] = {}
        self._guard = threading.Lock()
        self._tokens: dict[str, set[CancelToken]] = {}

    @classmethod
    def for_agent(cls, agent: WriterAgent) -> ApplicationService:
        """The service over ``agent``'s data directory with ``agent`` already open (a front end
        handed one project, as the autopilot of a script or a test is)."""
        from aizac.writer.service import Studio

        studio = Studio(agent.settings, router=agent.router, cliches=agent.cliches,
                        embeddings=getattr(agent.memory, "embeddings", None))
        service = cls(studio, export_dir=export_dir_for(agent.settings))
        service._agents[agent.info.name] = agent
        return service

    # ------------------------------------------------------------------------- projects
    def list_projects(self) -> list[str]:
        return [info.name for info in self.studio.projects()]

    def projects(self) -> list[ProjectInfo]:
        """Every project, most recently created last; one that cannot be read (a damaged
        file) is listed with its :attr:`~ProjectInfo.problem`, and the others as always."""
        return self.studio.projects()

    def check_project(self, name: str | None) -> CheckReport:
        """Verify every store of the project (:mod:`aizac.upkeep.check`); a damaged one
        too: the report names each damaged file and the newest backup."""
        if not name:
            raise InvalidInputError("error.project.none_open")
        return self.studio.check(name)

    def backup_project(self, name: str | None) -> Path:
        """A consistent backup of the project (taken under its lock, while it may be in use),
        kept in its backups folder and offered for download from the export folder (a link
        to the same file where the disk allows it); returns the file to download."""
        if not name:
            raise InvalidInputError("error.project.none_open")
        with self._locked(name) as agent:  # no change of this app runs half-copied
            report = self.studio.backup(agent.info.name)
        offered = self.export_dir / report.project / "backups" / report.path.name
        offered.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(report.path, offered)
        except FileExistsError:
            pass
        except OSError:
            shutil.copy2(report.path, offered)
        return offered

    def create_project(
        self, name: str, *, genre: str, keywords: list[str], language: str,
        beats_per_episode: int | None = None, episode_length: int | None = None,
    ) -> WriterAgent:
        """A new project; ``beats_per_episode``/``episode_length`` are its own episode length
        (``None``: the defaults)."""
        if beats_per_episode is None and episode_length is None:  # openers without the options
            agent = self.studio.create(name, keywords, genre=genre, language=language)
        else:
            agent = self.studio.create(name, keywords, genre=genre, language=language,
                                       beats_per_episode=beats_per_episode,
                                       episode_length=episode_length)
        with self._guard:
            self._agents[agent.info.name] = agent
        return agent

    def agent(self, name: str | None) -> WriterAgent:
        """The open project ``name`` (opened on first use)."""
        if not name:
            raise InvalidInputError("error.project.none_open")
        with self._guard:
            agent = self._agents.get(name)
            if agent is None:
                agent = self.studio.open(name)
                self._agents[name] = agent
            else:
                agent.store.catch_up()  # on a shared database another process may have written
            return agent

    def update_project(self, name: str | None, *, genre: str, keywords: list[str]) -> ProjectInfo:
        """The writer's own genre and keywords (also written into the plot, if there is one)."""
        from aizac.writer.service import parse_keywords

        words = parse_keywords(keywords)
        with self._locked(name) as agent:
            agent.store.set_meta(genre=genre.strip(),
                                 keywords=json.dumps(words, ensure_ascii=False))
            record = agent.plot()
            if record is not None and (record.plot.genre, record.plot.keywords) != (
                genre.strip(), words
            ):
                # Validated, not copied: a plot holds fewer keywords than a project (the first
                # ones), and a plot stored unvalidated could not be read back.
                plot = NovelPlot.model_validate({
                    **record.plot.model_dump(), "genre": genre.strip() or record.plot.genre,
                    "keywords": words[:PLOT_KEYWORDS]})
                agent.store.save_plot(plot, tropes=record.tropes, memory_ids=record.memory_ids,
                                      expected_version=record.version, step="project-edit")
            return agent.info

    def set_episode_length(
        self, name: str | None, *, beats: int | None, length: int | None
    ) -> None:
        """The project's own beats per episode and prose length (``None``: the default).

        Refused while a draft waits at a position the new beat count would move (the draft
        would be left behind in the old episode)."""
        with self._locked(name) as agent:
            draft, old = agent.current_draft(), agent.episodes.own()
            agent.episodes.set(beats=beats, length=length)
            if draft is not None and agent.next_position() != (draft.episode, draft.index):
                agent.episodes.set(beats=old.get("beats"), length=old.get("length"))
                raise InvalidInputError("error.episode.draft_waiting",
                                        where=f"{draft.episode}-{draft.index}")

    def delete_project(self, name: str) -> None:
        """Delete the project: refused while one of its generations runs (cancel it first);
        its memory, files and exports go."""
        from aizac.writer.project_dirs import validate_project_name

        clean = validate_project_name(name)
        if self.running(clean):
            raise ConflictError("error.server.project_busy", name=clean)
        with self._guard:
            self._agents.pop(clean, None)
        self.studio.delete(clean)
        shutil.rmtree(self.export_dir / clean, ignore_errors=True)

    @contextlib.contextmanager
    def project_folder(self, name: str | None) -> Iterator[Path]:
        """The project's folder, held still: no write of this process or another one runs
        on the project inside the block (a consistent copy of its files)."""
        with self._locked(name) as agent:
            yield agent.info.path

    def revision(self, name: str | None) -> tuple[int, int]:
        """Where the project's stored state stands: its last logged step (every write of a
        plot, a beat, its prose or status is one) and the version of its undo tree; two cheap
        reads, so an open page can ask often whether its views are stale."""
        store = self.agent(name).store
        steps = store.steps(limit=1)
        tree = store.kv_get(TREE_KEY)
        return (steps[0].id if steps else 0, tree[1] if tree else 0)

    def embedded_rows(self, name: str | None, folder: Path) -> list[Path]:
        """A project kept on the server database, written into ``folder`` as the files an
        embedded project keeps (its rows and checkpoints), so both engines export alike; nothing
        for an embedded project, whose folder holds those files. Call it inside
        :meth:`project_folder` for a copy consistent with the folder."""
        from aizac.writer.server_projects import write_embedded

        agent = self.agent(name)
        if not agent.store.server:
            return []
        return write_embedded(agent.store, self.studio.settings, folder)

    @contextlib.contextmanager
    def _locked(self, name: str | None) -> Iterator[WriterAgent]:
        """The project's write lock: every change a handler asks for is made under it."""
        agent = self.agent(name)
        with agent.store.lock():
            yield agent

    # --------------------------------------------------------------------- cancellation
    @contextlib.contextmanager
    def operation(self, name: str | None) -> Iterator[CancelToken]:
        """A cancellable long operation on project ``name``: model calls made inside stop
        when :meth:`cancel` is called, and raise :class:`~aizac.errors.CancelledError`."""
        token = CancelToken()
        key = name or ""
        with self._guard:
            self._tokens.setdefault(key, set()).add(token)
        try:
            with token.watching():
                yield token
        finally:
            with self._guard:
                self._tokens.get(key, set()).discard(token)

    def cancel(self, name: str | None) -> int:
        """Cancel every running operation on ``name``; returns how many were running."""
        with self._guard:
            tokens = list(self._tokens.get(name or "", set()))
        for token in tokens:
            token.cancel()
        return len(tokens)

    def running(self, name: str | None) -> bool:
        with self._guard:
            return bool(self._tokens.get(name or ""))

    # ----------------------------------------------------------------------------- plot
    def plot(self, name: str | None) -> PlotRecord | None:
        return self.agent(name).plot()

    def generate_plot(self, name: str | None, progress: Progress | None = None, *,
                      replace: bool = True) -> PlotRecord:
        """A new plot from the model; over an existing plot only if ``replace`` (the web app
        passes the writer's confirmation, so one click never loses a hand-written plot)."""
        with self.slots.generation(), self.operation(name) as token, \
                self._locked(name) as agent:
            force = agent.plot() is not None
            if force and not replace:
                raise ConflictError(PLOT_EXISTS)
            return agent.plan(force=force, progress=token.progress(progress))

    def draft_plot_from_story(self, name: str | None, progress: Progress | None = None, *,
                              force: bool = False) -> PlotRecord:
        """The planner's draft of the plot of the story so far (an imported manuscript read
        into memory: :mod:`aizac.writer.story_plot`), saved as the project's plot for the
        writer to edit (:meth:`save_plot`). A plot already there is replaced only with
        ``force`` (the writer's confirmation); the memories the reading made are never
        replaced, only what the memory does not know of the plot is seeded.

        Raises:
            ConflictError: the project has a plot and ``force`` is not given.
            InvalidInputError: the project has no accepted beat to draft from.
        """
        from aizac.writer.story_plot import draft_from_story

        with self.slots.generation(), self.operation(name) as token, \
                self._locked(name) as agent:
            if agent.plot() is not None and not force:
                raise ConflictError(PLOT_EXISTS)
            return draft_from_story(agent, say=token.progress(progress))

    def save_plot(self, name: str | None, plot: NovelPlot, version: int | None) -> PlotRecord:
        """Store the writer's plot: an edit, or a plot written by hand with no generation."""
        with self._locked(name) as agent:
            return agent.update_plot(plot, expected_version=version)

    # ----------------------------------------------------------------------- the tree
    def _load_tree(self, agent: WriterAgent, recording: int | None = None
                   ) -> tuple[UndoTree, int]:
        """The stored tree. Every accept comes through this service and records its node, so
        the tree holds every accepted beat; a project with beats accepted before that (by an
        older aizac's CLI or autopilot) has them adopted here (but ``recording``, the beat
        whose own node the caller is adding), and kept with the caller's next save."""
        from aizac.application.tree import UndoTree

        stored = agent.store.kv_get(TREE_KEY)
        tree, version = (UndoTree(), 0) if stored is None else (
            UndoTree.from_dict(json.loads(stored[0])), stored[1])
        path = tree.path()
        on_path = sum(1 for n in path if n.kind == hist.ACCEPT) + len(hist.imported(path))
        if on_path != agent.store.count_beats("accepted") - (recording is not None):
            self._adopt(agent, tree, recording)
        return tree, version

    def _adopt(self, agent: WriterAgent, tree: UndoTree, skip: int | None = None) -> None:
        """Make every accepted beat a node of ``tree``: one accepted before every accept
        recorded its node is added as its design and its acceptance, in story order, so
        undo/redo/branch walk across them too. Deterministic (the same nodes with the same ids
        each time), so a read needs not store it."""
        path = [(n.kind, hist.Step.from_payload(n.kind, n.payload).beat_id)
                for n in tree.path() if n.kind in (hist.DRAFT, hist.ACCEPT)]
        on_path = {beat for kind, beat in path if kind == hist.ACCEPT} | hist.imported(
            tree.path())
        drafted = {beat for kind, beat in path if kind == hist.DRAFT}
        for record in agent.store.beats(status="accepted"):
            if record.id in on_path or record.id == skip:
                continue
            self._add_accepted(agent, tree, record, drafted=record.id in drafted)

    def _add_accepted(self, agent: WriterAgent, tree: UndoTree, record: BeatRecord, *,
                      drafted: bool) -> None:
        """The nodes of a beat accepted without the editor: its design (unless the editor
        designed it: ``drafted``) and its acceptance."""
        ids = list(record.memory_ids)
        batch = agent.memory.batch_of(ids) if ids else ""
        if not drafted:
            tree.add(hist.payload(record.id, record.beat, cast=record.new_characters,
                                  written=record.written),
                     hist.DRAFT, **_step_meta(record))
        tree.add(hist.payload(record.id, record.beat, cast=record.new_characters,
                              summary=record.summary, batch=batch, written=record.written),
                 hist.ACCEPT, commit_ids=ids, **_step_meta(record))

    def _save_tree(self, agent: WriterAgent, tree: UndoTree, version: int) -> None:
        agent.store.kv_set(
            TREE_KEY, json.dumps(tree.to_dict(), ensure_ascii=False), expected_version=version
        )

    def history(self, name: str | None) -> HistoryView:
        tree, _ = self._load_tree(self.agent(name))
        return _history_view(tree)

    def _record(
        self, agent: WriterAgent, kind: str, record: BeatRecord,
        before: BeatRecord | None = None,
    ) -> None:
        # only an acceptance's own beat is accepted before its node is added
        tree, version = self._load_tree(
            agent, recording=record.id if kind == hist.ACCEPT else None)
        ids = list(record.memory_ids) if kind == hist.ACCEPT else []
        batch = agent.memory.batch_of(ids) if ids else ""
        tree.add(
            hist.payload(
                record.id, record.beat, before.beat if before else None,
                cast=record.new_characters, before_cast=before.new_characters if before else None,
                summary=record.summary if kind == hist.ACCEPT else None, batch=batch,
                written=record.written, before_written=before.written if before else None,
            ),
            kind, commit_ids=ids, **_step_meta(record),
        )
        self._save_tree(agent, tree, version)

    # ---------------------------------------------------------------------------- beats
    def beats(self, name: str | None) -> tuple[int, list[BeatRecord], BeatRecord | None]:
        """(episode number, its beats in order, the current draft)."""
        agent = self.agent(name)
        draft = agent.current_draft()
        episode = draft.episode if draft else agent.next_position()[0]
        return episode, agent.beats(episode), draft

    def draft_findings(self, name: str | None) -> Any:
        """What the checks find in the current draft before it is accepted: the dialogue of
        its beat against the memory's voices (a :class:`~aizac.continuity.ContinuityReport`;
        no model call, nothing written); ``None`` without a draft."""
        agent = self.agent(name)
        draft = agent.current_draft()
        return None if draft is None else agent.check_dialogue(draft.id)

    def accepted(self, name: str | None) -> list[BeatRecord]:
        return self.agent(name).store.beats(status="accepted")

    def beat(self, name: str | None, beat_id: int) -> BeatRecord:
        """The project's beat ``beat_id``, whatever its status.

        Raises:
            NotFoundError: the project has no such beat.
        """
        return self.agent(name).store.beat(beat_id)

    def next_beat(self, name: str | None, progress: Progress | None = None, *,
                  instruction: str = "") -> BeatRecord:
        """A new draft at the next position (designed following ``instruction``), or the
        pending one (see :meth:`pending_draft`)."""
        with self.slots.generation(), self.operation(name) as token, \
                self._locked(name) as agent:
            existing = agent.current_draft()
            if existing is not None:
                return existing
            record = agent.next_beat(instruction, progress=token.progress(progress))
            if token.cancelled:  # cancelled after the model's last word: not kept at all
                agent.reject(record.id)
                token.check()
            self._record(agent, hist.DRAFT, record)
            return record

    def plan_episode(
        self, name: str | None, instruction: str = "", progress: Progress | None = None
    ) -> list[BeatRecord]:
        """"Plan this episode": drafts for every beat left in the current episode, designed
        in one planner call when the planner declares it can (:meth:`WriterAgent.plan_episode`;
        drafts already there are designed again, keeping the writer's fields). Each draft is a
        node of the history (a new one ``generate``, a redesigned one ``regenerate``)."""
        with self.slots.generation(), self.operation(name) as token, \
                self._locked(name) as agent:
            episode, first = agent.next_position()
            before = {d.index: d for d in agent.beats(episode)
                      if d.status == "draft" and d.index >= first}
            records = agent.plan_episode(instruction, progress=token.progress(progress))
            if token.cancelled:  # cancelled after the model's last word: nothing is kept
                for record in records:
                    old = before.get(record.index)
                    if old is None:
                        agent.reject(record.id)
                    else:
                        agent.store.update_draft(old.id, old.beat, step="cancel",
                                                 new_characters=old.new_characters,
                                                 written=old.written)
                token.check()
            for record in records:
                old = before.get(record.index)
                if old is None:
                    self._record(agent, hist.DRAFT, record)
                else:
                    self._record(agent, hist.REGENERATE, record, before=old)
            return records

    def pending_draft(self, name: str | None) -> BeatRecord | None:
        return self.agent(name).current_draft()

    def _draft(self, agent: WriterAgent, beat_id: int | None, version: int | None) -> BeatRecord:
        if beat_id is None:
            raise InvalidInputError("error.beat.no_draft")
        return require_draft(agent.store.beat(beat_id), version)

    def edit_beat(
        self, name: str | None, beat_id: int | None, version: int | None, beat: NovelBeat
    ) -> BeatRecord:
        with self._locked(name) as agent:
            old = self._draft(agent, beat_id, version)
            if old.beat == beat:
                return old
            record = agent.edit_beat(old.id, beat, expected_version=old.version)
            self._record(agent, hist.EDIT, record, before=old)
            return record

    def set_written(
        self, name: str | None, beat_id: int | None, version: int | None, fields: Sequence[str]
    ) -> BeatRecord:
        """The writer locks or unlocks the draft's fields (a node of the history: undo puts
        the previous locks back)."""
        from aizac.writer.locks import check_fields

        with self._locked(name) as agent:
            old = self._draft(agent, beat_id, version)
            if old.written == check_fields(fields):
                return old
            record = agent.set_written(old.id, fields, expected_version=old.version)
            self._record(agent, hist.EDIT, record, before=old)
            return record

    def regenerate(
        self,
        name: str | None,
        beat_id: int | None,
        version: int | None,
        instruction: str = "",
        progress: Progress | None = None,
        locked: Sequence[str] | None = None,
    ) -> BeatRecord:
        """Design the draft again; ``locked`` fields keep the draft's current values
        (``None``: the fields the writer wrote, :attr:`BeatRecord.written`)."""
        with self.slots.generation(), self.operation(name) as token, \
                self._locked(name) as agent:
            old = self._draft(agent, beat_id, version)
            record = agent.regenerate(
                old.id, instruction, expected_version=old.version,
                progress=token.progress(progress), locked=locked,
            )
            if token.cancelled:  # cancelled after the model's last word
                agent.store.update_draft(old.id, old.beat, new_characters=old.new_characters,
                                         step="cancel", written=old.written)
                token.check()
            self._record(agent, hist.REGENERATE, record, before=old)
            return record

    def reject(self, name: str | None, beat_id: int | None, version: int | None) -> BeatRecord:
        """Throw the draft away (the command line's ``--reject``; the editor undoes instead).
        Its design stays in the history: undo to before it and redo bring it back."""
        with self._locked(name) as agent:
            old = self._draft(agent, beat_id, version)
            return agent.reject(old.id, expected_version=old.version)

    def suggest(self, name: str | None, beat_id: int | None) -> list[Any]:
        return self.agent(name).suggest(beat_id)

    def accept(
        self,
        name: str | None,
        beat_id: int | None,
        version: int | None,
        progress: Progress | None = None,
    ) -> BeatRecord:
        with self.slots.generation(), self.operation(name) as token, \
                self._locked(name) as agent:
            old = self._draft(agent, beat_id, version)
            record = agent.accept(
                old.id, expected_version=old.version, progress=token.progress(progress)
            )
            if token.cancelled:  # cancelled while memories were being committed
                agent.unaccept(record.id)
                token.check()
            self._record(agent, hist.ACCEPT, record)
            return record

    def commit_planned(
        self, name: str | None, planned: Sequence[PlannedBeat],
        held_voices: Collection[str] = (),
    ) -> list[BeatRecord]:
        """Beats designed and extracted elsewhere (the autopilot's episode) become canon in
        order, with their prose (:func:`aizac.application.planned.commit_planned`; safe to run
        again after a kill); each acceptance is a node of the history, as the editor's are."""
        with self._locked(name) as agent:
            committed = commit_planned(agent, planned, held_voices)
            if any(c.new for c in committed):  # their nodes are adopted, then kept
                tree, version = self._load_tree(agent)
                self._save_tree(agent, tree, version)
            return [c.record for c in committed]

    # ----------------------------------------------------------------- undo / redo / switch
    def undo(self, name: str | None) -> HistoryView:
        """Step back along the current branch (undoing an acceptance reverts its memory)."""
        return self._move(name, lambda tree: tree.current.parent_id, "error.history.no_undo")

    def redo(self, name: str | None) -> HistoryView:
        """Step forward to the branch last visited from here."""
        return self._move(
            name, lambda tree: (t.id if (t := tree.redo_target()) else None),
            "error.history.no_redo",
        )

    def switch(self, name: str | None, node_id: str) -> HistoryView:
        """Jump to another branch (usually a sibling made by regenerating after an undo)."""
        return self._move(name, lambda tree: node_id, "error.history.no_branch")

    def _move(
        self, name: str | None, target_of: Callable[[UndoTree], str | None], nothing: str
    ) -> HistoryView:
        with self._locked(name) as agent:
            tree, version = self._load_tree(agent)
            target = target_of(tree)
            if target is None or target not in tree or target == tree.current.id:
                raise InvalidInputError(nothing, hint="hint.history")
            if any(n.kind == hist.IMPORT for n in tree.transition(target).undone):
                raise InvalidInputError("error.history.import_start")
            move(agent, tree, target)
            self._save_tree(agent, tree, version)
            return _history_view(tree)

    # ---------------------------------------------------------------------- illustrations
    def illustrator(self, name: str | None) -> Illustrator:
        """The project's pictures to read: slot prompts, quotes, what was made and placed
        (each change below is made through the service)."""
        from aizac.illustration.service import Illustrator

        return Illustrator(self.agent(name))

    def save_image_prompt(self, name: str | None, slot: str, text: str | None) -> SlotPrompt:
        """Keep the writer's wording of ``slot``'s prompt (empty: the drawn one again)."""
        from aizac.illustration.service import Illustrator

        with self._locked(name) as agent:
            return Illustrator(agent).save_prompt(slot, text)

    def generate_image(self, name: str | None, slot: str, text: str | None) -> ImageRecord:
        """One picture for ``slot``, the writer having confirmed it (the image model runs
        outside the project's lock, in a generation slot; the picture is stored under it)."""
        with self.slots.generation():
            return self.illustrator(name).generate(slot, text, confirmed=True)

    def set_image_look(self, name: str | None, style: str, author: str, budget: int) -> None:
        """The pictures' style, the cover's author and the project's image budget."""
        from aizac.illustration.service import Illustrator

        with self._locked(name) as agent:
            Illustrator(agent).set_look(style, author, budget)

    def place_image(self, name: str | None, slot: str, image_id: str | None) -> str | None:
        """Place a stored picture in ``slot`` (``None``: remove it); returns what was there.

        A node of the undo tree: undo puts the previous picture back, redo this one (the same
        file; nothing is generated again)."""
        from aizac.illustration.service import Illustrator
        from aizac.illustration.store import COVER

        with self._locked(name) as agent:
            before = Illustrator(agent).place(slot, image_id)
            if before == image_id:
                return before
            beat_id = 0 if slot == COVER else int(slot.split(":", 1)[1])
            if slot == COVER:
                plot = agent.plot()
                where, first = hist.COVER_WHERE, plot.plot.title[:40] if plot else ""
            else:
                record = agent.store.beat(beat_id)
                where, first = f"{record.episode}-{record.index}", record.beat.location[:40]
            tree, version = self._load_tree(agent)
            tree.add(hist.image_payload(slot, image_id, before, beat_id), hist.PLACE,
                     where=where, first=first, placed=image_id is not None)
            self._save_tree(agent, tree, version)
            return before

    # --------------------------------------------------------------------------- memory
    def all_memories(self, name: str | None) -> list[MemoryHit]:
        """Every memory of the project (forgotten and superseded ones included)."""
        return self.agent(name).memory.all()

    def ask(self, name: str | None, question: str) -> list[Document]:
        """The memories that answer ``question`` (an embedding call: a generation slot)."""
        agent = self.agent(name)
        with self.slots.generation():
            return agent.ask(question)

    def memory_notice(self, name: str | None) -> Text | None:
        """What to run when the project's memory still uses other embeddings than the
        configured ones (:func:`aizac.writer.service.memory_notice`), else ``None``."""
        from aizac.writer.service import memory_notice

        return memory_notice(self.agent(name)) if name else None

    def reindex(self, name: str | None, progress: Callable[[Text], None] | None = None) -> Text:
        """Re-embed the project's memory with the configured embeddings (resumable); the
        sentence saying what was done. The project is open again afterwards.

        Raises:
            InvalidInputError: the project's memory is not a folder of its own.
        """
        from aizac.llm.embeddings import embedding_label
        from aizac.writer.project_dirs import validate_project_name

        if not name:
            raise InvalidInputError("error.project.none_open")
        project = validate_project_name(name)
        # The Studio holds the project's lock for it, and opens a memory whose embeddings
        # cannot be built here on its stored vectors alone (the agent would not open).
        with self.operation(project):
            result = self.studio.reindex(project, progress=progress)
            with self._guard:
                self._agents.pop(project, None)  # its memory was the old collection
        key = "ui.memory.reindex_done" if result.switched else "ui.memory.reindex_current"
        return Text(key, project=project, rows=result.rows, embedded=result.embedded,
                    target=embedding_label(result.target))

    def change_memory(self, name: str | None, change: Callable[[ProjectMemory], T]) -> T:
        """Run a front end's own change of the project's memory (the autopilot's steering of
        canon) under the project's lock; returns what ``change`` returns."""
        with self._locked(name) as agent:
            return change(agent.memory)

    def set_pinned(self, name: str | None, ids: Sequence[str], pinned: bool) -> None:
        with self._locked(name) as agent:
            for memory_id in ids:
                if pinned:
                    agent.memory.pin(memory_id)
                else:
                    agent.memory.unpin(memory_id)

    def strike(self, name: str | None, ids: Sequence[str]) -> list[str]:
        """Strike facts out as the writer's retcon (never true; what they replaced is current
        again); the memory commits, each undoable."""
        with self._locked(name) as agent:
            return [agent.memory.strike(memory_id) for memory_id in ids]

    def checked(self, name: str | None, ids: Sequence[str]) -> str:
        """The writer confirms flagged facts (their flags cleared); the memory commit."""
        with self._locked(name) as agent:
            return agent.memory.checked(list(ids))

    def conflicts(self, name: str | None) -> list[tuple[MemoryHit, MemoryHit]]:
        """Pairs of facts the memory kept side by side for the writer (newer, earlier)."""
        return self.agent(name).memory.conflicts()

    def settle(self, name: str | None, flagged: str, other: str, keep: str) -> str:
        """Settle a flagged pair (``keep``: ``flagged``, ``other`` or ``both``); returns the
        memory commit (undoable like any)."""
        with self._locked(name) as agent:
            return agent.memory.settle(flagged, other, keep)

    # ---------------------------------------------------------------------------- style
    def set_style_scope(self, name: str | None, scope: str) -> Scope:
        """Which of the writer's texts the style profile learns from; returns the scope set."""
        with self._locked(name) as agent:
            return agent.style.book.set_scope(scope)

    def set_voice(
        self, name: str | None, speaker: str, listener: str, *, level: str, address: str
    ) -> list[str]:
        """How ``speaker`` talks to ``listener`` (a fact of the memory, at the next
        episode); the ids of the memories written (none: nothing changed)."""
        from aizac.dialogue.memory import set_voice

        with self._locked(name) as agent:
            return set_voice(agent.memory, speaker, listener, level=level, address=address,
                             language=agent.info.language, chapter=agent.next_position()[0])

    # ---------------------------------------------------------------------------- prose
    def write_prose(self, name: str | None, beat_id: int | None) -> Iterator[str]:
        """Stream the prose of an accepted beat; the text so far after each chunk."""
        agent = self.agent(name)
        yield from self._streamed(name, lambda: agent.write_prose(beat_id))

    def _streamed(self, name: str | None, chunks: Callable[[], Iterator[str]]) -> Iterator[str]:
        """A generation's text so far after each of its ``chunks``, in a generation slot and
        under the project's cancellable operation."""
        with self.slots.generation(), self.operation(name) as token:
            text = ""
            for chunk in chunks():
                token.check()
                text += chunk
                yield text

    def episode_to_write(self, name: str | None, episode: int) -> list[BeatRecord]:
        """The accepted beats of ``episode`` that have no prose yet (what "write this
        episode" writes), in order; raises when there is none."""
        if episode < 1:
            raise InvalidInputError("error.prose.episode_number", episode=episode)
        records = [r for r in self.agent(name).store.beats(episode=episode, status="accepted")
                   if not (r.prose or "").strip()]
        if not records:
            raise NotFoundError("error.prose.episode_written", episode=episode)
        return records

    def write_episode(self, name: str | None, episode: int) -> Iterator[str]:
        """"Write this episode": stream the prose of ``episode``'s accepted beats that have
        none, in one writer call when the writer declares it can
        (:meth:`WriterAgent.write_episode`); the text so far after each chunk. Each beat's
        prose is saved as the stream completes."""
        self.episode_to_write(name, episode)
        agent = self.agent(name)
        yield from self._streamed(name, lambda: agent.write_episode(episode))

    def save_prose(
        self, name: str | None, beat_id: int | None, prose: str, *, version: int | None = None,
        drafted: bool = False,
    ) -> BeatRecord:
        """Store a beat's prose: the writer's edit (style evidence: their own text against the
        model's draft), or with ``drafted`` a model's rewrite (the autopilot's; no evidence).
        ``version``: the beat's version the prose was made from (a stale one is refused)."""
        if beat_id is None:
            raise InvalidInputError("error.prose.pick_beat")
        with self._locked(name) as agent:
            if drafted:
                return agent.store.save_prose(beat_id, prose, expected_version=version)
            return agent.save_prose(beat_id, prose, expected_version=version)

    # ----------------------------------------------------------------------- manuscript
    def preview_manuscript(self, paths: Sequence[Path], adjustments: Sequence[Adjustment] = ()
                           ) -> ManuscriptPreview:
        """How the manuscript in ``paths`` splits into episodes after the writer's
        ``adjustments`` (:mod:`aizac.manuscript.preview`); reads the files, changes no project."""
        from aizac.manuscript.preview import preview

        return preview(paths, adjustments)

    def import_manuscript(
        self, name: str, paths: Sequence[Path], adjustments: Sequence[Adjustment] = (), *,
        genre: str = "", keywords: Sequence[str] = (), language: str | None = None,
        beats_per_episode: int | None = None, episode_length: int | None = None,
    ) -> ImportReport:
        """A new project ``name`` whose story is the manuscript in ``paths``, split as
        :meth:`preview_manuscript` shows it after ``adjustments``: each episode an episode,
        each of its scenes one accepted beat with the scene as its prose
        (:mod:`aizac.application.importing`), the next beat placed after its last episode.

        All or nothing: the project and its whole story are stored in one unit (a failure or a
        kill anywhere leaves no project and the name free). The memory does not read the
        episodes here (no model call); the import record says none is read yet.

        ``language``: the project's (default: the manuscript's script, Hangul ``ko``, Han
        ``zh``, else the settings'); ``episode_length``: default the manuscript's median
        episode, so what comes next runs as long.

        Raises:
            InvalidInputError: a project ``name`` exists (it is left as it was), or the files
                cannot be read or split (see :meth:`preview_manuscript`).
        """
        from aizac.application.importing import seed, typical_length
        from aizac.dialogue.speech import language_of
        from aizac.manuscript.preview import read
        from aizac.writer.episode import UNITS
        from aizac.writer.project_dirs import validate_project_name

        clean = validate_project_name(name)
        if clean in self.list_projects():  # before reading: a writer's project is never touched
            raise InvalidInputError("error.project.exists", name=clean)
        manuscript = read(paths, adjustments)
        if not manuscript.episodes:  # a title page and nothing else
            raise InvalidInputError("error.manuscript.no_text")
        lang = language or language_of(
            "".join(e.text for e in manuscript.episodes[:3]), self.studio.settings.language)
        rows, record = seed(manuscript)
        if episode_length is None:
            episode_length = typical_length(manuscript.episodes, UNITS.get(lang, "words"))
        agent = self.studio.create(clean, list(keywords), genre=genre, language=lang,
                                   beats_per_episode=beats_per_episode,
                                   episode_length=episode_length, seed=rows)
        with self._guard:
            self._agents[agent.info.name] = agent
        return ImportReport(agent.info.name, record.files, record.episodes, record.beats,
                            record.characters)

    def read_manuscript(
        self, name: str | None, progress: Progress | None = None, *,
        budget: ReadBudget | None = None,
    ) -> ReadingReport:
        """Build the memory from the imported manuscript of project ``name``: each scene not
        read yet, in story order, read and committed as an accept commits a beat
        (:mod:`aizac.application.reading`): characters with their aliases, states, relations,
        rules, threads; the scene's design replaced by the one read from its text.

        Resumable: a reading cancelled (:meth:`cancel`, between scenes), stopped by ``budget``
        or killed continues at the first unread scene when called again, nothing read twice.
        ``progress`` hears of each episode and scene.

        Raises:
            InvalidInputError: the project holds no imported manuscript, or beats were
                accepted after it while scenes are unread.
            CancelledError: cancelled (the scenes read so far stay read).
        """
        from aizac.application.reading import read_manuscript

        with self.slots.generation(), self.operation(name) as token, \
                self._locked(name) as agent:
            return read_manuscript(agent, token, token.progress(progress), budget)

    # ----------------------------------------------------------------- continuity report
    def continuity_report(self, name: str | None, first: int | None = None,
                          last: int | None = None, *, reviewer: bool = True) -> SerialReport:
        """The continuity report of episodes ``first``..``last`` (default: every accepted
        episode): the deterministic checks over the memory and, with ``reviewer``, the
        ``reviewer`` role per episode (:mod:`aizac.application.continuity_report`). Dismissed
        findings are listed apart. Nothing is written."""
        from aizac.application.continuity_report import (
            build_report,
            dismissed_keys,
            memory_notes,
            serial_input,
        )

        agent = self.agent(name)
        data = serial_input(agent, agent.info.language)
        episodes = [s.episode for s in data.scenes]
        top = max(episodes, default=0)
        low, high = first or 1, min(last or top, top)
        if high < low:
            raise InvalidInputError("error.report.range", first=low, last=high)
        keys, _ = dismissed_keys(agent)
        if not reviewer:
            return build_report(data, low, high, dismissed=keys)
        model = agent.router.model("reviewer")
        with self.slots.generation(), self.operation(name) as token:
            return build_report(data, low, high, reviewer=model, dismissed=keys,
                                check=token.check, notes=memory_notes(agent, data))

    def dismiss_finding(self, name: str | None, key: str, *, dismissed: bool = True
                        ) -> list[str]:
        """Dismiss the report's finding ``key`` for good (``dismissed=False`` brings it back);
        the keys now dismissed."""
        from aizac.application.continuity_report import set_dismissed

        if not re.fullmatch(r"[0-9a-f]{16}", key or ""):
            raise InvalidInputError("error.report.key", key=Verbatim(key or ""))
        with self._locked(name) as agent:
            return set_dismissed(agent, key, dismissed)

    def report_markdown(self, name: str | None, first: int | None = None,
                        last: int | None = None, *, reviewer: bool = True,
                        report: SerialReport | None = None) -> str:
        """The continuity report (``report``, or a new one) as Markdown in the project's
        language."""
        from aizac.continuity.serial_report import report_markdown

        agent = self.agent(name)
        found = report or self.continuity_report(name, first, last, reviewer=reviewer)
        return report_markdown(found, agent.info.language, title=agent.info.name)

    def import_record(self, name: str | None) -> ImportRecord:
        """The project's import record (:mod:`aizac.application.importing`).

        Raises:
            InvalidInputError: the project was not made from a manuscript.
        """
        from aizac.application.importing import RECORD_KEY, ImportRecord

        agent = self.agent(name)
        stored = agent.store.kv_get(RECORD_KEY)
        if stored is None:
            raise InvalidInputError("error.read.not_imported", project=agent.info.name)
        return ImportRecord.loads(stored[0])

    def estimate_reading(self, name: str | None) -> ReadingEstimate:
        """What reading the project's unread manuscript into memory will cost (calls, tokens,
        money, time) with the configured models (:mod:`aizac.application.reading_estimate`);
        no model call, nothing written."""
        from aizac.application.reading import unread_scenes
        from aizac.application.reading_estimate import EXTRACT_ROLE, READ_ROLE, estimate
        from aizac.application.reading_inputs import prompt_sizes, role_model

        self.import_record(name)  # a project made from a manuscript, or the error saying not
        agent = self.agent(name)
        beats = agent.store.beats(status="accepted")
        unread = unread_scenes(agent)  # the reading's own test of what is left to read
        done = sum(1 for b in beats if b.imported) - len(unread)
        return estimate(
            [b.prose or "" for b in unread], episodes=len({b.episode for b in unread}),
            read=role_model(agent.router, READ_ROLE),
            extract=role_model(agent.router, EXTRACT_ROLE),
            prompts=prompt_sizes(agent.prompts, agent.info.language),
            max_reply_tokens=agent.settings.structured_max_tokens, read_before=done,
            combined=agent.combined_extraction,
        )

    # --------------------------------------------------------------------------- export
    def export(
        self, name: str | None, fmt: str, first: int | None, last: int | None,
        filename: str | None, *, directory: Path | None = None,
    ) -> ExportResult:
        return self.exports.export(name, fmt, first, last, filename, directory=directory)

    def email(
        self, name: str | None, address: str, fmt: str, first: int | None, last: int | None
    ) -> ExportResult:
        return self.exports.email(name, address, fmt, first, last)


# ------------------------------------------------------------------------------- helpers
def _step_meta(record: BeatRecord) -> dict[str, str]:
    """What a node remembers of the beat it touched (its label is said at the edge)."""
    first = record.beat.events[0] if record.beat.events else record.beat.location
    return {"where": f"{record.episode}-{record.index}", "first": first[:40]}


_OLD_LABEL = re.compile(r"(designed|edited|regenerated|accepted) (\d+-\d+): (.*)", re.S)
_OLD_PLACE = re.compile(r"(placed|removed) (?:cover ?(.*)|(\d+-\d+): (.*))", re.S)
_OLD_KINDS = {"designed": hist.DRAFT, "edited": hist.EDIT, "regenerated": hist.REGENERATE,
              "accepted": hist.ACCEPT}


def _step(node: Node) -> HistoryStep:
    """A node's step; a node saved before steps were data holds an English ``label``
    (``designed 1-2: ...``), read once here into the same fields."""
    meta = node.meta
    if "where" in meta:
        return HistoryStep(node.kind, str(meta["where"]), str(meta.get("first", "")),
                           bool(meta.get("placed", True)))
    label = str(meta.get("label", ""))
    match = _OLD_LABEL.fullmatch(label)
    if match is not None and _OLD_KINDS[match[1]] == node.kind:
        return HistoryStep(node.kind, match[2], match[3])
    placed = _OLD_PLACE.fullmatch(label)
    if placed is not None and node.kind == hist.PLACE:
        where = placed[3] or hist.COVER_WHERE
        first = placed[4] if placed[3] else (placed[2] or "")
        return HistoryStep(node.kind, where, first, placed[1] == "placed")
    return HistoryStep(node.kind, "", str(meta.get("label") or node.kind))


def _history_view(tree: UndoTree) -> HistoryView:
    path = [n for n in tree.path() if not n.is_root]
    current = tree.current
    count = len(tree.siblings())
    siblings = [] if current.is_root else [
        (Text("ui.history.sibling", n=i, count=count, step=_step(n).text()), n.id)
        for i, n in enumerate(tree.siblings(), 1)
        if n.id != current.id
    ]
    siblings += [(Text("ui.history.child", step=_step(n).text()), n.id)
                 for n in tree.children(current.id)]
    return HistoryView(
        node_id=None if current.is_root else current.id,
        can_undo=tree.can_undo and current.kind != hist.IMPORT,  # where the history starts
        can_redo=tree.can_redo,
        path=[_step(n) for n in path],
        siblings=siblings,
    )
