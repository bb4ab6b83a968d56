"""The output half of the writer: prose for accepted beats and the manuscript built from it.

:class:`ProseWriter` is a collaborator of :class:`~aizac.writer.agent.WriterAgent`, which
delegates its prose and export methods to it.
"""

from __future__ import annotations

import re
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aizac.errors import AizacError, IncompleteReplyError, InvalidInputError, NotFoundError
from aizac.llm.profiles import profile_of
from aizac.storage.killpoints import checkpoint
from aizac.tokens import count_tokens
from aizac.writer.accepting import context_ids, reinforce
from aizac.writer.combined import combined_extraction_ok
from aizac.writer.context import (
    ContextBuilder,
    default_context,
    repeated_line_start,
    repetition_start,
    scene_brief,
    tail_tokens,
)
from aizac.writer.episode_prose import scenes_block, split_scenes
from aizac.writer.ports import Memory, Router
from aizac.writer.project import BeatRecord, ProjectStore
from aizac.writer.prompt_words import instruction_line, prompt_words
from aizac.writer.prompts import PromptLibrary
from aizac.writer.rules import beat_thing, check_accepted, story_genre

if TYPE_CHECKING:
    from aizac.style import WriterStyle

LOOP_WINDOW = 800
"""Characters at the end of streamed prose checked for a degenerate loop."""
PROSE_TOKENS_PER_WORD = 3
"""Prose stops at the first paragraph end past ``prose_words`` x this many tokens (small
models ignore the requested length and run to their token limit)."""


PREVIOUS_TOKENS = 300
"""Tokens of the previous beat's prose shown to the prose writer."""
STYLE_SHARE = 0.25
VOICE_SHARE = 0.2
"""Shares of the prose prompt's notes budget the writer's style (profile and passages) and the
speakers' voices with the dialogue plan may take; what they leave goes to the context pack, so
the notes never exceed the budget they had before."""
SMALL_CONTEXT_TOKENS = 250
SMALL_PREVIOUS_TOKENS = 120
"""Prose prompt budgets when the writer is the embedded small model."""
SENTENCE_END = re.compile(
    r"[.!?\u2026][\"'\u201d\u2019\u300d\u300f)\]]*(?=\s|$)"  # a space or the end follows
    r"|[\u3002\uff01\uff1f][\"'\u201d\u2019\u300d\u300f)\]]*"  # full-width: no space follows
)
"""A sentence's end in en/ko/zh prose: ``. ! ? … 。 ！ ？`` and any closing quotes after it."""


def prose_stop(text: str, chunk: str, prose_words: int) -> str | None:
    """Where a prose stream ends once ``chunk`` has joined ``text``: the text to keep, or None.

    A degenerate loop is cut where it starts; when a paragraph ends, a repeated paragraph is
    dropped and prose far past the requested length stops at that paragraph.
    """
    window = text[-LOOP_WINDOW:]
    loop = repetition_start(window)
    if loop is not None:
        return text[: len(text) - len(window) + loop]
    if "\n" in chunk:
        done = text[: text.rfind("\n") + 1]
        again = repeated_line_start(done)
        if again is not None:
            return done[:again]
        if count_tokens(done) > prose_words * PROSE_TOKENS_PER_WORD:
            return done
    return None


def whole_sentences(text: str) -> str:
    """``text`` up to the end of its last finished sentence ("" if none has ended)."""
    ends = [m.end() for m in SENTENCE_END.finditer(text)]
    return text[: ends[-1]] if ends else ""


def _without_last_scene(text: str) -> str:
    """``text`` up to its last scene heading: the scene after it was cut."""
    from aizac.writer.episode_prose import MARK

    starts = [m.start() for m in MARK.finditer(text)]
    return text[: starts[-1]] if starts else ""


@dataclass(frozen=True)
class ProseNotes:
    """What the notes of the last prose prompt cost, in estimated tokens."""

    style: int = 0
    dialogue: int = 0
    planned: bool = False
    context: int = 0


def small_local_writer(router: Router) -> bool:
    """Whether the writer role's first model is the small embedded model (its declared profile)."""
    try:
        model: Any = router.model("writer")
    except (AizacError, KeyError, AttributeError):
        return False
    return profile_of(model).small_local


class ProseWriter:
    """Prose of accepted beats, the writer's prose edits and the manuscript export.

    Args:
        store: the project's SQLite store.
        memory: the project's memory (read for the context pack).
        router: role -> chat model; prose streams from the ``writer`` role.
        prompts: prompt templates.
        context_builder: builds the context text (default: :mod:`aizac.retrieval`).
        prose_words: requested length of a beat's prose.
        context_tokens: context budget of prose prompts when ``prose_context_tokens`` is unset
            and the writer is not the embedded small model.
        prose_context_tokens: context budget of prose prompts (overrides the above).
    """

    def __init__(
        self,
        store: ProjectStore,
        memory: Memory,
        router: Router,
        *,
        prompts: PromptLibrary | None = None,
        context_builder: ContextBuilder | None = None,
        prose_words: int = 300,
        context_tokens: int = 900,
        prose_context_tokens: int | None = None,
        style: WriterStyle | None = None,
    ) -> None:
        self.store = store
        self.memory = memory
        self.router = router
        self.prompts = prompts or PromptLibrary()
        self.context_builder = context_builder or default_context
        self.prose_words = prose_words
        self.context_tokens = context_tokens
        self.prose_context_tokens = prose_context_tokens
        self.style = style
        self._plans: dict[str, Any] = {}
        self.last_notes = ProseNotes()

    def _prose_budgets(self) -> tuple[int, int]:
        """Token budgets of the prose prompt's notes and previous-prose tail.

        ``prose_context_tokens`` if set; otherwise the full context budget, or a small one when
        the writer role is the embedded small model (long notes make it copy them instead of
        writing the scene)."""
        if self.prose_context_tokens is not None:
            return self.prose_context_tokens, PREVIOUS_TOKENS
        if small_local_writer(self.router):
            return min(self.context_tokens, SMALL_CONTEXT_TOKENS), SMALL_PREVIOUS_TOKENS
        return self.context_tokens, PREVIOUS_TOKENS

    # ------------------------------------------------------------------------------ prose
    def write_prose(
        self, beat_id: int | None = None, *, instruction: str = ""
    ) -> Iterator[str]:
        """Stream the prose of an accepted beat (default: the last accepted one).

        The prose is saved when the stream completes; an interrupted stream saves nothing.
        A degenerate loop, a repeated paragraph or prose far past the requested length ends
        the stream; what is saved is trimmed there.
        """
        record = self._prose_target(beat_id)
        beat = record.beat
        last = self.store.last_accepted(before=(beat.episode, beat.index))
        previous = ""
        if last is not None:
            previous = (last.prose or last.summary) or ""
        messages, context = self.prose_messages(beat, previous, instruction)
        text = ""
        stream = self.router.stream("writer", messages)
        try:
            for chunk in stream:
                text += chunk
                yield chunk
                checkpoint("write:streaming")
                stop = prose_stop(text, chunk, self.prose_words)
                if stop is not None:
                    text = stop
                    break
        except IncompleteReplyError as error:
            text = self._kept_at_the_limit(text, error)
        finally:
            stream.close()
        text = text.strip()
        if not text:
            raise AizacError("error.prose.empty")
        checkpoint("write:streamed")
        self.store.save_prose(record.id, text, expected_version=record.version)
        if self.style is not None:  # the model's draft: what the writer's edits are against
            self.style.drafted(record.id, "prose", text, episode=beat.episode, index=beat.index)
        reinforce(self.memory, context_ids(context))  # the prose that used them is stored

    def prose_messages(self, beat: Any, previous: str,
                       instruction: str = "") -> tuple[list[Any], str]:
        """The prose prompt of ``beat`` after ``previous`` (its prose or summary) and the
        context text it used (the co-writer's and the autopilot's prose steps share it).

        The notes budget is shared: the speakers' voices and the dialogue plan (a beat with
        three or more speakers is planned first, :mod:`aizac.dialogue.plan`) and the writer's
        style (profile and nearest passages) take what they need of their shares, and the
        context pack gets the rest. What each cost is kept in :attr:`last_notes`."""
        language = self.store.info().language
        context_budget, previous_budget = self._prose_budgets()
        scene = scene_brief(beat)
        dialogue, plan = self._dialogue_notes(beat, language, scene,
                                              round(context_budget * VOICE_SHARE))
        style = ""
        if self.style is not None:
            block = self.style.notes(scene, round(context_budget * STYLE_SHARE))
            style = block.text
        extra = count_tokens(dialogue) + count_tokens(style)
        context = self.context_builder(
            self.memory, characters=beat.characters, query=" ".join(beat.events), act_goal=None,
            location=beat.location, budget=context_budget - extra,
        )
        self.last_notes = ProseNotes(count_tokens(style), count_tokens(dialogue),
                                     plan is not None, count_tokens(str(context)))
        messages = self.prompts.render(
            "prose",
            language,
            beat=beat.render(position=False, labels=prompt_words(language).labels),
            scene=scene,
            dialogue=f"\n{dialogue}\n" if dialogue else "",
            **self._shared_values(language, context, tail_tokens(previous, previous_budget)
                                  if previous else "", instruction, style),
        )
        return messages, context

    def _shared_values(self, language: str, context: str, previous: str, instruction: str,
                       style: str) -> dict[str, Any]:
        """The placeholders a beat's and an episode's prose prompt fill alike."""
        words = prompt_words(language)
        return {
            "genre": story_genre(self.store, words.genre),
            "context": context or "-",
            "previous": previous or "-",
            "length": self.prose_words,
            "instruction": instruction_line(instruction, words),
            "style": f"\n{style}\n" if style else "",
        }

    def episode_messages(self, beats: Sequence[Any], previous: str,
                         instruction: str = "") -> tuple[list[Any], str]:
        """The prose prompt of an episode's ``beats`` written in one call
        (:mod:`aizac.writer.episode_prose`) and the context text it used.

        The same budgets as one beat's prompt, spent once: the style notes and the context
        pack are drawn for the whole episode (its cast, places and events); each scene keeps
        its brief and its share of the dialogue notes."""
        language = self.store.info().language
        context_budget, previous_budget = self._prose_budgets()
        briefs = [scene_brief(beat) for beat in beats]
        share = round(context_budget * VOICE_SHARE / max(1, len(beats)))
        notes = [self._dialogue_notes(beat, language, brief, share)
                 for beat, brief in zip(beats, briefs, strict=True)]
        style = ""
        if self.style is not None:
            style = self.style.notes("\n".join(briefs), round(context_budget * STYLE_SHARE)).text
        dialogue = sum(count_tokens(text) for text, _ in notes)
        cast = list(dict.fromkeys(name for beat in beats for name in beat.characters))
        places = list(dict.fromkeys(beat.location for beat in beats if beat.location))
        query = " ".join([*places[1:], *(event for beat in beats for event in beat.events)])
        context = self.context_builder(
            self.memory, characters=cast, query=query, act_goal=None,
            location=places[0] if places else "",
            budget=context_budget - dialogue - count_tokens(style),
        )
        self.last_notes = ProseNotes(count_tokens(style), dialogue,
                                     any(plan is not None for _, plan in notes),
                                     count_tokens(str(context)))
        messages = self.prompts.render(
            "prose_episode",
            language,
            scenes=scenes_block([(brief, text) for brief, (text, _) in zip(briefs, notes,
                                                                          strict=True)]),
            count=len(beats),
            **self._shared_values(language, context, tail_tokens(previous, previous_budget)
                                  if previous else "", instruction, style),
        )
        return messages, context

    def stream_episode(self, messages: list[Any]) -> Generator[str, None, str]:
        """The writer's reply to :meth:`episode_messages`, chunk by chunk;
        returns the text to keep (the prose guards of one beat, applied to each scene from its
        heading on, may end it earlier than the chunks went; a reply with no heading is one
        scene). A reply the token limit cut ends where it was cut (its finished scenes are
        kept; the cut one is written again on its own); a dropped stream raises."""
        from aizac.writer.episode_prose import MARK

        text = ""
        stream = self.router.stream("writer", messages)
        try:
            for chunk in stream:
                text += chunk
                yield chunk
                checkpoint("write:streaming")
                # a line repeated in two scenes is a refrain, not a loop: guard the scene
                start = max((m.end() for m in MARK.finditer(text)), default=0)
                stop = prose_stop(text[start:], chunk, self.prose_words)
                if stop is not None:
                    return text[:start] + stop
        except IncompleteReplyError as error:
            if error.reason != "length":
                raise
            return _without_last_scene(text)
        finally:
            stream.close()
        return text

    def write_episode(self, episode: int, *, instruction: str = "",
                      together: bool | None = None) -> Iterator[str]:
        """Stream the prose of ``episode``'s accepted beats that have none, in one call when
        the writer declares it can (:func:`~aizac.writer.episode_prose.writes_episodes`), and
        save each beat's prose as its scene is complete at the end of the stream. A scene the
        reply left out (or the token limit cut) is then written on its own, as
        :meth:`write_prose` does. An interrupted stream saves nothing of its own scenes."""
        records = [r for r in self.store.beats(episode=episode, status="accepted")
                   if not (r.prose or "").strip()]
        if not records:
            raise NotFoundError("error.prose.episode_written", episode=episode)
        missing = records
        if together is None:  # this writer forces neither way: as the writer model declares
            together = combined_extraction_ok(self.router, role="writer")
        if len(records) > 1 and together:
            last = self.store.last_accepted(before=(episode, records[0].index))
            previous = (last.prose or last.summary or "") if last is not None else ""
            messages, context = self.episode_messages([r.beat for r in records], previous,
                                                      instruction)
            text = yield from self.stream_episode(messages)
            checkpoint("write:streamed")
            scenes = split_scenes(text, len(records))
            for number, record in enumerate(records, start=1):
                if number in scenes:
                    self._save_drafted(record, scenes[number])
            missing = [r for n, r in enumerate(records, start=1) if n not in scenes]
            if len(missing) < len(records):
                reinforce(self.memory, context_ids(context))
        for record in missing:
            yield "\n\n"
            yield from self.write_prose(record.id, instruction=instruction)

    def _save_drafted(self, record: BeatRecord, text: str) -> None:
        """Save ``text`` as ``record``'s prose (the model's draft, for the style learner)."""
        beat = record.beat
        self.store.save_prose(record.id, text, expected_version=record.version)
        if self.style is not None:
            self.style.drafted(record.id, "prose", text, episode=beat.episode, index=beat.index)

    def _dialogue_notes(self, beat: Any, language: str, scene: str,
                        budget: int) -> tuple[str, Any]:
        """The speakers' voices and (three or more speakers) the dialogue plan, as prompt
        text within ``budget``; and the plan."""
        from aizac.dialogue import needs_plan, read_voices
        from aizac.dialogue.lines import beat_speakers
        from aizac.dialogue.prompt import dialogue_block, plan_lines, voice_lines

        speakers = beat_speakers(beat)
        if not speakers:
            return "", None
        canon = read_voices(self.memory, [*beat.characters, *speakers])
        voices = voice_lines(canon, speakers, language, beat.characters)
        plan = self.plan_for(beat, language, scene, voices) if needs_plan(beat) else None
        return dialogue_block(voices, plan_lines(plan, language), language, budget), plan

    def plan_for(self, beat: Any, language: str = "", scene: str = "",
                 voices: Any = ()) -> Any:
        """The dialogue plan of ``beat`` (planned once per design and process; ``None`` when
        the beat needs none or the planner gave no usable turn). Without ``language`` it only
        returns a plan already made."""
        from aizac.dialogue import needs_plan
        from aizac.dialogue.plan import plan_dialogue

        key = beat.model_dump_json()
        if key in self._plans or not language or not needs_plan(beat):
            return self._plans.get(key)
        plan = plan_dialogue(self.router, self.prompts, beat, language=language,
                             scene=scene or scene_brief(beat), voices="\n".join(voices))
        self._plans[key] = plan
        return plan

    def save_prose(
        self, beat_id: int, prose: str, *, expected_version: int | None = None
    ) -> BeatRecord:
        """Store the writer's edit of a beat's prose (style evidence: the writer's own text
        against the model's draft)."""
        record = self.store.save_prose(beat_id, prose, expected_version=expected_version)
        if self.style is not None:
            self.style.edited(beat_id, "prose", prose, episode=record.episode,
                              index=record.index)
        return record

    def _kept_at_the_limit(self, text: str, error: IncompleteReplyError) -> str:
        """The prose to keep of a stream that ``error`` ended, or ``error`` raised again.

        The embedded small model seldom ends a scene by itself: it writes until its token
        limit, so for it a length cut is the prose's usual end and its finished sentences are
        kept. Any other cut (a dropped stream, a real model's length cut) saves nothing.
        """
        if error.reason == "length" and small_local_writer(self.router):
            kept = whole_sentences(text)
            if kept.strip():
                return kept
        raise error

    def _prose_target(self, beat_id: int | None) -> BeatRecord:
        if beat_id is not None:
            record = self.store.beat(beat_id)
            check_accepted(beat_thing(record.episode, record.index), record.status)
            return record
        last = self.store.last_accepted()
        if last is None:
            raise NotFoundError("error.prose.no_accepted")
        return last

    # ----------------------------------------------------------------------------- export
    def manuscript(self, first: int | None = None, last: int | None = None) -> Any:
        """The accepted prose as an export :class:`~aizac.export.manuscript.Manuscript`, titled
        by the plot (by the project's name before there is one: an imported manuscript)."""
        from aizac.export.manuscript import EpisodeText, Manuscript

        plot = self.store.plot()
        titles = self.store.episode_titles()
        episodes: dict[int, list[str]] = {}
        for b in self.store.beats(status="accepted"):
            if b.prose and (first is None or b.episode >= first) and (
                last is None or b.episode <= last
            ):
                episodes.setdefault(b.episode, []).append(b.prose)
        if not episodes:
            raise InvalidInputError("error.prose.none_to_export")
        return Manuscript(
            title=plot.plot.title if plot is not None else self.store.info().name,
            identifier=self.store.book_id(),  # two novels of one title are two books
            language=self.store.info().language,  # type: ignore[arg-type]
            episodes=[
                EpisodeText(n, titles.get(n, ""), "\n\n".join(parts))
                for n, parts in sorted(episodes.items())
            ],
        )

    def export(
        self, fmt: str, directory: Path, name: str | None = None, *,
        first: int | None = None, last: int | None = None,
    ) -> Path:
        """Write the accepted prose (optionally episodes ``first``..``last``) as txt/md/epub."""
        from aizac.export.files import write_export

        path = write_export(self.manuscript(first, last), fmt, directory, name)
        self.store.log_step("export", {"format": fmt, "path": str(path)})
        return path
