"""Candidate memory from an accepted beat: four tags and a summary, extracted concurrently.

:func:`extract` runs the four extraction calls and the summary call at the same time
(``asyncio.gather`` over :func:`~aizac.llm.structured.agenerate_structured`); :func:`stage`
turns the results into one candidate batch that the caller commits atomically.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Collection, Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from aizac.dialogue.memory import stage_voices
from aizac.errors import AizacError
from aizac.llm.runtime import run_sync as run_sync  # one model loop per process
from aizac.memory import facts
from aizac.writer.checked import accepts_keyword
from aizac.writer.ports import Memory, Router
from aizac.writer.prompt_words import prompt_words
from aizac.writer.prompts import PromptLibrary
from aizac.writer.schemas import (
    AddressFact,
    BeatSummary,
    CharacterExtraction,
    CharacterProfile,
    NovelBeat,
    NovelPlot,
    RelationExtraction,
    SettingExtraction,
    StoryExtraction,
    VoiceFact,
)

T = TypeVar("T")


@dataclass
class Extracted:
    """What one beat adds to memory, before it is staged."""

    story: StoryExtraction = field(default_factory=StoryExtraction)
    characters: CharacterExtraction = field(default_factory=CharacterExtraction)
    relations: RelationExtraction = field(default_factory=RelationExtraction)
    settings: SettingExtraction = field(default_factory=SettingExtraction)
    summary: str = ""
    voices: list[VoiceFact] = field(default_factory=list)
    speech: list[AddressFact] = field(default_factory=list)


async def extract(
    router: Router,
    beat: NovelBeat,
    *,
    known: Sequence[str],
    language: str,
    prompts: PromptLibrary,
    concurrent_calls: bool = True,
) -> Extracted:
    """Ask the extractor role for the four tags and the summary (concurrently by default)."""
    text = beat.render(labels=prompt_words(language).labels)
    names = ", ".join(dict.fromkeys([*known, *beat.characters])) or "-"

    cast = list(dict.fromkeys([*known, *beat.characters]))
    named = {"names": cast} if accepts_keyword(router.astructured, "names") else {}

    def ask(kind: str, schema: type[Any]) -> Coroutine[Any, Any, Any]:
        messages = prompts.render(kind, language, beat=text, characters=names)
        return router.astructured("extractor", schema, messages, **named)

    calls = [
        ask("extract_Story", StoryExtraction),
        ask("extract_Character", CharacterExtraction),
        ask("extract_CharacterRelation", RelationExtraction),
        ask("extract_NovelSetting", SettingExtraction),
        ask("summary", BeatSummary),
    ]
    if concurrent_calls:
        results = await asyncio.gather(*calls)
    else:
        results = [await c for c in calls]
    story, chars, rels, sets, summary = results
    return Extracted(story, chars, rels, sets, summary.summary)


def name_key(name: str) -> str:
    """How names compare (the memory's one rule, :func:`aizac.memory.facts.name_key`)."""
    return facts.name_key(name)


def canonical_names(characters: Mapping[str, Sequence[str]]) -> dict[str, str]:
    """Every known name and alias (as :func:`name_key`) -> the character's canonical name."""
    out: dict[str, str] = {}
    for name, aliases in characters.items():
        out[name_key(name)] = name
        for alias in aliases:
            out.setdefault(name_key(alias), name)
    return out


def stage(
    memory: Any,
    extracted: Extracted,
    beat: NovelBeat,
    *,
    new_characters: Sequence[CharacterProfile] = (),
    language: str | None = None,
    held_voices: Collection[str] = (),
) -> tuple[Any, list[str]]:
    """A candidate batch holding the beat's new characters and extracted facts (not committed),
    and the ids its new memories will have once committed.

    Names are mapped to canonical names through aliases; a relation of a character with itself
    is dropped. Every fact goes through the memory's one rule (``batch.note``): a restated fact
    reinforces the memory that holds it, a changed state / relation / world rule supersedes the
    current one. Foreshadowing the extractor reports as paid off is closed. The voices the
    beat's lines show (speech level, form of address; :mod:`aizac.dialogue.memory`) and those
    the extractor reported are staged like relations (``language``: the project's, else read
    from the lines; ``held_voices``: pair voices a check flagged, kept as they are). The caller
    commits (atomic) or discards the batch.
    """
    where = {"chapter": beat.episode, "beat": beat.index}
    known = dict(memory.characters())
    for profile in new_characters:
        known.setdefault(profile.name, list(profile.aliases))
    canon = canonical_names(known)

    def name(raw: str) -> str:
        return canon.get(name_key(raw), " ".join(raw.split()))

    batch = memory.stage()
    ids: list[str] = []

    def keep(new_id: str | None) -> None:
        if new_id is not None and str(new_id) not in ids:
            ids.append(str(new_id))

    # a character's memory reads in the story's language (its goal label too, not English)
    labels = prompt_words(language).labels if language else None
    try:
        for p in new_characters:
            keep(batch.note(
                p.render(labels), "Character", character_name=p.name, aliases=list(p.aliases),
                keyword=p.role[:30], **where,
            ))
        for s in extracted.story.facts:
            keep(batch.note(s.text, "Story", keyword=s.keyword, foreshadow=s.foreshadow, **where))
        for c in extracted.characters.facts:
            aspect = None if c.aspect == facts.OTHER else c.aspect
            keep(batch.note(
                c.text, "Character", character_name=name(c.character_name), aspect=aspect,
                keyword=c.keyword, infer=True, **where,
            ))
        for r in extracted.relations.facts:
            a, b = name(r.character1), name(r.character2)
            if name_key(a) == name_key(b):
                continue
            keep(batch.note(
                r.text, "CharacterRelation", character1=a, character2=b, keyword=r.keyword,
                **where,
            ))
        for st in extracted.settings.facts:
            keep(batch.note(
                st.text, "NovelSetting", keyword=st.keyword,
                aspect=facts.RULE if st.rule and st.keyword else None, infer=True, **where,
            ))
        for voice_id in stage_voices(
            memory, batch, beat, language=language, where=where, hold=held_voices,
            reported_pairs=extracted.speech, reported_cards=extracted.voices,
        ):
            keep(voice_id)
        _pay_off(memory, batch, extracted, beat, where)
    except BaseException:
        batch.discard()
        raise
    return batch, ids


def _pay_off(
    memory: Any, batch: Any, extracted: Extracted, beat: NovelBeat, where: Mapping[str, int]
) -> None:
    """Close the open foreshadowing the beat pays off (each thread once): what the extractor
    reports as paid off, else what the beat's ``pays_off`` lines quote, else an event or a
    story fact of the beat that quotes a thread and says it came to light (an extractor that
    leaves ``paid_off`` out must not leave a paid-off thread open)."""
    from aizac.memory.inference import quoted_thread, sensed_thread

    lines = [(line, False) for line in beat.pays_off]
    lines += [(line, True) for line in [*beat.events, *(s.text for s in extracted.story.facts
                                                        if not s.foreshadow)]]
    if not extracted.story.paid_off and not lines:
        return
    threads = [(h.id, str(h.metadata.get("keyword", "")), h.text)
               for h in memory.open_foreshadowing()]

    def close(found: str | None) -> None:
        nonlocal threads
        if found is not None:
            batch.pay_off(found, chapter=where["chapter"], beat=where["beat"])
            threads = [t for t in threads if t[0] != found]

    for paid in extracted.story.paid_off:
        close(facts.match_payoff(paid.keyword, paid.text, threads))
    vectors = getattr(memory, "slot_vectors", None)
    for line, event in lines:
        if threads:
            found = quoted_thread(line, threads, need_reveal=event)
            if found is None and vectors is not None:  # no word says it: by meaning
                found = sensed_thread(line, threads, vectors, need_reveal=event)
            close(found)


def seed_plot(memory: Memory, plot: NovelPlot, *, old_ids: list[str]) -> list[str]:
    """Commit the plot's main characters and settings as the first memories (one batch) and
    forget the ones an earlier version of the plot seeded (``old_ids``); returns the new ids."""
    batch = memory.stage()
    try:
        for c in plot.characters:
            batch.remember(
                f"{c.name} — {c.role}. {c.profile}", "Character",
                character_name=c.name, keyword=c.role[:30], chapter=0,
            )
        for s in plot.settings:
            batch.remember(
                f"{s.name}: {s.description}", "NovelSetting", keyword=s.name[:30], chapter=0
            )
    except BaseException:
        batch.discard()
        raise
    ids = list(batch.commit())
    for old in old_ids:
        with contextlib.suppress(AizacError, KeyError):
            memory.forget(old)
    return ids
