"""The route table: which node runs next, as a pure function of stored facts."""

from __future__ import annotations

import itertools
from dataclasses import fields, replace

import pytest

from aizac.autopilot.routing import NODES, Facts, facts_of, route
from aizac.autopilot.state import Options, new_state

OPEN = Facts(episode_open=True, has_beats=True, has_prose=True, has_candidates=True,
             checked=True, verdict="accept")

TABLE = [
    # between episodes: pause > rewrite queue > arc end > done > batch gate > next episode
    (Facts(), "load_context"),
    (Facts(paused=True, queued_rewrites=True, arc_end=True), "pause"),
    (Facts(queued_rewrites=True, arc_end=True, done=True, batch_due=True), "rewrite_queued"),
    (Facts(arc_end=True, done=True, batch_due=True), "outline"),
    (Facts(done=True, batch_due=True), "finish"),
    (Facts(batch_due=True), "gate_batch"),
    # inside an episode: the first missing piece of work
    (Facts(episode_open=True), "plan"),
    (Facts(episode_open=True, has_beats=True, plan_gate=True), "gate_plan"),
    (Facts(episode_open=True, has_beats=True), "draft"),
    (Facts(episode_open=True, has_beats=True, has_prose=True), "extract"),
    (Facts(episode_open=True, has_beats=True, has_prose=True, has_candidates=True), "check"),
    (replace(OPEN, verdict=""), "review"),
    (OPEN, "commit"),
    (replace(OPEN, verdict="polish"), "commit"),
    (replace(OPEN, commit_gate=True), "gate_commit"),
    (replace(OPEN, verdict="rewrite"), "rewrite"),
    (replace(OPEN, verdict="rewrite", rewrites=1), "rewrite"),
    (replace(OPEN, verdict="rewrite", rewrites=2), "commit"),  # at most 2 rewrites
    # errors the rewrites left open wait for the writer, the commit gate on or not
    (replace(OPEN, verdict="rewrite", rewrites=2, errors_held=True), "gate_commit"),
    (replace(OPEN, errors_held=True), "gate_commit"),
    (replace(OPEN, verdict="rewrite", rewrite_gate=True), "gate_rewrite"),
    (replace(OPEN, verdict="rewrite", rewrites=2, commit_gate=True), "gate_commit"),
    (replace(OPEN, committed=True), "checkpoint"),
    (replace(OPEN, committed=True, queued_rewrites=True), "checkpoint"),
    (replace(OPEN, paused=True), "pause"),
    # the rewrite queue waits for the open episode to be committed
    (Facts(episode_open=True, queued_rewrites=True, done=True), "plan"),
]


@pytest.mark.parametrize(("facts", "node"), TABLE)
def test_route_table(facts: Facts, node: str) -> None:
    assert route(facts) == node


def _all_facts() -> list[Facts]:
    names = [f.name for f in fields(Facts)]
    values = {n: (False, True) for n in names}
    values["verdict"] = ("", "accept", "polish", "rewrite")
    values["rewrites"] = (0, 1, 2, 3)
    combos = itertools.product(*(values[n] for n in names))
    return [Facts(**dict(zip(names, combo, strict=True))) for combo in combos]


def test_every_combination_of_facts_routes_by_the_rules() -> None:
    """All 2^15 x 4 x 4 fact combinations: a known node; a pause wins; an open episode never
    jumps to between-episode work; never a third rewrite; never commit before a verdict."""
    between = {"rewrite_queued", "outline", "finish", "gate_batch", "load_context"}
    for f in _all_facts():
        node = route(f)
        assert node in NODES
        if f.paused:
            assert node == "pause"
            continue
        if f.episode_open:
            assert node not in between
            if node in ("rewrite", "gate_rewrite"):
                assert f.verdict == "rewrite" and f.rewrites < 2
            if node in ("commit", "gate_commit"):
                assert f.verdict and f.has_prose and f.checked and not f.committed
        else:
            assert node in between


def test_facts_of_a_state() -> None:
    state = new_state("r", Options(episodes=2, gates=("plan",), every=1))
    assert route(facts_of(state)) == "load_context"
    state.update(episode_open=True, beats=[{"index": 1}], prose={})
    assert facts_of(state).plan_gate and route(facts_of(state)) == "gate_plan"
    state.update(plan_ok=True, prose={"1": "text"}, candidates={"1": {}}, report={},
                 verdict={"decision": "rewrite"}, rewrites=2)
    assert route(facts_of(state)) == "commit"
    state.update(committed=True)
    assert route(facts_of(state)) == "checkpoint"
    state.update(episode_open=False, done_episodes=1)
    assert route(facts_of(state)) == "gate_batch"  # every=1: the batch gate after episode 1
    state.update(last_batch_gate=1)
    assert route(facts_of(state)) == "load_context"
    state.update(done_episodes=2)
    assert route(facts_of(state)) == "finish"
