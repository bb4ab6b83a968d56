"""Which node runs next: a pure function of stored facts (no model ever decides control flow).

:func:`facts_of` reads the facts out of a state; :func:`route` maps facts to the next node.
Inside an episode the first missing piece of work runs next (plan, draft, extract, check,
review, a rewrite while the verdict asks for one and fewer than two were made, commit; a
commit with the check's errors still open waits at the commit gate, switched on or not, until
the writer says so). Between
episodes the priority is: a pause, then the rewrite queue, then arc-end work (outline the next
arc), then the end of the run, then the batch gate, then the next episode.

:data:`SUCCESSORS` says, for each node, the nodes :func:`route` can name after it has run (what
the graph draws); :func:`from_node` is the one router of each node: :func:`route`, narrowed to
them, and a route outside them is a bug raised as such, never followed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, get_args

from aizac.autopilot.state import GATES, MAX_REWRITES, AutopilotState, FindingData, findings
from aizac.errors import AizacError

Node = Literal[
    "load_context", "plan", "gate_plan", "draft", "extract", "check", "review", "gate_rewrite",
    "rewrite", "gate_commit", "commit", "checkpoint", "rewrite_queued", "outline", "gate_batch",
    "pause", "finish",
]
NODES: tuple[Node, ...] = get_args(Node)
"""Every node a route can name (``pause`` and ``finish`` end the graph's invocation)."""

_BETWEEN: tuple[Node, ...] = ("rewrite_queued", "outline", "finish", "gate_batch",
                              "load_context")
SUCCESSORS: dict[Node, tuple[Node, ...]] = {
    # Every work node can name itself again (a provider fault changes no fact, so the same
    # node is dispatched again) and ``pause`` (the writer's request, the budget fuse, the
    # failure ladder, the no-progress detector); the gates are not wrapped: they do neither.
    # A run's gates never change after it started (a resume changes only its budgets).
    "load_context": ("plan", "load_context", "pause"),  # an open episode without beats
    # beats (the plan gate on and not passed yet: it waits first); none planned: plan again
    "plan": ("gate_plan", "draft", "plan", "pause"),
    "gate_plan": ("draft", "plan"),  # approved or edited: draft; rejected: plan again
    "draft": ("extract", "draft", "pause"),  # prose of every beat; no candidates yet
    "extract": ("check", "extract", "pause"),  # candidates of every beat; no report yet
    "check": ("review", "check", "pause"),  # a report (an empty one when skipped)
    # a verdict: a rewrite (at its gate when on) while it asks for one, else the commit
    "review": ("gate_rewrite", "rewrite", "gate_commit", "commit", "review", "pause"),
    # approved or edited: rewrite; rejected: the verdict is accept, so the commit
    "gate_rewrite": ("rewrite", "gate_commit", "commit"),
    # new prose drops candidates, report and verdict: extract again; a skipped rewrite
    # accepts the draft: the commit
    "rewrite": ("extract", "gate_commit", "commit", "rewrite", "pause"),
    "gate_commit": ("commit", "draft"),  # approved or edited: commit; rejected: draft again
    "commit": ("checkpoint", "commit", "pause"),
    # the episode is closed: between-episode work (the steering may pause or queue)
    "checkpoint": (*_BETWEEN, "checkpoint", "pause"),
    "rewrite_queued": (*_BETWEEN, "pause"),  # the queue is one shorter (maybe not empty)
    "outline": (*(n for n in _BETWEEN if n != "rewrite_queued"), "pause"),  # arc end done
    "gate_batch": ("load_context", "pause"),  # approved: the next episode; rejected: pause
    "pause": (),
    "finish": (),
}
"""The nodes :func:`route` can name after each node has run (``pause`` and ``finish`` lead to
the graph's end)."""
ENTRIES: tuple[Node, ...] = tuple(n for n in NODES if n != "pause")
"""The nodes an invocation can begin with: a new run's first, or a paused run resumed from any
stored facts (the resume clears the pause)."""


@dataclass(frozen=True)
class Facts:
    """What the router reads (all of it stored in the checkpointed state)."""

    paused: bool = False
    episode_open: bool = False
    has_beats: bool = False
    plan_gate: bool = False  # the plan gate is on and the writer has not approved
    has_prose: bool = False
    has_candidates: bool = False
    checked: bool = False
    verdict: str = ""  # "", accept, polish, rewrite
    rewrites: int = 0
    rewrite_gate: bool = False
    commit_gate: bool = False
    errors_held: bool = False  # the check's errors are open and the writer has not said commit
    committed: bool = False
    queued_rewrites: bool = False
    arc_end: bool = False
    done: bool = False
    batch_due: bool = False


def route(f: Facts) -> Node:
    """The next node for facts ``f`` (pure; see the module docstring for the order)."""
    if f.paused:
        return "pause"
    if f.episode_open:
        return _in_episode(f)
    if f.queued_rewrites:
        return "rewrite_queued"
    if f.arc_end:
        return "outline"
    if f.done:
        return "finish"
    if f.batch_due:
        return "gate_batch"
    return "load_context"


def _in_episode(f: Facts) -> Node:
    steps: tuple[tuple[bool, Node], ...] = (
        (not f.has_beats, "plan"), (f.plan_gate, "gate_plan"), (not f.has_prose, "draft"),
        (not f.has_candidates, "extract"), (not f.checked, "check"), (not f.verdict, "review"),
    )
    for missing, node in steps:
        if missing:
            return node
    if f.verdict == "rewrite" and f.rewrites < MAX_REWRITES and not f.committed:
        return "gate_rewrite" if f.rewrite_gate else "rewrite"
    if not f.committed:
        # open errors (the rewrites could not close them) wait for the writer, gate or not
        return "gate_commit" if f.commit_gate or f.errors_held else "commit"
    return "checkpoint"


def facts_of(state: AutopilotState) -> Facts:
    """The router's facts read from a state (pure)."""
    options = state.get("options", {})
    gates = set(options.get("gates", ())) & set(GATES)
    beats = state.get("beats", [])
    prose = state.get("prose", {})
    candidates = state.get("candidates", {})
    verdict = state.get("verdict")
    done = int(state.get("done_episodes", 0))
    every = int(options.get("every", 0))
    return Facts(
        paused=bool(state.get("pause_reason")),
        episode_open=bool(state.get("episode_open")),
        has_beats=bool(beats),
        plan_gate="plan" in gates and not state.get("plan_ok"),
        has_prose=bool(beats) and all(str(b["index"]) in prose for b in beats),
        has_candidates=bool(beats) and all(str(b["index"]) in candidates for b in beats),
        checked=state.get("report") is not None,
        verdict=str(verdict.get("decision", "")) if verdict else "",
        rewrites=int(state.get("rewrites", 0)),
        rewrite_gate="rewrite" in gates and not state.get("rewrite_ok"),
        commit_gate="commit" in gates and not state.get("commit_ok"),
        errors_held=bool(open_errors(state)) and not state.get("commit_ok"),
        committed=bool(state.get("committed")),
        queued_rewrites=bool(state.get("rewrite_queue")),
        arc_end=bool(state.get("arc_end")),
        done=done >= int(options.get("episodes", 0)),
        batch_due=every > 0 and done > 0 and done % every == 0
        and int(state.get("last_batch_gate", 0)) != done,
    )


def open_errors(state: AutopilotState) -> list[FindingData]:
    """The check's findings of the open episode that are errors (pure)."""
    return [f for f in findings(state) if f.get("severity") == "error"]


def next_node(state: AutopilotState) -> Node:
    """:func:`route` of :func:`facts_of` (what every node's router asks)."""
    return route(facts_of(state))


def from_node(source: Node | None) -> Callable[[AutopilotState], Node]:
    """The router after ``source`` (``None``: an invocation's start): :func:`next_node`,
    which must be one of ``source``'s :data:`SUCCESSORS` (:data:`ENTRIES` at the start).

    Raises:
        AizacError: ``error.autopilot.route`` when the route names another node (a bug: a
            node or the route changed without :data:`SUCCESSORS`).
    """
    allowed = ENTRIES if source is None else SUCCESSORS[source]

    def router(state: AutopilotState) -> Node:
        target = next_node(state)
        if target not in allowed:
            from aizac.autopilot.names import name

            raise AizacError("error.autopilot.route", source=name(source or "start"),
                             target=name(target))
        return target

    router.__name__ = f"after_{source or 'start'}"
    return router
