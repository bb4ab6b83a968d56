"""The writer agent of one project: plan, design beats, accept them into memory, write prose.

Collaborators come in through the constructor (router, memory, cliché database, store,
settings), so tests pass fakes. Information hiding: only :meth:`WriterAgent.plan` sees the
whole plot; the beat designer gets the current act's goal, the current episode's planned line
and the context pack; the prose writer gets the beat, the context pack and the previous prose.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Sequence
from pathlib import Path
from typing import Any

from aizac.errors import ConflictError, InvalidInputError
from aizac.llm.runtime import run_sync
from aizac.memory.references import Offer
from aizac.settings import Settings
from aizac.storage.killpoints import checkpoint
from aizac.style import WriterStyle
from aizac.text import Text
from aizac.writer import accepting, combined, extraction
from aizac.writer import characters as dyn
from aizac.writer.context import ContextBuilder, OnePackPerBeat, default_context
from aizac.writer.designed import Designed, DesignPrompt
from aizac.writer.episode import ProjectEpisodes
from aizac.writer.extraction import newcomers
from aizac.writer.output import ProseWriter
from aizac.writer.ports import Cliches, ProjectMemory, Router
from aizac.writer.project import BeatRecord, PlotRecord, ProjectInfo, ProjectStore
from aizac.writer.project_rows import UNREAD_CAST
from aizac.writer.prompt_words import prompt_words
from aizac.writer.prompts import PromptLibrary
from aizac.writer.rules import (
    beat_thing,
    check_question,
    check_version,
    require_draft,
    require_plot,
    story_genre,
)
from aizac.writer.schemas import BeatDesign, CharacterProfile, NovelBeat, NovelPlot
from aizac.writer.tropes import plot_tropes, suggestion_lines

Progress = Callable[[Text], None]
"""Where a long step reports what it is doing (a catalogue text, rendered by the edge)."""


class WriterAgent:
    """Everything a writer does on one project: the story's own rules, no front end's.

    Its writes run under the project's lock, which the caller holds: every front end (CLI,
    web, REST, autopilot) comes in through :class:`aizac.application.ApplicationService`,
    which takes the lock once, checks versions, cancels and records the undo history; a
    single-threaded script (a bench, a test) may call it directly.

    Args:
        store: the project's SQLite store.
        memory: the project's :class:`~aizac.memory.WriterMemory`.
        router: role -> chat model (:class:`~aizac.llm.router.ModelRouter`).
        cliches: the cliché database (:class:`~aizac.cliches.ClicheDB`).
        settings: aizac settings.
        prompts: prompt templates (package data, optionally overridden).
        beats_per_episode, episode_length: defaults of :mod:`aizac.writer.episode`.
        context_tokens: token budget of the context pack in beat and prose prompts.
        context_builder: builds the context text (default: :mod:`aizac.retrieval`).
        concurrent_extraction: run the four extraction calls at once (default) or in turn.
        combined_extraction: one extraction call per beat, per-tag calls, None: as declared.
        prose_context_tokens: context budget of prose prompts (default: ``context_tokens``, or
            a small budget when the writer role is the embedded small model).
        prose_writer: writes prose and exports (default: a :class:`ProseWriter` on the same
            store, memory, router and prompts, with the prose options above).
        style: the writer's style evidence and profile (default: the project's
            :class:`~aizac.style.WriterStyle`, with the memory's embeddings for few-shot).
    """

    def __init__(
        self,
        store: ProjectStore,
        memory: ProjectMemory,
        router: Router,
        cliches: Cliches | None,
        *,
        settings: Settings,
        prompts: PromptLibrary | None = None,
        beats_per_episode: int | None = None,
        context_tokens: int = 900,
        prose_words: int | None = None,
        trope_tokens: int = 450,
        context_builder: ContextBuilder | None = None,
        concurrent_extraction: bool = True,
        prose_context_tokens: int | None = None,
        prose_writer: ProseWriter | None = None,
        episode_length: int | None = None,
        combined_extraction: bool | None = None,
        style: WriterStyle | None = None,
    ) -> None:
        self.episodes = ProjectEpisodes(store, settings, beats=beats_per_episode,
                                        length=episode_length)
        self.store = store
        self.memory = memory
        self.router = router
        self.cliches = cliches
        self.settings = settings
        self.prompts = prompts or PromptLibrary()
        self.context_tokens = context_tokens
        self.trope_tokens = trope_tokens
        self.context_builder = OnePackPerBeat(context_builder or default_context,
                                              lambda: self.info.language)
        self.concurrent_extraction = concurrent_extraction
        self.combined_extraction, self._prose_words = combined_extraction, prose_words
        info = store.info()
        self.style = style or WriterStyle.open(
            store.directory, info.name, info.language, data_dir=settings.data_dir,
            embeddings=getattr(memory, "embeddings", None),
        )
        self.prose_writer = prose_writer or ProseWriter(
            store, memory, router, prompts=self.prompts, context_builder=self.context_builder,
            prose_words=prose_words or self.episodes.current().per_beat,
            context_tokens=context_tokens, prose_context_tokens=prose_context_tokens,
            style=self.style,
        )
        # On a shared database another process may write this project between two of our
        # steps: the step lock tells us, and we reload the memory before the step runs.
        self.store.listen(self.catch_up)
        self.reconcile()

    # ---------------------------------------------------------------------------- reading
    @property
    def info(self) -> ProjectInfo:
        return self.store.info()

    def plot(self) -> PlotRecord | None:
        return self.store.plot()

    def require_plot(self) -> PlotRecord:
        return require_plot(self.store)

    def beats(self, episode: int | None = None) -> list[BeatRecord]:
        """Drafts and accepted beats in story order (rejected ones are history)."""
        return [b for b in self.store.beats(episode=episode) if b.status != "rejected"]

    def next_position(self) -> tuple[int, int]:
        """(episode, index) of the beat after the last accepted one; after an imported
        episode (whole as the writer wrote it, however many scenes), the next episode's first."""
        last = self.store.last_accepted()
        if last is None:
            return (1, 1)
        if last.imported or last.index >= self.episodes.current().beats:
            return (last.episode + 1, 1)
        return (last.episode, last.index + 1)

    def current_draft(self) -> BeatRecord | None:
        return self.store.draft_at(*self.next_position())

    def _genre(self) -> str:
        return story_genre(self.store, prompt_words(self.info.language).genre)

    # ------------------------------------------------------------------------------- plan
    def plan(self, *, force: bool = False, progress: Progress | None = None) -> PlotRecord:
        """Draft the plot from the project's keywords with fitting clichés in the prompt.

        Replacing an existing plot needs ``force`` and is refused once beats were accepted.
        The plot's main characters and settings become the first memories.
        """
        say = progress or _quiet
        accepting.recover(self.store, self.memory)
        existing = self.store.plot()
        if existing is not None and not force:
            return existing
        if existing is not None and self.store.count_beats("accepted"):
            raise InvalidInputError("error.plot.accepted_beats")
        info = self.info
        say(Text("progress.cliches", keywords=", ".join(info.keywords)))
        tropes = plot_tropes(
            self.cliches, info.keywords, info.genre, max_tokens=self.trope_tokens
        )
        messages = self.prompts.render(
            "plot",
            info.language,
            genre=info.genre or "-",
            keywords=", ".join(info.keywords),
            tropes=tropes or "-",
        )
        say(Text("progress.plot"))
        plot = self.router.structured("planner", NovelPlot, messages)
        # The writer's genre and keywords are theirs: the model's never replace them.
        plot = plot.model_copy(update={
            "genre": info.genre or plot.genre, "keywords": info.keywords[:8] or plot.keywords,
        })
        checkpoint("plot:planned")
        self.store.log_step("planning")  # recover() takes back seeds of an unsaved plot
        ids = extraction.seed_plot(
            self.memory, plot, old_ids=existing.memory_ids if existing else []
        )
        checkpoint("plot:memory-seeded")
        self.store.save_plot(plot, tropes=tropes, memory_ids=ids)
        return self.require_plot()

    def update_plot(self, plot: NovelPlot, *, expected_version: int | None = None) -> PlotRecord:
        """Store a writer's edit of the plot (or a plot written by hand before any was
        generated); its characters and settings are re-seeded."""
        if self.store.plot() is None and expected_version is None:
            ids = extraction.seed_plot(self.memory, plot, old_ids=[])
            self.store.save_plot(plot, memory_ids=ids, expected_version=0, step="plot-edit")
            return self.require_plot()
        old = self.require_plot()
        check_version(Text("thing.plot"), old.version, expected_version)
        self.store.log_step("planning")
        ids = extraction.seed_plot(self.memory, plot, old_ids=old.memory_ids)
        self.store.save_plot(
            plot, tropes=old.tropes, memory_ids=ids, expected_version=old.version,
            step="plot-edit",
        )
        return self.require_plot()

    # ------------------------------------------------------------------------------ beats
    def next_beat(self, instruction: str = "", *, progress: Progress | None = None) -> BeatRecord:
        """The draft at the next position: the existing one, or a newly designed one."""
        accepting.recover(self.store, self.memory)
        return self._next_beat(instruction, progress)

    def _next_beat(self, instruction: str, progress: Progress | None) -> BeatRecord:
        draft = self.current_draft()
        if draft is not None:
            return draft
        episode, index = self.next_position()
        beat, profiles, context = self._design(episode, index, instruction, progress or _quiet)
        if index == 1:
            record = self.require_plot()
            self.store.set_episode_title(episode, record.plot.episode_plan(episode)[:80])
        stored = self.store.add_draft(beat, new_characters=profiles, instruction=instruction)
        accepting.keep_context(self.store, stored.id, context)
        self._drafted_beat(stored)
        return stored

    def plan_episode(
        self, instruction: str = "", *, progress: Progress | None = None
    ) -> list[BeatRecord]:
        """"Plan this episode": design every beat left in the current episode, as drafts.

        A planner that declares larger structured replies designs them in one call
        (:mod:`aizac.writer.episode_design`); the small local model gets one call per beat. The
        writer still sees, edits and accepts each draft. The one call also says what each
        beat adds to memory (kept with the draft): a draft accepted as designed commits that,
        with no extraction call; one the writer changed is extracted at its accept. A draft
        already at one of these positions is designed again, keeping the fields the writer
        wrote (its :attr:`~BeatRecord.written` ones), as :meth:`regenerate`
        does. Returns the drafts in story order.
        """
        from aizac.writer import episode_design
        from aizac.writer.locks import locked_values

        say = progress or _quiet
        accepting.recover(self.store, self.memory)
        episode, first = self.next_position()
        indices = list(range(first, self.episodes.current().beats + 1))
        old = {i: self.store.draft_at(episode, i) for i in indices}
        locked = {i: locked_values(d.beat, d.written) for i, d in old.items()
                  if d is not None and d.written}
        span = {"first": f"{episode}-{first}", "last": f"{episode}-{indices[-1]}"}
        together = len(indices) > 1 and episode_design.designs_episodes(self)
        designed: dict[int, Designed] = {}
        # the design says what each beat adds to memory too: a beat accepted as designed
        # needs no extraction call (issue 43); one the writer changes is extracted
        memories: dict[int, extraction.Extracted] = {}
        if together:
            say(Text("progress.plan_episode", **span))
            designed = episode_design.design_episode(self, episode, indices, instruction,
                                                     locked=locked,
                                                     memories=memories).designs()
        for index in indices:  # every design first: a cancel stores none of them
            if index not in designed:
                designed[index] = self._design(episode, index, instruction, say,
                                               locked.get(index))
        out = []
        for index in indices:
            beat, profiles, context = designed[index]
            draft = old[index]
            if draft is None:
                stored = self.store.add_draft(beat, new_characters=profiles,
                                              instruction=instruction)
            else:
                stored = self.store.update_draft(
                    draft.id, beat, expected_version=draft.version,
                    new_characters=profiles, instruction=instruction, step="regenerate",
                    written=list(locked.get(index, {})),
                )
            accepting.keep_context(self.store, stored.id, context)
            accepting.keep_planned_memory(self.store, stored.id, stored.beat,
                                          memories.get(index))
            self._drafted_beat(stored)
            out.append(stored)
        if first == 1:
            plot = self.require_plot().plot
            self.store.set_episode_title(episode, plot.episode_plan(episode)[:80])
        say(Text("progress.planned_episode", **span))
        return out

    def _drafted_beat(self, record: BeatRecord) -> None:
        self.style.drafted(record.id, "beat", beat_text(record.beat), episode=record.episode,
                           index=record.index)

    def regenerate(
        self, beat_id: int, instruction: str = "", *, expected_version: int | None = None,
        progress: Progress | None = None, locked: Sequence[str] | None = None,
    ) -> BeatRecord:
        """Design the draft ``beat_id`` again (optionally following ``instruction``).

        ``locked``: the fields that keep the writer's values (:data:`~aizac.writer.locks.
        LOCKABLE` names); ``None``: the fields the writer wrote (:attr:`BeatRecord.written`),
        so an edit survives every regeneration until the writer unlocks it. The locked fields
        are the new draft's written ones."""
        from aizac.writer.locks import locked_values

        accepting.recover(self.store, self.memory)
        old = self._draft(beat_id, expected_version)
        fields = list(old.written if locked is None else locked)
        values = locked_values(old.beat, fields)
        beat, profiles, context = self._design(
            old.episode, old.index, instruction, progress or _quiet, values
        )
        stored = self.store.update_draft(
            beat_id, beat, expected_version=old.version, new_characters=profiles,
            instruction=instruction, step="regenerate", written=list(values),
        )
        accepting.keep_context(self.store, beat_id, context)  # replaces the old one
        self._drafted_beat(stored)
        return stored

    def edit_beat(
        self, beat_id: int, beat: NovelBeat | BeatDesign | dict[str, Any], *,
        expected_version: int | None = None, written: Sequence[str] | None = None,
    ) -> BeatRecord:
        """Replace a draft's fields with the writer's edit (validated like model output).

        The fields the edit changes join the draft's written ones (``written``: exactly these
        instead, the writer's own choice of locks)."""
        from aizac.writer.locks import changed_fields, check_fields

        old = self._draft(beat_id, expected_version)
        try:
            data = beat.model_dump() if not isinstance(beat, dict) else dict(beat)
            data.update(episode=old.episode, index=old.index)
            new = NovelBeat.model_validate(data)
        except ValueError as e:
            raise InvalidInputError("error.beat.edit_invalid", cause=str(e)) from e
        mine = check_fields(written if written is not None
                            else [*old.written, *changed_fields(old.beat, new)])
        keep = [p for p in old.new_characters if p.name in new.characters]
        stored = self.store.update_draft(
            beat_id, new, expected_version=old.version, new_characters=keep, written=mine
        )
        if new != old.beat:
            self.style.edited(beat_id, "beat", beat_text(new), episode=new.episode,
                              index=new.index)
        return stored

    def set_written(
        self, beat_id: int, fields: Sequence[str], *, expected_version: int | None = None
    ) -> BeatRecord:
        """The writer locks (or unlocks) a draft's fields: exactly ``fields`` are theirs."""
        return self.edit_beat(beat_id, self._draft(beat_id, expected_version).beat,
                              expected_version=expected_version, written=fields)

    def reject(self, beat_id: int, *, expected_version: int | None = None) -> BeatRecord:
        """Discard a draft; memory is not touched."""
        old = self._draft(beat_id, expected_version)
        return self.store.set_status(beat_id, "rejected", expected_version=old.version)

    def _draft(self, beat_id: int, expected_version: int | None) -> BeatRecord:
        return require_draft(self.store.beat(beat_id), expected_version)

    def design(
        self, episode: int, index: int, instruction: str = ""
    ) -> tuple[NovelBeat, list[Any]]:
        """Design the beat at ``(episode, index)`` without storing it (the autopilot's plan)."""
        designed = self._design(episode, index, instruction, _quiet)
        return designed.beat, designed.profiles

    def _design(
        self, episode: int, index: int, instruction: str, say: Progress,
        locked: dict[str, Any] | None = None,
    ) -> Designed:
        from aizac.writer.locks import apply_locks
        prompt = self.design_prompt(episode, index, instruction, locked)
        say(Text("progress.design", where=f"{episode}-{index}"))
        design, given = combined.design_beat(self.router, prompt.messages,
                                             known=self.memory.characters(),
                                             with_cast=self.combined_extraction, fixed=locked)
        beat = apply_locks(NovelBeat.place(design, episode, index), locked or {})
        profiles = self._new_characters(beat, given, say)
        # a cancelled design stops here, before storing
        say(Text("progress.designed", where=f"{episode}-{index}"))
        return Designed(beat, profiles, prompt.context)

    def design_prompt(
        self, episode: int, index: int, instruction: str = "",
        locked: dict[str, Any] | None = None, kind: str = "beat", request: str | None = None,
        **values: Any,
    ) -> DesignPrompt:
        """The planner's prompt for a beat (``episode_beats``: an episode's beats at once;
        ``request``: the ``$instruction`` block when the caller built it, as for the fixed
        fields of several beats), with the context pack it holds
        (:func:`~aizac.writer.planning.planner_context`)."""
        from aizac.writer.locks import render_request
        from aizac.writer.planning import planner_context

        plot = self.require_plot().plot
        act = plot.acts[plot.act_index(episode)]
        plan_line = plot.episode_plan(episode)
        last = self.store.last_accepted()
        # the episode's cast with the protagonist, and the overdue threads (issue 43)
        context = planner_context(self, episode, plan_line=plan_line, act_goal=act.goal,
                                  instruction=instruction)
        info = self.info
        words = prompt_words(info.language)
        messages = self.prompts.render(
            kind,
            info.language,
            genre=self._genre(),
            stage=words.stage(act.stage),
            act_goal=act.goal,
            episode=episode,
            index=index,
            episode_plan=plan_line,
            context=context or "-",
            suggestions=suggestion_lines(
                self.cliches, last.beat.render() if last else plan_line, act.stage
            ),
            instruction=request if request is not None
            else render_request(instruction, locked or {}, words),
            **values,
        )
        return DesignPrompt(messages, context)

    def cast_profiles(self, beat: NovelBeat, pending: list[Any],
                      progress: Progress | None = None) -> list[Any]:
        """``pending`` (profiles a reply already gave) and a profile for every other name of
        ``beat``'s cast the memory does not know (one profile call each); what an accept and
        the reading of an imported scene commit with the beat."""
        return self._new_characters(beat, pending, progress or _quiet)

    def _new_characters(self, beat: NovelBeat, pending: list[Any], say: Progress) -> list[Any]:
        known = {k: list(v) for k, v in self.memory.characters().items()}
        for p in pending:
            known.setdefault(p.name, list(p.aliases))
        missing = dyn.unknown_names(beat.characters, known)
        # one the story holds but whose memories faded is known: never profiled over
        held = [n for n in missing if extraction.held_character(self.memory, n)]
        if held:
            known.update((n, []) for n in held)
            missing = [n for n in missing if n not in held]
        if not missing:
            return list(pending)
        say(Text("progress.new_characters", names=", ".join(missing)))
        created = dyn.create_profiles(
            self.router, beat, known, story_so_far=self._short_term(),
            genre=self._genre(), language=self.info.language, prompts=self.prompts, say=say,
        )
        return [*pending, *created]

    def suggest(self, beat_id: int | None = None, k: int = 5) -> list[Any]:
        """Next-beat recommendations from the cliché database."""
        if self.cliches is None:
            return []
        plot = self.require_plot().plot
        if beat_id is not None:
            record = self.store.beat(beat_id)
            text, episode = record.beat.render(), record.episode
        else:
            last = self.store.last_accepted()
            episode = self.next_position()[0]
            text = last.beat.render() if last else plot.episode_plan(episode)
        stage = plot.acts[plot.act_index(episode)].stage
        return list(self.cliches.suggest_next(text, stage, k=k))

    def _short_term(self) -> str:
        return self.memory.short_term.text()

    # ---------------------------------------------------------------- prose, export, ask
    def write_prose(self, beat_id: int | None = None, *, instruction: str = "") -> Iterator[str]:
        """Stream an accepted beat's prose; see :meth:`ProseWriter.write_prose`."""
        self._recover()
        if self._prose_words is None:  # the project's episode length may have changed
            self.prose_writer.prose_words = self.episodes.current().per_beat
        return self.prose_writer.write_prose(beat_id, instruction=instruction)

    def write_episode(self, episode: int, *, instruction: str = "") -> Iterator[str]:
        """Stream the prose of ``episode``'s accepted beats that have none, in one writer call
        when the writer declares it can; see :meth:`ProseWriter.write_episode`."""
        from aizac.writer.episode_prose import writes_episodes

        self._recover()
        if self._prose_words is None:
            self.prose_writer.prose_words = self.episodes.current().per_beat
        return self.prose_writer.write_episode(episode, instruction=instruction,
                                               together=writes_episodes(self))

    def save_prose(
        self, beat_id: int, prose: str, *, expected_version: int | None = None
    ) -> BeatRecord:
        """Store the writer's edit of a beat's prose."""
        return self.prose_writer.save_prose(beat_id, prose, expected_version=expected_version)

    def manuscript(self, first: int | None = None, last: int | None = None) -> Any:
        """The accepted prose as an export :class:`~aizac.export.manuscript.Manuscript`."""
        return self.prose_writer.manuscript(first, last)

    def export(
        self, fmt: str, directory: Path, name: str | None = None, *,
        first: int | None = None, last: int | None = None,
    ) -> Path:
        """Write the accepted prose (optionally episodes ``first``..``last``) as txt/md/epub."""
        return self.prose_writer.export(fmt, directory, name, first=first, last=last)

    def ask(self, question: str, k: int = 5) -> list[Any]:
        """Self-query memory: documents answering ``question`` (filters built by a model)."""
        from aizac.retrieval.self_query import build_self_query_retriever

        question = check_question(question)

        memory: Any = self.memory
        retriever = build_self_query_retriever(memory, self.router.model("extractor"), k=k)
        return list(retriever.invoke(question))[:k]

    # ----------------------------------------------------------------------------- accept
    def accept(
        self, beat_id: int, *, expected_version: int | None = None,
        progress: Progress | None = None,
    ) -> BeatRecord:
        """Make a draft canon: extract and commit candidate memories, summarise, advance.

        One unit of work (:func:`accepting.commit_accept`): a failure after the memory commit
        is undone before the error is raised; what a killed accept left is finished by the
        recovery check that starts every write operation.
        """
        say = progress or _quiet
        accepting.recover(self.store, self.memory)
        record = self._draft(beat_id, expected_version)
        if (record.episode, record.index) != self.next_position():
            raise InvalidInputError("error.beat.not_next", id=beat_id)
        profiles = self._new_characters(record.beat, record.new_characters, say)
        findings = self.check_dialogue(record.beat).findings
        if findings:  # shown to the writer before the acceptance; they decide, not a rule
            cited = [[f.kind, f.memory_id, f.quote] for f in findings]
            self.store.log_step("dialogue-check", {"id": record.id, "findings": cited})
        found = accepting.planned_memory(self.store, record.id, record.beat)
        if found is None:  # not designed with its memory, or changed since
            say(Text("progress.extract", where=f"{record.episode}-{record.index}"))
            found = run_sync(  # one model loop per process
                combined.extract_beat(
                    self.router, record.beat, offer=self.offer_for(record.beat, profiles),
                    language=self.info.language, prompts=self.prompts,
                    concurrent_calls=self.concurrent_extraction,
                    combined=self.combined_extraction,
                )
            )
        checkpoint("accept:extracted")
        return self.commit_extracted(record, found, profiles)

    def place_planned(
        self, beat: NovelBeat, cast: Sequence[CharacterProfile], *, instruction: str,
        written: list[str] | None = None,
    ) -> BeatRecord:
        """The draft of a beat designed elsewhere (the autopilot's plan) at its position: the
        stored draft there, made to hold ``beat`` if it differs, or a new one."""
        if (beat.episode, beat.index) != self.next_position():
            raise ConflictError("error.autopilot.not_next", where=f"{beat.episode}-{beat.index}",
                                story=str(self.next_position()))
        record = self.store.draft_at(beat.episode, beat.index)
        if record is None:
            return self.store.add_draft(beat, new_characters=list(cast), instruction=instruction,
                                        written=written)
        if record.beat != beat or (written is not None and record.written != written):
            return self.store.update_draft(record.id, beat, expected_version=record.version,
                                           new_characters=list(cast), instruction=instruction,
                                           written=written)
        return record

    def commit_extracted(
        self, record: BeatRecord, found: extraction.Extracted,
        profiles: Sequence[CharacterProfile], *, held_voices: Collection[str] = (),
    ) -> BeatRecord:
        """The second half of an accept, for an extraction already made (by :meth:`accept`
        or by the autopilot's drafting): stage ``found`` against the memory and commit it with
        the summary, the turn and the beat's status as one unit of work
        (:func:`accepting.commit_accept`); the memories the design used are reinforced.
        ``held_voices``: pair voices this commit must not supersede."""
        batch, future = extraction.stage(
            self.memory, found, record.beat, new_characters=list(profiles),
            language=self.info.language, held_voices=held_voices,
        )
        accepting.reinforce_with_commit(self.store, batch, record.id)
        return accepting.commit_accept(
            self.store, self.memory, record, batch, future, found.summary
        )

    def present_cast(self) -> list[str]:
        """Who is on stage when the next beat is designed: the last accepted beat's cast (the
        plot's first character before any, or after an imported scene not read yet)."""
        last = self.store.last_accepted()
        if last is not None and last.beat.characters != [UNREAD_CAST]:
            return list(last.beat.characters)
        plot = self.require_plot().plot
        return [plot.characters[0].name]

    def offer_for(self, beat: NovelBeat, profiles: Sequence[CharacterProfile] = ()) -> Offer:
        """What the extraction of ``beat`` is shown of memory, with the ids it refers by (the
        characters it introduces, ``profiles``, included)."""
        words = prompt_words(self.info.language)
        return self.memory.offer(list(beat.characters), beat.render(labels=words.labels),
                                 newcomers=newcomers(profiles))

    def check_dialogue(self, beat: NovelBeat | int, prose: str | None = None) -> Any:
        """The dialogue findings of a beat (a beat or its id) and optionally its prose, against
        the memory's voices (:func:`aizac.dialogue.check_dialogue`; nothing is written)."""
        from aizac.dialogue import check_dialogue

        if isinstance(beat, int):
            record = self.store.beat(beat)
            beat, prose = record.beat, prose if prose is not None else record.prose
        plan = self.prose_writer.plan_for(beat)
        return check_dialogue(
            self.memory, [beat], {beat.index: prose} if prose else None,
            language=self.info.language, plans={beat.index: plan} if plan else None,
        )

    def unaccept(self, beat_id: int, *, expected_version: int | None = None) -> BeatRecord:
        """Undo the acceptance of the last accepted beat: its memory commit is reverted and
        it becomes a draft again (the web app's undo)."""
        accepting.recover(self.store, self.memory)
        record = self.store.beat(beat_id)
        last = self.store.last_accepted()
        if record.status != "accepted" or last is None or last.id != beat_id:
            raise InvalidInputError("error.beat.not_last", id=beat_id)
        check_version(beat_thing(record.episode, record.index), record.version,
                      expected_version)
        self.memory.undo_commit(record.memory_ids)
        self.memory.short_term.pop()
        self.memory.set_turn(max(0, int(self.memory.turn) - 1))
        return self.store.set_status(
            beat_id, "draft", expected_version=record.version,
            memory_ids=[], summary="", step="unaccept",
        )

    def reconcile(self) -> None:
        """Finish or undo what a killed or failed write left half done (see
        :func:`accepting.recover`), under the project's lock: for a step that runs outside it
        (opening the project, a prose stream, the autopilot's next episode); a write under the
        lock runs :func:`accepting.recover` itself first."""
        with self.store.lock():
            accepting.recover(self.store, self.memory)

    _recover = reconcile

    def catch_up(self, full: bool) -> None:
        """Another process wrote the project: reload the memory's turn and summaries (and,
        under the step lock, ``full``: finish what a killed process left half written);
        forget the context pack kept for the next prose call."""
        if full:
            self.memory.refresh()
        else:
            self.memory.reload()
        self.context_builder.forget()


def _quiet(_: Text) -> None:
    return None


def beat_text(beat: NovelBeat) -> str:
    """A beat's own words as style evidence: its events and its lines."""
    return "\n".join([*beat.events, *(f'{d.speaker}: "{d.line}"' for d in beat.dialogue)])
