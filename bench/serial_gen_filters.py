"""Recorded model filters for the synthetic serial's queries (deterministic).

For each gold query, :func:`recorded_output` gives the text a query-constructing model would
answer: a fenced JSON object with ``query`` and ``filter`` in LangChain's filter language. The
variation is what real models do: the pair in either order, a Korean alias instead of the
romanised name, an extra keyword clause — and, for about one query in twenty-five (chosen by a
CRC of the query id), a broken answer: an unknown field, a misspelled character, or no JSON at
all. Those exercise the retriever's fallback, so the benchmark figures include it.
"""

from __future__ import annotations

import json
import zlib

from serial_gen import Query, SerialWorld

BROKEN_EVERY = 25


def _roll(qid: str, salt: str) -> int:
    return zlib.crc32(f"{salt}:{qid}".encode())


def _name(world: SerialWorld, name: str, qid: str, salt: str) -> str:
    """The romanised name, or (about one time in three) its Korean alias."""
    if _roll(qid, salt) % 3 == 0:
        for ch in world.characters:
            if ch.name == name and ch.aliases:
                return ch.aliases[0]
    return name


def _fenced(query: str, filt: str) -> str:
    return "```json\n" + json.dumps({"query": query, "filter": filt}, ensure_ascii=False) + "\n```"


def recorded_output(world: SerialWorld, q: Query) -> str:
    """The recorded model answer for query ``q`` (see module docstring)."""
    p = q.params
    broken = _roll(q.qid, "broken") % BROKEN_EVERY == 0
    if broken:
        kind = _roll(q.qid, "how") % 3
        if kind == 0:
            return "I think you are asking about the story. Let me help!"
        if kind == 1:
            return _fenced(q.question, 'and(eq("mood", "tense"), eq("tag", "Story"))')
    pair_tag = 'eq("tag", "CharacterRelation")'
    if q.kind in ("relation", "history", "superseded"):
        a, b = p["a"], p["b"]
        if _roll(q.qid, "order") % 2:
            a, b = b, a
        a, b = _name(world, a, q.qid, "a"), _name(world, b, q.qid, "b")
        if broken:
            a = a[:-2] + "x"
        clauses = [pair_tag, f'eq("character1", "{a}")', f'eq("character2", "{b}")']
        if q.kind == "history":
            clauses.append('eq("superseded", true)')
        text = "relationship" if q.kind != "superseded" else q.question
        return _fenced(text, f"and({', '.join(clauses)})")
    if q.kind == "state":
        who = _name(world, p["name"], q.qid, "name")
        if broken:
            who = who[:-2] + "x"
        return _fenced("current state",
                       f'and(eq("tag", "Character"), eq("character_name", "{who}"))')
    if q.kind == "setting":
        if _roll(q.qid, "kw") % 2:
            return _fenced(p["keyword"],
                           f'and(eq("tag", "NovelSetting"), eq("keyword", "{p["keyword"]}"))')
        return _fenced(p["keyword"], 'eq("tag", "NovelSetting")')
    if q.kind == "pinned":
        if _roll(q.qid, "kw") % 2:
            return _fenced(p["keyword"],
                           f'and(eq("pinned", true), eq("keyword", "{p["keyword"]}"))')
        return _fenced(p["keyword"], 'eq("pinned", true)')
    # forgotten trivia: the model can only say "a story event"
    return _fenced(q.question, 'eq("tag", "Story")')
