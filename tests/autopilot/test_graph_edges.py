"""The graph's drawn edges: each node leads only to the nodes its route can really name."""

from __future__ import annotations

from typing import Any, cast

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from aizac.autopilot.graph import build_graph
from aizac.autopilot.nodes import Deps
from aizac.autopilot.routing import from_node
from aizac.autopilot.state import Options, new_state
from aizac.errors import AizacError

# What each node can lead to (START: a new run, or a paused run resumed from any stored facts).
# Every wrapped work node can lead to itself (a provider fault dispatches it again) and to
# ``pause`` (the writer, the budget, the failure ladder or the no-progress detector).
BETWEEN = {"rewrite_queued", "outline", "finish", "gate_batch", "load_context"}
EDGES: dict[str, set[str]] = {
    "__start__": {"load_context", "plan", "gate_plan", "draft", "extract", "check", "review",
                  "gate_rewrite", "rewrite", "gate_commit", "commit", "checkpoint",
                  "rewrite_queued", "outline", "gate_batch", "finish"},
    "load_context": {"load_context", "plan", "pause"},
    "plan": {"plan", "gate_plan", "draft", "pause"},
    "gate_plan": {"plan", "draft"},
    "draft": {"draft", "extract", "pause"},
    "extract": {"extract", "check", "pause"},
    "check": {"check", "review", "pause"},
    "review": {"review", "gate_rewrite", "rewrite", "gate_commit", "commit", "pause"},
    "gate_rewrite": {"rewrite", "gate_commit", "commit"},
    "rewrite": {"rewrite", "extract", "gate_commit", "commit", "pause"},
    "gate_commit": {"draft", "commit"},
    "commit": {"commit", "checkpoint", "pause"},
    "checkpoint": {"checkpoint", "pause", *BETWEEN},
    "rewrite_queued": {"pause", *BETWEEN},
    "outline": {"pause", *(BETWEEN - {"rewrite_queued"})},
    "gate_batch": {"load_context", "pause"},
    "pause": {"__end__"},
    "finish": {"__end__"},
}


def test_each_node_leads_only_where_its_route_can_go() -> None:
    deps = Deps(agent=None, runs=cast(Any, None), door=cast(Any, None))
    graph = build_graph(deps, InMemorySaver()).get_graph()
    drawn: dict[str, set[str]] = {}
    for edge in graph.edges:
        drawn.setdefault(edge.source, set()).add(edge.target)
    assert drawn == EDGES


def test_a_route_a_node_never_leads_to_is_raised_as_a_bug() -> None:
    """The batch gate leads to the next episode or a pause: a state whose route names ``plan``
    after it (a bug) stops the run with the catalogue's error, never followed."""
    state = new_state("r1", Options(episodes=3))
    state.update(episode_open=True)  # an open episode without beats: the route says plan
    assert from_node("plan")(state) == "plan"
    with pytest.raises(AizacError) as raised:
        from_node("gate_batch")(state)
    assert raised.value.key == "error.autopilot.route"
    assert "plan" in str(raised.value).lower()
