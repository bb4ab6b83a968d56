"""Candidate memory from an accepted beat: four tags and a summary, extracted concurrently.

:func:`extract` runs the four extraction calls and the summary call at the same time
(``asyncio.gather`` over :func:`~aizac.llm.structured.agenerate_structured`); :func:`stage`
turns the results into one candidate batch that the caller commits atomically.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import unicodedata
from collections.abc import Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from aizac.errors import AizacError
from aizac.writer.ports import Memory, Router
from aizac.writer.prompts import PromptLibrary
from aizac.writer.schemas import (
    BeatSummary,
    CharacterExtraction,
    CharacterProfile,
    NovelBeat,
    NovelPlot,
    RelationExtraction,
    SettingExtraction,
    StoryExtraction,
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


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to completion from sync code, even if this thread already runs a loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()


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
    text = beat.render()
    names = ", ".join(dict.fromkeys([*known, *beat.characters])) or "-"

    def ask(kind: str, schema: type[Any]) -> Coroutine[Any, Any, Any]:
        messages = prompts.render(kind, language, beat=text, characters=names)
        return router.astructured("extractor", schema, messages)

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
    """How names compare: Unicode NFC, collapsed whitespace, case-folded (as memory does)."""
    return " ".join(unicodedata.normalize("NFC", name).split()).casefold()


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
) -> tuple[Any, list[str]]:
    """A candidate batch holding the beat's new characters and extracted facts (not committed),
    and the ids its memories will have once committed.

    Names are mapped to canonical names through aliases; a relation of a character with itself
    and duplicate facts are dropped; a pair's existing live relation is superseded, not
    duplicated. The caller commits (atomic) or discards the batch.
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
    try:
        for p in new_characters:
            ids.append(batch.remember(
                p.render(), "Character", character_name=p.name, aliases=list(p.aliases),
                keyword=p.role[:30], **where,
            ))
        seen: set[str] = set()
        for s in extracted.story.facts:
            if s.text not in seen:
                seen.add(s.text)
                ids.append(batch.remember(
                    s.text, "Story", keyword=s.keyword, foreshadow=s.foreshadow, **where
                ))
        for c in extracted.characters.facts:
            if c.text not in seen:
                seen.add(c.text)
                ids.append(batch.remember(
                    c.text, "Character", character_name=name(c.character_name),
                    keyword=c.keyword, **where,
                ))
        pairs: set[tuple[str, str]] = set()
        for r in extracted.relations.facts:
            a, b = name(r.character1), name(r.character2)
            ka, kb = name_key(a), name_key(b)
            pair = (min(ka, kb), max(ka, kb))
            if ka == kb or pair in pairs:
                continue
            pairs.add(pair)
            current = memory.relation(a, b)
            if current is not None:
                ids.append(batch.supersede(current.id, r.text, **where))
            else:
                ids.append(batch.remember(
                    r.text, "CharacterRelation", character1=a, character2=b,
                    keyword=r.keyword, **where,
                ))
        for st in extracted.settings.facts:
            if st.text not in seen:
                seen.add(st.text)
                ids.append(batch.remember(st.text, "NovelSetting", keyword=st.keyword, **where))
    except BaseException:
        batch.discard()
        raise
    return batch, [str(i) for i in ids]


def seed_plot(memory: Memory, plot: NovelPlot, *, old_ids: Sequence[str] = ()) -> list[str]:
    """Commit the plot's main characters and settings as the first memories (chapter 0).

    The memories of the plot they replace (``old_ids``) are forgotten after the commit; one
    that is already gone is skipped. Returns the new memories' ids.
    """
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
