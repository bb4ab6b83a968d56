"""The budget fuse: tokens (and cost, when a price is configured) per run and per episode.

Spending comes from the usage log: every node's token delta is written to the run's events, so
a resumed run still counts what the killed process spent. :func:`over_budget` is checked
before a node that calls models; the commit and the checkpoint are never stopped, so a run
pauses between steps, never mid-commit.
"""

from __future__ import annotations

from dataclasses import dataclass

from aizac.autopilot.state import Options
from aizac.text import Text

UNFUSED = frozenset({"commit", "checkpoint", "gate_commit", "pause", "finish"})
"""Nodes the fuse never stops (a commit in progress finishes; a pause or end is no spending)."""


@dataclass(frozen=True)
class Spent:
    """Tokens spent by the run and by its open episode."""

    run_tokens: int = 0
    episode_tokens: int = 0


def cost(tokens: int, price_per_mtok: float) -> float:
    return tokens * price_per_mtok / 1_000_000


def over_budget(options: Options, spent: Spent, node: str) -> Text | None:
    """What is spent when starting ``node`` would run past a budget, else ``None`` (pure)."""
    if node in UNFUSED:
        return None
    run, episode = spent.run_tokens, spent.episode_tokens
    if options.budget_tokens and run >= options.budget_tokens:
        return Text("autopilot.budget.run", spent=f"{run:,}", budget=f"{options.budget_tokens:,}")
    if options.episode_tokens and episode >= options.episode_tokens:
        return Text("autopilot.budget.episode", spent=f"{episode:,}",
                    budget=f"{options.episode_tokens:,}")
    if options.budget_cost and options.price_per_mtok:
        used = cost(run, options.price_per_mtok)
        if used >= options.budget_cost:
            return Text("autopilot.budget.cost", spent=f"{used:.4f}",
                        budget=f"{options.budget_cost:.4f}")
    return None
