"""What the planner of a beat or an episode is shown of the story (issue 43).

The planner's context pack comes from the same builder as the prose writer's (each character's
current states, the relations among them), for the cast the episode will use rather than the
last scene's: the protagonist always first, then who was on stage so far in this episode and
in the previous one (newest first), every known character the episode's plan, the act's goal,
the writer's instruction or an overdue thread names, and the plot's main characters.

Beside the pack, the threads the continuity check will flag as overdue, ranked as the check
ranks them (:func:`aizac.continuity.ledger.overdue_threads`, the one ranking), within a share of
the same token budget: what does not fit is counted, not shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from aizac.continuity.ledger import Thread, overdue_threads
from aizac.memory.facts import name_key, text_key
from aizac.tokens import count_tokens
from aizac.writer.context import UsedContext
from aizac.writer.extraction import canonical_names
from aizac.writer.project_rows import UNREAD_CAST
from aizac.writer.prompt_words import prompt_words

MAX_CAST = 10
"""Characters the planner's pack is drawn for at most (the protagonist first)."""
OVERDUE_SHARE = 0.3
"""Share of the planner's context budget the overdue threads may take."""
MIN_NAME = 2
"""Shortest name key that counts as a mention in the plan's texts."""


def planning_cast(agent: Any, episode: int, texts: Sequence[str]) -> list[str]:
    """The canonical names the planner of ``episode`` is shown, most needed first (see the
    module docstring; at most :data:`MAX_CAST`)."""
    plot = agent.require_plot().plot
    known = agent.memory.characters()
    canon = canonical_names(known)
    names = [plot.characters[0].name]
    earlier = [*agent.beats(episode - 1), *agent.beats(episode)] if episode > 1 else \
        agent.beats(episode)
    for record in reversed(earlier):  # the latest scene's cast first
        # an imported scene the memory has not read yet names no one (UNREAD_CAST)
        names.extend(n for n in record.beat.characters if n != UNREAD_CAST)
    said = text_key(" ".join(texts))
    for name, aliases in known.items():
        keys = [name_key(n) for n in (name, *aliases)]
        if any(len(k) >= MIN_NAME and k in said for k in keys):
            names.append(name)
    names.extend(c.name for c in plot.characters)
    out: list[str] = []
    for raw in names:
        name = canon.get(name_key(raw), " ".join(raw.split()))
        if name and name not in out:
            out.append(name)
    return out[:MAX_CAST]


def overdue_at(agent: Any, episode: int) -> list[Thread]:
    """The threads the continuity check will flag as overdue at ``episode``, in its order
    (the project's ledger, brought up to date with the memory first: idempotent)."""
    from aizac.continuity import open_books

    ledger = open_books(agent.store).ledger
    ledger.sync(agent.memory, episode)
    return overdue_threads(ledger.open_threads(), episode)


def overdue_block(threads: Sequence[Thread], language: str, budget: int) -> str:
    """The overdue threads as prompt lines in ``language``, in the given order, within
    ``budget`` tokens (the rest counted in a last line); ``""`` when there are none (pure)."""
    if not threads:
        return ""
    labels = prompt_words(language).labels
    lines = [labels["overdue"]]
    more = labels["overdue_more"]
    used = count_tokens(lines[0])
    for n, thread in enumerate(threads):
        line = "- " + labels["overdue_item"].format(text=thread.text, planted=thread.planted,
                                                    due=thread.due)
        cost = count_tokens(line)
        left = len(threads) - n - 1
        reserve = count_tokens(more.format(n=left)) if left else 0
        if used + cost + reserve > budget:
            lines.append(more.format(n=len(threads) - n))
            break
        lines.append(line)
        used += cost
    return "\n".join(lines) if len(lines) > 1 else ""


def planner_context(agent: Any, episode: int, *, plan_line: str, act_goal: str,
                    instruction: str) -> str:
    """The planner's context text for ``episode``: the pack of :func:`planning_cast` from the
    agent's context builder, and the overdue threads after it, together within the agent's
    context budget. The text carries the ids of the pack's memories
    (:class:`~aizac.writer.context.UsedContext`)."""
    language = agent.info.language
    late = overdue_at(agent, episode)
    threads = overdue_block(late, language, round(agent.context_tokens * OVERDUE_SHARE))
    cast = planning_cast(agent, episode, [plan_line, act_goal, instruction,
                                          *(t.text for t in late)])
    pack = agent.context_builder(
        agent.memory, characters=cast, query=f"{plan_line} {act_goal}", act_goal=act_goal,
        location=None, budget=agent.context_tokens - count_tokens(threads),
    )
    if not threads:
        return pack
    # the threads' own memories are not reinforced: the ledger keeps them, faded or not
    text = f"{pack}\n\n{threads}" if str(pack).strip() else threads
    return UsedContext(text, getattr(pack, "memory_ids", ()))


__all__ = ["MAX_CAST", "OVERDUE_SHARE", "overdue_at", "overdue_block", "planner_context",
           "planning_cast"]
