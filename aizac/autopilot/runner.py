"""Start, resume, pause and steer autopilot runs of one project (the CLI and web tab use this).

A run is a LangGraph thread (its id is the run id) checkpointed in the project folder; the
runs store beside it holds the run's status, events, decisions and steering notes. After a
``kill -9``, :meth:`Autopilot.resume` continues at the node that was running; at a gate it
needs the writer's answer; after a pause it goes on from the stored facts.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from langchain_core.runnables import RunnableConfig
from langgraph.types import Command

from aizac.application.service import ApplicationService
from aizac.autopilot.events import Event, RunStore
from aizac.autopilot.graph import build_graph
from aizac.autopilot.names import gate_name
from aizac.autopilot.nodes import Deps
from aizac.autopilot.state import AutopilotState, Options, OptionsData, new_state
from aizac.errors import AizacError, InvalidInputError
from aizac.storage.checkpointer import (
    checkpointer_spec,
    close_checkpointer,
    open_checkpointer,
    thread_id,
)
from aizac.text import Text, Verbatim
from aizac.text.message import Clauses, from_data, to_data

RECURSION_LIMIT = 1_000_000  # a run of hundreds of episodes is thousands of steps
OnEvent = Callable[[Event], None]


@dataclass
class RunResult:
    """Where a run stands after an invocation."""

    run_id: str
    status: str  # finished, paused, waiting
    # where it stands, said by each surface
    message: Text | Verbatim | Clauses = field(default_factory=lambda: Verbatim(""))
    gate: dict[str, Any] | None = None
    state: AutopilotState = field(default_factory=lambda: AutopilotState())


class Autopilot:
    """The autopilot of one project (a :class:`~aizac.writer.agent.WriterAgent`).

    Args:
        agent: the project's writer agent (its store, memory, router and prompts are used).
        door: the application service the episode is committed through (the web app's and
            the CLI's own, so the lock, the history and cancellation are theirs; default: one
            over ``agent``'s data directory).
        checkpointer: a LangGraph saver; default from ``settings.autopilot_checkpointer``.
        deps: extra :class:`~aizac.autopilot.nodes.Deps` fields (``checker=``, ``reviewer=``,
            ``outliner=``, ``say=``), e.g. fakes in tests.
    """

    def __init__(self, agent: Any, *, door: ApplicationService | None = None,
                 checkpointer: Any = None, **deps: Any) -> None:
        self.agent = agent
        self.runs = RunStore(agent.store)
        usage = getattr(agent.router, "usage", None)
        self.door = door or ApplicationService.for_agent(agent)
        self.deps = Deps(agent=agent, runs=self.runs, door=self.door, usage=usage, **deps)
        settings = agent.settings
        spec = checkpointer_spec(getattr(settings, "autopilot_checkpointer", "auto"),
                                 getattr(settings, "database", None))
        self._own_saver = checkpointer is None
        self.saver = checkpointer or open_checkpointer(agent.store.directory, spec)
        self.project_key = str(getattr(agent.store, "key", ""))
        self.graph = build_graph(self.deps, self.saver)

    def close(self) -> None:
        if self._own_saver:
            close_checkpointer(self.saver)

    def config(self, run_id: str) -> RunnableConfig:
        return {"configurable": {"thread_id": thread_id(run_id, self.project_key)},
                "recursion_limit": RECURSION_LIMIT}

    # --------------------------------------------------------------------------- control
    def start(self, options: Options, on_event: OnEvent | None = None) -> RunResult:
        """A new run writing ``options.episodes`` episodes; returns where it stopped."""
        if options.episodes < 1:
            raise InvalidInputError("error.autopilot.no_episodes")
        self.agent.require_plot()
        run_id = self.runs.create(options.dump())
        return self._drive(run_id, new_state(run_id, options), on_event)

    def resume(
        self, run_id: str | None = None, *, answer: object = None,
        options: Mapping[str, object] | None = None, on_event: OnEvent | None = None,
    ) -> RunResult:
        """Go on with ``run_id`` (default: the latest unfinished run).

        ``answer`` answers the gate the run waits at; ``options`` changes the run's options
        (a larger budget) when it was paused."""
        run = self.runs.run(run_id)
        snap = self.graph.get_state(self.config(run.id))
        values = cast(AutopilotState, snap.values)
        if snap.interrupts:
            if answer is None:
                return self._result(run.id)
            return self._drive(run.id, Command(resume=answer), on_event)
        if snap.next:  # killed mid-run: the interrupted node runs again
            return self._drive(run.id, None, on_event)
        if values.get("finished"):
            return self._result(run.id)
        merged: dict[str, object] = {**values.get("options", {}), **(options or {})}
        if options:
            self.runs.set_options(run.id, merged)
        update = AutopilotState(pause_reason="", options=cast(OptionsData, merged), repeats={},
                                failures={})
        return self._drive(run.id, update, on_event)

    def pause(self, run_id: str | None = None) -> None:
        """Ask the run to pause before its next node (from any process)."""
        self.runs.request_pause(self.runs.run(run_id).id)

    def steer(self, run_id: str | None, text: str) -> int:
        """Queue a free-text intervention; applied at the next episode boundary."""
        text = text.strip()
        if not text or len(text) > 1000:
            raise InvalidInputError("error.autopilot.steer_length")
        run = self.runs.run(run_id)
        self.runs.add_event(run.id, 0, "steer", "steer", text=text)
        return self.runs.add_steering(run.id, text)

    # ----------------------------------------------------------------------------- drive
    def _drive(self, run_id: str, inp: AutopilotState | Command[object] | None,
               on_event: OnEvent | None) -> RunResult:
        self.runs.set_status(run_id, "running")
        last = self._last_event(run_id)
        try:
            for _ in self.graph.stream(inp, self.config(run_id), stream_mode="updates"):
                if on_event is not None:
                    for event in self.runs.events(run_id, after=last):
                        on_event(event)
                        last = event.id
        except Exception as e:
            from aizac.writer.reply_problems import in_writers_words

            said = in_writers_words(e).text if isinstance(e, AizacError) else Verbatim(
                str(e)[:500])
            self.runs.set_status(run_id, "failed", said)
            self.runs.add_event(run_id, 0, "run", "error", said=to_data(said))
            raise
        result = self._result(run_id)
        if result.status == "waiting" and result.gate is not None:
            self.runs.add_event(run_id, int(result.gate.get("episode", 0)),
                                "gate_" + str(result.gate.get("gate")), "gate", text="waiting")
        elif result.status == "paused":
            self.runs.add_event(run_id, 0, "pause", "pause", said=to_data(result.message))
        elif result.status == "finished":
            self.runs.add_event(run_id, 0, "finish", "finish")
        if on_event is not None:
            for event in self.runs.events(run_id, after=last):
                on_event(event)
        return result

    def _last_event(self, run_id: str) -> int:
        events = self.runs.events(run_id)
        return events[-1].id if events else 0

    def _result(self, run_id: str, *, record: bool = True) -> RunResult:
        snap = self.graph.get_state(self.config(run_id))
        values = cast(AutopilotState, dict(snap.values))
        if snap.next and not snap.interrupts:  # running elsewhere, or killed mid-node
            run = self.runs.run(run_id)
            said = run.message if _said(run.message) else Text("autopilot.status.resume")
            return RunResult(run_id, run.status, said, None, values)
        message: Text | Verbatim | Clauses
        if snap.interrupts:
            gate = dict(snap.interrupts[0].value)
            # the status says "waiting": the message says where, without saying it again
            status = "waiting"
            message = Text("autopilot.status.at_gate", gate=gate_name(gate.get("gate")),
                           episode=gate.get("episode"))
            if gate.get("open"):  # what is open, for every surface that shows the run
                message = Text("autopilot.status.open_errors", gate=gate_name(gate.get("gate")),
                               episode=gate.get("episode"), n=len(gate["open"]),
                               rewrites=gate.get("rewrites", 0),
                               open=" / ".join(str(f.get("message")) for f in gate["open"]))
        elif values.get("finished"):
            gate, status, message = None, "finished", Verbatim("")
        else:
            gate, status = None, "paused"
            reason = values.get("pause_reason")
            message = from_data(reason) if reason else Text("autopilot.pause.stopped")
        if record:
            self.runs.set_status(run_id, status, message)
        return RunResult(run_id, status, message, gate, values)

    def status(self, run_id: str | None = None) -> RunResult:
        """Where ``run_id`` stands now (no model call)."""
        return self._result(self.runs.run(run_id).id, record=False)


def _said(text: Text | Verbatim | Clauses) -> bool:
    """Whether ``text`` says anything (an empty verbatim says nothing)."""
    return not (isinstance(text, Verbatim) and not text.text)
