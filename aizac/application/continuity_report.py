"""A project's serial continuity report (issue 42 item 3): the adapter and the dismissals.

:func:`serial_input` reads what the checks need from a project, as plain data: its accepted
beats in story order (each scene's paragraphs numbered within its episode as the import counts
them, and its design's location, time and cast) and its memory with history (the cast and
aliases, deaths, relations in every version, counted things whose number changed from one
version to the next, threads with the ledger's last advance). :func:`build_report` runs the
deterministic checks (:mod:`aizac.continuity.serial_checks`, :mod:`aizac.dialogue.serial`)
and, when asked, the reviewer per episode (:mod:`aizac.continuity.serial_review`).

A finding the writer dismisses stays dismissed: its key is kept in the project's key-value
entry :data:`DISMISSED_KEY` (written with the version it was read at, so two dismissals at
once never lose one).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from aizac.continuity.serial_checks import (
    THREAD_GAP,
    Death,
    Person,
    Quantity,
    RelationChange,
    SceneText,
    SerialInput,
    ThreadFacts,
    design_sightings,
    deterministic_findings,
)
from aizac.continuity.serial_report import (
    SerialFinding,
    SerialReport,
    Spot,
    split_dismissed,
    with_beats,
)
from aizac.continuity.serial_review import Fact, Paragraphs, review_episode
from aizac.continuity.text import NEGATION, containment, has_any, is_dead, words
from aizac.dialogue.serial import speech_switches
from aizac.errors import ModelError
from aizac.writer.project_rows import UNREAD_CAST

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from aizac.writer.agent import WriterAgent

DISMISSED_KEY = "continuity-report-dismissed"
"""The project's key-value entry holding the dismissed findings' keys (a JSON list)."""
_DIGITS = re.compile(r"\d[\d,]*(?:\.\d+)?")
_HANGUL = re.compile(r"[\uac00-\ud7a3]")


def scenes_of(beats: Iterable[Any]) -> list[SceneText]:
    """The accepted beats (``BeatRecord``) as scenes, paragraphs numbered per episode."""
    out: list[SceneText] = []
    count: dict[int, int] = {}
    for record in sorted(beats, key=lambda r: (r.episode, r.index)):
        paragraphs = tuple(p for p in (record.prose or "").split("\n") if p.strip())
        first = count.get(record.episode, 0) + 1
        count[record.episode] = first - 1 + len(paragraphs)
        design = record.beat
        cast = tuple(c for c in design.characters if c and c != UNREAD_CAST)
        out.append(SceneText(record.episode, first, paragraphs, record.id, design.location,
                             design.time, cast))
    return out


def _by_episode(scenes: Sequence[SceneText]) -> dict[int, list[Spot]]:
    out: dict[int, list[Spot]] = {}
    for scene in scenes:
        out.setdefault(scene.episode, []).extend(scene.spots())
    return out


def locate(spots: dict[int, list[Spot]], episode: int, text: str,
           paragraph: int | None = None) -> Spot:
    """The paragraph of ``episode`` a memory was read from: the one it names, else the one
    sharing most of its words (a memory with no episode: where its words are most)."""
    candidates = spots.get(episode) or [s for ss in spots.values() for s in ss]
    if paragraph is not None:
        exact = [s for s in candidates if s.paragraph == paragraph]
        if exact:
            return exact[0]
    if not candidates:
        return Spot(episode, 1, text)
    best = max(candidates, key=lambda s: containment(text, s.quote))
    return best


def numbers(text: str) -> list[float]:
    """The numbers ``text`` writes: digits, or Sino-Korean numerals with a unit word
    (삼백 -> 300, 이천오백 -> 2500; ``words.toml``'s ``numerals``)."""
    out = [float(m.group().replace(",", "")) for m in _DIGITS.finditer(text)]
    table: dict[str, int] = words()["numerals"]
    units = {k for k, v in table.items() if v >= 10}
    pattern = "[" + "".join(table) + "]+"
    for m in re.finditer(pattern, text):
        run = m.group()
        before = text[m.start() - 1: m.start()]
        after = text[m.end(): m.end() + 1]
        if len(run) < 2 or not set(run) & units or _HANGUL.match(before) or _HANGUL.match(after):
            continue
        out.append(float(_sino(run, table)))
    return out


def _sino(run: str, table: dict[str, int]) -> int:
    total = section = digit = 0
    for ch in run:
        value = table[ch]
        if value >= 10_000:
            total += (section + digit or 1) * value
            section = digit = 0
        elif value >= 10:
            section += (digit or 1) * value
            digit = 0
        else:
            digit = value
    return total + section + digit


def _told_change(text: str) -> bool:
    marks = tuple(words()["change"])
    return has_any(text, marks) and not has_any(text, NEGATION)


def serial_input(agent: WriterAgent, language: str) -> SerialInput:
    """What the checks read, from ``agent``'s project (see the module docstring)."""
    from aizac.continuity import open_books

    scenes = scenes_of(agent.store.beats(status="accepted"))
    spots = _by_episode(scenes)
    memory = agent.memory
    cast = tuple(Person(name, tuple(aliases)) for name, aliases in memory.characters().items())
    hits = memory.all(include_forgotten=True, include_superseded=True)
    by_id = {h.id: h for h in hits}

    def spot(hit: Any) -> Spot:
        meta = hit.metadata
        para = meta.get("paragraph")
        return locate(spots, int(meta.get("chapter") or 0), hit.text,
                      int(para) if para else None)

    deaths, relations, quantities, threads = [], [], [], []
    for h in hits:
        meta = h.metadata
        if h.tag == "Character" and not h.superseded and meta.get("aspect") in (
                "condition", "status") and is_dead(h.text):
            deaths.append(Death(h.character_name, spot(h)))
        elif h.tag == "CharacterRelation":
            relations.append(RelationChange(str(meta.get("character1") or ""),
                                            str(meta.get("character2") or ""), h.text,
                                            h.chapter or 1))
        if meta.get("foreshadow") or meta.get("paid_off"):
            paid = spot(h) if meta.get("paid_off") else None
            threads.append(ThreadFacts(h.id, h.text, spot(h), (), paid))
        newer = by_id.get(str(meta.get("superseded_by") or ""))
        if newer is not None:
            old_n, new_n = numbers(h.text), numbers(newer.text)
            if old_n and new_n and old_n != new_n:
                subject = str(meta.get("keyword") or h.character_name or h.text[:40])
                quantities.append(Quantity(h.id, subject, old_n[0], spot(h)))
                quantities.append(Quantity(newer.id, subject, new_n[0], spot(newer), h.id,
                                           _told_change(newer.text)))
    advanced = {t.memory_id: t for t in open_books(agent.store).ledger.threads()}
    threads = [_advanced(t, advanced.get(t.id), spots) for t in threads]
    return SerialInput(language, tuple(scenes), cast, tuple(deaths), tuple(quantities),
                       tuple(relations), tuple(threads),
                       tuple(design_sightings(scenes, cast)))


def _advanced(thread: ThreadFacts, ledger: Any, spots: dict[int, list[Spot]]) -> ThreadFacts:
    """``thread`` with the ledger's last advance as a touch (and its payoff)."""
    if ledger is None:
        return thread
    touched = thread.touched
    if ledger.last_advanced > thread.planted.episode:
        touched = (*touched, locate(spots, ledger.last_advanced, ledger.keyword or ledger.text))
    paid = thread.paid_off
    if ledger.status in ("paid_off", "dropped") and paid is None:
        paid = thread.planted  # settled: no longer a thread to keep
    return ThreadFacts(thread.id, thread.text, thread.planted, touched, paid)


def paragraphs(scenes: Iterable[SceneText]) -> Paragraphs:
    out: dict[int, dict[int, str]] = {}
    for scene in scenes:
        for s in scene.spots():
            out.setdefault(s.episode, {})[s.paragraph] = s.quote
    return out


NOTE_TAGS = ("Character", "CharacterRelation", "NovelSetting")
"""The memories the reviewer is shown: states, relations, settings and rules."""


def memory_notes(agent: WriterAgent, data: SerialInput) -> list[Fact]:
    """The project's current characters, relations and settings with where each was read
    (what the reviewer holds an episode against)."""
    spots = _by_episode(data.scenes)
    out = []
    for h in agent.memory.all(include_forgotten=True, include_superseded=False):
        if h.tag in NOTE_TAGS:
            out.append(Fact(h.text, locate(spots, h.chapter, h.text)))
    return out


def memory_context(data: SerialInput, episode: int, notes: Sequence[Fact] = ()) -> list[Fact]:
    """The memory shown to the reviewer for ``episode``: what was read before it."""
    facts = list(notes)
    facts += [Fact(f"{q.subject}: {q.value:g}", q.at) for q in data.quantities]
    facts += [Fact(t.text, t.planted) for t in data.threads]
    return sorted((f for f in facts if f.at.episode < episode),
                  key=lambda f: (f.at.episode, f.at.paragraph))


def build_report(
    data: SerialInput, first: int, last: int, *,
    reviewer: BaseChatModel | None = None, dismissed: Iterable[str] = (),
    gap: int = THREAD_GAP, check: Callable[[], None] = lambda: None,
    notes: Sequence[Fact] = (),
) -> SerialReport:
    """The report of episodes ``first``..``last`` (the checks read the story from its start,
    so a contradiction cites what came before ``first``); ``check`` runs before each
    reviewer call (a cancelled operation raises there); ``notes`` are the memories the
    reviewer is shown (:func:`memory_notes`) besides the counts and threads."""
    window = SerialInput(data.language, tuple(s for s in data.scenes if s.episode <= last),
                         data.cast, data.deaths, data.quantities, data.relations, data.threads,
                         data.sightings)
    found: list[SerialFinding] = [*deterministic_findings(window, last, gap=gap),
                                  *speech_switches(window)]
    refused, failed = 0, []
    if reviewer is not None:
        text = paragraphs(window.scenes)
        for episode in range(first, last + 1):
            check()  # a cancelled operation stops between episodes
            if episode not in text:
                continue
            try:
                got, bad = review_episode(reviewer, episode, text,
                                          memory_context(window, episode, notes),
                                          language=data.language)
            except ModelError:  # a provider failure or no schema after the retries
                failed.append(episode)
                continue
            found += got
            refused += bad
    beat_of = {(s.episode, s.paragraph): s.beat for scene in window.scenes
               for s in scene.spots() if s.beat is not None}
    inside = [with_beats(f, beat_of) for f in found if first <= f.at.episode <= last]
    kept, gone = split_dismissed(inside, dismissed)
    return SerialReport(first, last, kept, gone, reviewer is not None, refused, tuple(failed))


def dismissed_keys(agent: WriterAgent) -> tuple[list[str], int]:
    """The dismissed keys and the entry's version (0: none yet)."""
    stored = agent.store.kv_get(DISMISSED_KEY)
    if stored is None:
        return [], 0
    return [str(k) for k in json.loads(stored[0])], stored[1]


def set_dismissed(agent: WriterAgent, key: str, dismissed: bool = True) -> list[str]:
    """Dismiss (or bring back) the finding ``key``; the keys now dismissed."""
    keys, version = dismissed_keys(agent)
    keys = [k for k in keys if k != key] + ([key] if dismissed else [])
    agent.store.kv_set(DISMISSED_KEY, json.dumps(keys), expected_version=version)
    return keys


__all__ = [
    "DISMISSED_KEY",
    "build_report",
    "dismissed_keys",
    "locate",
    "memory_context",
    "memory_notes",
    "numbers",
    "paragraphs",
    "scenes_of",
    "serial_input",
    "set_dismissed",
]
