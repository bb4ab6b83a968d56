"""The plot of a story already written: the planner drafts it from what the memory knows.

An imported manuscript (:mod:`aizac.application.importing`) becomes a project with beats and
no plot, and :meth:`~aizac.writer.agent.WriterAgent.plan` drafts a new story from keywords.
Once the manuscript is read into memory, :func:`draft_from_story` asks the planner for the plot
so far instead: its prompt holds the story episode by episode (each accepted beat's summary,
else its design's events; condensed to :data:`STORY_TOKENS` by :func:`condense`, pure), the
cast, their states and relations and the rules in force as the memory offers them to the
extractor, and the open threads of the continuity ledger. The reply is the writer's draft to
edit in the Plot editor: logline, main cast, five acts (the episodes written and what comes
next) with the open threads carried into later acts' events.

Only what the memory does not know yet is seeded from the plot (a main character the reading
never met, a setting no memory is about): a memory the reading made is never replaced by the
planner's summary of it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from aizac.storage.killpoints import checkpoint
from aizac.text import Text
from aizac.tokens import count_tokens, truncate_to_tokens
from aizac.writer import accepting, extraction
from aizac.writer.project_rows import UNREAD_CAST
from aizac.writer.prompt_words import prompt_words
from aizac.writer.rules import story_genre
from aizac.writer.schemas import NovelPlot

if TYPE_CHECKING:
    from aizac.continuity.ledger import Thread
    from aizac.writer.agent import WriterAgent
    from aizac.writer.project import BeatRecord, PlotRecord

STORY_TOKENS = 3000
"""Tokens of the story so far in the prompt (the episodes condensed to fit)."""
MIN_EPISODE_TOKENS = 24
"""The fewest tokens an episode's line keeps; with more episodes than that allows, neighbouring
episodes share one line (``12-14: ...``)."""
THREAD_TOKENS = 600
"""Tokens of the open threads in the prompt (the oldest first; the rest counted)."""
MEMORY_PARTS = ("cast", "facts", "relations", "rules")
"""What of the memory's offer the prompt shows (the threads come from the ledger)."""


def episode_lines(beats: Sequence[BeatRecord]) -> dict[int, str]:
    """Each episode's story in one line: its beats' summaries in order, else (a beat the
    memory has not summarised) its design's events; an unread imported scene's first line is
    kept too, better than nothing (pure)."""
    out: dict[int, list[str]] = {}
    for b in beats:
        said = b.summary.strip() or " ".join(e.strip() for e in b.beat.events if e.strip())
        if said:
            out.setdefault(b.episode, []).append(said)
    return {episode: " ".join(parts) for episode, parts in sorted(out.items())}


def condense(lines: Mapping[int, str], budget: int = STORY_TOKENS) -> list[str]:
    """The episodes' lines (``3: ...``) within ``budget`` tokens, every episode kept (pure).

    Short lines stay whole and give what they leave to the longer ones, each of which is cut to
    an even share of what remains; with more episodes than ``budget`` allows at
    :data:`MIN_EPISODE_TOKENS` each, runs of neighbouring episodes share one line."""
    if not lines:
        return []
    numbers = sorted(lines)
    span = max(1, math.ceil(len(numbers) * MIN_EPISODE_TOKENS / budget))
    groups = [numbers[i:i + span] for i in range(0, len(numbers), span)]
    labelled = [(f"{g[0]}" if len(g) == 1 else f"{g[0]}-{g[-1]}",
                 " ".join(lines[n] for n in g)) for g in groups]
    heads = [count_tokens(f"{label}: ") for label, _ in labelled]
    left = budget - sum(heads)
    sizes = [count_tokens(text) for _, text in labelled]
    share = {i: sizes[i] for i in range(len(labelled))}
    pending = sorted(share, key=lambda i: sizes[i])
    while pending:  # water filling: the shortest first take what they need
        even = max(MIN_EPISODE_TOKENS, left // len(pending))
        i = pending.pop(0)
        share[i] = min(sizes[i], even)
        left -= share[i]
    return [f"{label}: {truncate_to_tokens(text, share[i])}"
            for i, (label, text) in enumerate(labelled)]


def thread_lines(threads: Sequence[Thread], budget: int = THREAD_TOKENS) -> list[str]:
    """The open threads (``- text (planted 3)``), oldest first, within ``budget`` (pure)."""
    lines: list[str] = []
    used = 0
    for thread in threads:
        line = f"- {thread.text} ({thread.planted})"
        cost = count_tokens(line)
        if used + cost > budget:
            lines.append(f"- … +{len(threads) - len(lines)}")
            break
        lines.append(line)
        used += cost
    return lines


def story_prompt_values(agent: WriterAgent) -> dict[str, Any]:
    """What the ``plot_from_story`` prompt is filled with, read from the project."""
    from aizac.continuity import open_books

    info = agent.info
    words = prompt_words(info.language)
    beats = agent.store.beats(status="accepted")
    lines = episode_lines(beats)
    last = max(lines, default=0)
    names = list(agent.memory.characters())
    offer = agent.memory.offer(names, " ".join(lines.values())[:2000]) if names else None
    memory = extraction.offer_block(offer, words, MEMORY_PARTS) if offer is not None else ""
    ledger = open_books(agent.store).ledger
    held: Any = agent.memory  # the project's WriterMemory (the ledger reads its own API)
    ledger.sync(held, last + 1)  # idempotent: the ledger as the memory says
    threads = thread_lines(ledger.open_threads())
    # the template's names: count (episodes written), beats (the story so far, episode by
    # episode), memory (cast, states, relations, rules), context (the open threads)
    return {
        "genre": story_genre(agent.store, words.genre), "keywords": ", ".join(info.keywords) or "-",
        "count": last, "beats": "\n".join(condense(lines)) or "-",
        "memory": memory or "-", "context": "\n".join(threads) or "-",
    }


def draft_from_story(agent: WriterAgent, *, say: Callable[[Text], None]) -> PlotRecord:
    """Ask the planner for the plot of the story so far and save it as the project's plot
    (the caller holds the project's lock and has refused or allowed replacing a plot).

    Saved as :meth:`~aizac.writer.agent.WriterAgent.plan` saves one: the step logged before the
    seeds are committed (a kill between them is taken back by :func:`accepting.recover`), the
    seeds, then the plot; an earlier plot's own seeds are forgotten. Raises when there is no
    accepted beat to draft from."""
    from aizac.errors import InvalidInputError

    accepting.recover(agent.store, agent.memory)
    if not agent.store.count_beats("accepted"):
        raise InvalidInputError("error.plot.no_story")
    values = story_prompt_values(agent)
    say(Text("progress.plot_from_story", episodes=values["count"]))
    messages = agent.prompts.render("plot_from_story", agent.info.language, **values)
    plot = agent.router.structured("planner", NovelPlot, messages)
    info = agent.info
    plot = plot.model_copy(update={  # the writer's genre and keywords stay theirs
        "genre": info.genre or plot.genre, "keywords": info.keywords[:8] or plot.keywords,
    })
    existing = agent.store.plot()
    old = existing.memory_ids if existing else []
    checkpoint("plot:planned")
    agent.store.log_step("planning")
    ids = extraction.seed_plot(agent.memory, unknown_part(agent, plot, replaced=old),
                               old_ids=old)
    checkpoint("plot:memory-seeded")
    # the step every saved plot logs ("plot"): recover() reads it as the planning done
    agent.store.save_plot(plot, memory_ids=ids,
                          expected_version=existing.version if existing else None)
    return agent.require_plot()


def unknown_part(agent: WriterAgent, plot: NovelPlot, *, replaced: Sequence[str] = ()
                 ) -> NovelPlot:
    """``plot`` with only what the memory does not know (its characters by every name the
    memory has for them, its settings by the keywords of the memory's setting facts): what
    seeding it adds, never a second profile of someone the reading profiled. The seeds of the
    plot it replaces (``replaced``) do not count as known: they are forgotten."""
    name_key = extraction.name_key
    own = set(replaced)
    aliases = agent.memory.characters()
    held = {str(h.metadata.get("character_name") or "")
            for h in agent.memory.get_where({"tag": {"$eq": "Character"}}) if h.id not in own}
    known = {name_key(n) for name in held if name for n in (name, *aliases.get(name, ()))}
    places = {name_key(str(h.metadata.get("keyword", "")))
              for h in agent.memory.get_where({"tag": {"$eq": "NovelSetting"}})
              if h.id not in own}
    return plot.model_copy(update={
        "characters": [c for c in plot.characters if name_key(c.name) not in known
                       and c.name != UNREAD_CAST],
        "settings": [s for s in plot.settings if name_key(s.name) not in places],
    })


__all__ = ["condense", "draft_from_story", "episode_lines", "story_prompt_values",
           "thread_lines", "unknown_part"]
