"""The autopilot for a long-lived process (the web app): runs in background threads, views.

:class:`AutopilotPanel` starts, pauses, resumes and steers one run per project in a worker
thread and renders what a surface shows: the run's status, the live event stream, the current
gate's question and the drafted prose with the continuity findings next to the beat they concern.
Handlers are plain methods (no Gradio), so tests call them directly.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aizac.autopilot import panel_text as pt
from aizac.autopilot.runner import Autopilot, RunResult
from aizac.autopilot.state import GATES, AutopilotState, Options
from aizac.errors import AizacError, ConflictError, InvalidInputError
from aizac.text import Text, Verbatim, render

AgentOf = Callable[[str | None], Any]


@dataclass
class View:
    """What the tab shows (Markdown)."""

    status: str = ""
    events: str = ""
    gate: str = ""
    prose: str = ""
    waiting: bool = False


class AutopilotPanel:
    """One autopilot per project, each run in a worker thread.

    Args:
        agent_of: project name -> its :class:`~aizac.writer.agent.WriterAgent`.
        make: builds the :class:`Autopilot` of an agent (tests inject fakes for the judges).
        language: the interface language (``en``, ``ko``, ``zh``) of everything the panel
            says around the story's own text.
    """

    def __init__(self, agent_of: AgentOf, make: Callable[[Any], Autopilot] = Autopilot,
                 language: str = "en") -> None:
        self.agent_of = agent_of
        self.make = make
        self.language = language
        self._pilots: dict[str, Autopilot] = {}
        self._threads: dict[str, threading.Thread] = {}
        self._errors: dict[str, Text | Verbatim] = {}
        self._lock = threading.Lock()

    def pilot(self, project: str | None) -> Autopilot:
        if not project:
            raise InvalidInputError("error.project.none_open")
        with self._lock:
            if project not in self._pilots:
                self._pilots[project] = self.make(self.agent_of(project))
            return self._pilots[project]

    def running(self, project: str | None) -> bool:
        thread = self._threads.get(project or "")
        return thread is not None and thread.is_alive()

    def _launch(self, project: str, work: Callable[[], RunResult]) -> None:
        if self.running(project):
            raise ConflictError("error.autopilot.running")

        def run() -> None:
            try:
                work()
                self._errors.pop(project, None)
            except Exception as e:  # shown in the status; the run is marked failed
                self._errors[project] = e.text if isinstance(e, AizacError) else Verbatim(repr(e))

        thread = threading.Thread(target=run, name=f"autopilot-{project}", daemon=True)
        self._threads[project] = thread
        thread.start()

    # ------------------------------------------------------------------------- actions
    def start(self, project: str | None, episodes: int, gates: list[str], every: int = 5,
              budget_tokens: int = 0) -> str:
        pilot = self.pilot(project)
        unknown = set(gates) - set(GATES)
        if unknown or episodes < 1:
            raise InvalidInputError("error.autopilot.start_options")
        options = Options(episodes=int(episodes), gates=tuple(gates), every=int(every),
                          budget_tokens=int(budget_tokens))
        self._launch(str(project), lambda: pilot.start(options))
        return self._say(Text("autopilot.said.started", n=episodes))

    def pause(self, project: str | None) -> str:
        self.pilot(project).pause()
        return self._say(Text("autopilot.said.pause_asked"))

    def resume(self, project: str | None, answer: object = None) -> str:
        pilot = self.pilot(project)
        self._launch(str(project), lambda: pilot.resume(answer=answer))
        return self._say(Text("autopilot.said.resumed"))

    def answer(self, project: str | None, choice: str, value: str = "") -> str:
        if choice == "edit" and value.strip():
            return self.resume(project, {"choice": "edit", "value": value.strip()})
        return self.resume(project, choice)

    def steer(self, project: str | None, text: str) -> str:
        self.pilot(project).steer(None, text)
        return self._say(Text("autopilot.said.steered"))

    def _say(self, text: Text) -> str:
        return render(text, self.language)

    def wait(self, project: str | None, timeout: float | None = None) -> None:
        thread = self._threads.get(project or "")
        if thread is not None:
            thread.join(timeout)

    # ---------------------------------------------------------------------------- views
    def view(self, project: str | None, tail: int = 20) -> View:
        lang = self.language
        if not project:
            return View(status=self._say(Text("autopilot.said.no_project")))
        pilot = self.pilot(project)
        runs = pilot.runs.runs()
        if not runs:
            return View(status=self._say(Text("autopilot.said.no_run")))
        run = runs[-1]
        events = pilot.runs.last_events(run.id, tail, skip_kind="start")
        result = pilot.status(run.id)
        state = "running" if self.running(project) else result.status
        status = pt.status_line(run.id, state, result.message, result.gate,
                                self._errors.get(project, Verbatim("")), lang)
        return View(status=status, events=pt.event_table(events, lang),
                    gate=render_gate(result.gate, lang), prose=render_prose(result.state, lang),
                    waiting=result.status == "waiting" and not self.running(project))


def render_gate(gate: dict[str, Any] | None, language: str = "en") -> str:
    """The gate's question as Markdown (pure)."""
    return pt.gate_markdown(gate, language)


def render_prose(state: AutopilotState, language: str = "en") -> str:
    """The open episode's drafted prose, each beat followed by the findings about it (pure)."""
    return pt.prose_markdown(state, language)
