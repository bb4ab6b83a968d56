"""The autopilot's LangGraph: every node reached through one pure route, each wrapped by the
failure ladder, the budget fuse, the no-progress detector and the event log.

``START`` and every node have a conditional edge whose path map lists only the nodes the pure
route (:func:`~aizac.autopilot.routing.route`) can name after it
(:data:`~aizac.autopilot.routing.SUCCESSORS`; ``START``: any node but ``pause``, so a run resumed
from any checkpoint continues with whatever the stored facts say is next); ``pause`` and
``finish`` lead to the end of an invocation.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from langgraph.config import get_config
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Checkpointer

from aizac.autopilot import between, gates, ladder, nodes
from aizac.autopilot.budget import UNFUSED, Spent, over_budget
from aizac.autopilot.names import name as node_name
from aizac.autopilot.nodes import Deps, Update
from aizac.autopilot.routing import ENTRIES, NODES, SUCCESSORS, facts_of, from_node
from aizac.autopilot.state import AutopilotState, Options
from aizac.errors import AizacError
from aizac.text import Text, render
from aizac.text.message import to_data

if TYPE_CHECKING:
    from aizac.llm.usage import UsageLog

NodeFn = Callable[[AutopilotState, Deps], Update]
GATE_NODES = {"gate_plan": gates.gate_plan, "gate_rewrite": gates.gate_rewrite,
              "gate_commit": gates.gate_commit, "gate_batch": gates.gate_batch}
WORK_NODES: dict[str, NodeFn] = {
    "load_context": nodes.load_context, "plan": nodes.plan, "draft": nodes.draft,
    "extract": nodes.extract, "check": nodes.check, "review": nodes.review,
    "rewrite": nodes.rewrite, "commit": nodes.commit, "checkpoint": between.checkpoint,
    "rewrite_queued": between.rewrite_queued, "outline": between.outline,
}
NO_CHECKS = UNFUSED | set(GATE_NODES)


def skipped(node: str, reason: str) -> Update:
    """What a node skipped by the arbiter leaves in the state."""
    if node == "check":
        return {"report": {"findings": [], "covered": [], "missed": [], "names": [],
                           "blocking": False, "skipped": reason}}
    if node in ("review", "rewrite"):
        return {"verdict": {"decision": "accept", "reasons": [f"skipped: {reason}"[:200]]}}
    return {"arc_end": False}  # outline


def _step() -> int | None:
    """The graph step of the running node (the same when a killed node is replayed)."""
    try:
        return int(get_config()["metadata"]["langgraph_step"])
    except (RuntimeError, KeyError, TypeError, ValueError):  # called outside a graph
        return None


class UsageMeter:
    """(calls, prompt tokens, all tokens) the router has logged so far, read incrementally.

    Summing the whole usage log at every node start and end grew with the run (the log keeps
    every call), so a long run spent more of aizac's CPU per episode as it went; the meter adds
    only the records logged since its last read."""

    def __init__(self, usage: UsageLog | None) -> None:
        self.usage = usage
        self._seen, self._sums = 0, (0, 0, 0)
        self._lock = threading.Lock()

    def read(self) -> tuple[int, int, int]:
        if self.usage is None:
            return 0, 0, 0
        with self._lock:
            records = self.usage.records
            if len(records) < self._seen:  # the log was cleared: count again
                self._seen, self._sums = 0, (0, 0, 0)
            calls, prompt, total = self._sums
            for r in records[self._seen:]:
                calls, prompt = calls + 1, prompt + r.prompt_tokens
                total += r.prompt_tokens + r.completion_tokens
            self._seen, self._sums = len(records), (calls, prompt, total)
            return self._sums


class Wrapped:
    """A node with the run's rules around it (see the module docstring)."""

    def __init__(self, name: str, fn: NodeFn, deps: Deps,
                 meter: UsageMeter | None = None) -> None:
        self.name, self.fn, self.deps = name, fn, deps
        self.meter = meter or UsageMeter(deps.usage)

    def __call__(self, state: AutopilotState) -> Update:
        name, runs, run_id = self.name, self.deps.runs, str(state["run_id"])
        episode, step = int(state.get("episode", 0)), _step()
        stop = self._precheck(state, run_id, episode)
        if stop is not None:
            return stop
        key = f"{name}:{episode}:{state.get('done_episodes', 0)}:{facts_of(state)}"
        repeats = {**state.get("repeats", {}), key: state.get("repeats", {}).get(key, 0) + 1}
        seen = ladder.on_repeat(repeats[key])
        if seen != "ok":
            said = to_data(Text("autopilot.pause.no_progress", node=node_name(name),
                                n=repeats[key]))
            runs.add_event(run_id, episode, name, seen, step=step, said=said)
            if seen == "pause":
                return {"repeats": repeats, "pause_reason": said}
        runs.add_event(run_id, episode, name, "start", step=step)
        started, before = time.perf_counter(), self.meter.read()
        update = self._run(state, run_id, episode, step)
        episode = int(update.get("episode", episode))
        after = self.meter.read()
        runs.add_event(run_id, episode, name, "end", step=step, tokens=after[2] - before[2],
                       seconds=time.perf_counter() - started, **_note(update),
                       calls=after[0] - before[0], prompt_tokens=after[1] - before[1],
                       **_facts(name, update))
        return {**update, "repeats": repeats}

    def _precheck(self, state: AutopilotState, run_id: str, episode: int) -> Update | None:
        """A pause before the node: asked for by the writer, or a budget spent."""
        if self.name in NO_CHECKS:
            return None
        runs = self.deps.runs
        if runs.run(run_id).pause_requested:
            runs.request_pause(run_id, False)
            return {"pause_reason": to_data(Text("autopilot.pause.writer"))}
        spent = Spent(runs.tokens(run_id), runs.tokens(run_id, episode))
        spent_text = over_budget(Options.load(state.get("options", {})), spent, self.name)
        if spent_text is not None:
            return {"pause_reason": to_data(Text("autopilot.pause.budget", spent=spent_text))}
        return None

    def _run(self, state: AutopilotState, run_id: str, episode: int,
             graph_step: int | None = None) -> Update:
        failures = dict(state.get("failures", {}))
        errors = 0
        while True:
            try:
                update = self.fn(state, self.deps)
            except AizacError as e:
                step = ladder.on_failure(self.name, failures.get(self.name, 0), e)
                errors += 1
                self.deps.runs.add_event(run_id, episode, self.name, "error", step=graph_step,
                                         seq=errors, said=to_data(step.reason))
                if step.counted:
                    failures[self.name] = failures.get(self.name, 0) + 1
                if step.arbiter:
                    self.deps.runs.add_decision(run_id, episode, self.name, step.action,
                                                render(step.reason, "en"))  # the run's log
                if step.action == "skip":
                    return {**skipped(self.name, str(e)), "failures": failures}
                if step.action == "pause":
                    said = Text("autopilot.pause.failed", node=node_name(self.name), error=e.text)
                    return {"failures": failures, "pause_reason": to_data(said)}
                if not step.counted:  # a provider fault: dispatch again (the detector counts)
                    return {"failures": failures}
                continue
            failures.pop(self.name, None)
            return {**update, "failures": failures}


def _note(update: Update) -> dict[str, Any]:
    """A node's end note when it paused the run: the reason, as data (the check's counts and
    the verdict are :func:`_facts`, said by each surface)."""
    if update.get("pause_reason"):
        return {"said": update["pause_reason"]}
    return {}


def _facts(name: str, update: Update) -> dict[str, Any]:
    """What a surface renders in its own language: the check's counts, the verdict."""
    report, verdict = update.get("report"), update.get("verdict")
    if name == "check" and report:
        findings = report["findings"]
        return {"findings": len(findings), "missed": list(report["missed"]),
                "kinds": list(dict.fromkeys(f["kind"] for f in findings))}
    if name == "review" and verdict:
        return {"decision": verdict["decision"], "reasons": list(verdict.get("reasons", []))}
    return {}


def _pause(state: AutopilotState) -> Update:
    return {}


def _finish(state: AutopilotState) -> Update:
    return {"finished": True}


Graph = CompiledStateGraph[AutopilotState, None, AutopilotState, AutopilotState]
"""The compiled autopilot graph."""


def build_graph(deps: Deps, checkpointer: Checkpointer) -> Graph:
    """The compiled graph for ``deps`` with ``checkpointer`` (see :mod:`.checkpointer`)."""
    graph = StateGraph(AutopilotState)
    meter = UsageMeter(deps.usage)
    for name, fn in WORK_NODES.items():
        graph.add_node(name, Wrapped(name, fn, deps, meter))
    for name, gate in GATE_NODES.items():
        graph.add_node(name, gate)
    graph.add_node("pause", _pause)
    graph.add_node("finish", _finish)
    # a path map per source: what the graph draws, and the only nodes its router may name
    graph.add_conditional_edges(START, from_node(None), list(ENTRIES))
    for name in NODES:
        successors = SUCCESSORS[name]
        if not successors:  # pause, finish
            graph.add_edge(name, END)
        elif len(successors) == 1:
            graph.add_edge(name, successors[0])
        else:
            graph.add_conditional_edges(name, from_node(name), list(successors))
    return graph.compile(checkpointer=checkpointer)
