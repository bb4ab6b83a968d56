"""Kill trials: SIGKILL a CLI command at each named step, run the next command, check invariants.

Each command of the story (``new``, ``plot``, ``beat --accept``, ``write``) runs as a child
process against the loopback OpenAI-compatible server, with ``AIZAC_KILL_AT`` naming one step
(:data:`aizac.storage.killpoints.STEPS`): the child kills itself with SIGKILL exactly there. Then
the command the writer would type next runs to completion and the project is checked
(:func:`acceptance.invariants.check_project`). A trial counts as *lost* when the command's result
is missing afterwards (no project, no plot, the beat not accepted once, no whole prose) or an
invariant says something was lost, and *duplicated* when something was added twice.

As a script (from ``tests/``) it prints the table (``--trials N`` per step)::

    cd tests && python -m acceptance.killtrials --trials 3
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from aizac.storage.killpoints import KILL_ENV, STEPS
from aizac.writer.project import ProjectStore

from .invariants import Report, check_project
from .openai_server import OpenAIServer
from .story import KoreanStory, complete_prose

NAME = "두번째삶"
NEW = ["new", NAME, "--keywords", "회귀, 복수", "--genre", "현대판타지", "--lang", "ko"]
SETUP: dict[str, list[str]] = {
    "new": [],
    "plot": ["new"],
    "accept": ["new", "plot", "accept", "beat"],
    "write": ["new", "plot", "accept"],
}
"""What each command starts from (built in this process through Studio: faster than children)."""
COMMAND: dict[str, list[str]] = {
    "new": NEW, "plot": ["plot"], "accept": ["beat", "--accept"], "write": ["write"],
}


def model_env(server: OpenAIServer, data_dir: Path, *, embeddings: bool = False) -> dict[str, str]:
    """Environment for a child process: every role on the loopback server, a throwaway data dir."""
    spec = f"openai-compatible:{server.base_url}:{server.model}"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AIZAC_", "OPENAI_"))}
    env.update(
        AIZAC_DATA_DIR=str(data_dir), AIZAC_PLANNER_MODEL=spec, AIZAC_WRITER_MODEL=spec,
        AIZAC_EXTRACTOR_MODEL=spec, AIZAC_CONFIG=str(data_dir / "none.toml"),
        AIZAC_LANGUAGE="ko", PYTHONHASHSEED="0",
        AIZAC_EMBEDDING="hash",  # as the test process reads the project (tests/conftest.py)
    )
    if embeddings:
        env.update(AIZAC_EMBEDDING="openai:test-embedding", OPENAI_BASE_URL=server.base_url,
                   OPENAI_API_KEY="sk-loopback")
    return env


def aizac(args: Sequence[str], env: dict[str, str], *, kill_at: str | None = None,
          timeout: float = 180) -> subprocess.CompletedProcess[str]:
    """Run ``aizac ARGS`` in a child process (optionally killed at step ``kill_at``)."""
    run_env = dict(env)
    if kill_at is not None:
        run_env[KILL_ENV] = kill_at
    return subprocess.run(
        [sys.executable, "-c", "from aizac.cli import main; main()", *args],
        capture_output=True, text=True, timeout=timeout, env=run_env,
    )


@dataclass
class Trial:
    step: str
    killed: bool
    lost: bool
    duplicated: bool
    report: Report
    note: str = ""


def _project_dir(data_dir: Path) -> Path:
    return data_dir / "projects" / NAME


def _accepted(data_dir: Path) -> int:
    directory = _project_dir(data_dir)
    if not (directory / "project.sqlite3").exists():
        return 0
    return ProjectStore(directory).count_beats("accepted")


NEXT: dict[str, list[list[str]]] = {"accept": [["beat"], ["beat", "--accept"]]}
"""What the writer types after a kill, where it is not the same command again: after a killed
accept, ``aizac beat`` shows where the beat stands (the draft, or the next one designed when the
killed accept went through), and ``--accept`` accepts what it showed (it never designs one)."""


def _next(command: str, env: dict[str, str]) -> str:
    """What the writer types after the kill; returns the failing output."""
    for args in NEXT.get(command, [COMMAND[command]]):
        done = aizac(args, env)
        if done.returncode != 0:
            return done.stderr
    return ""


def _outcome(command: str, data_dir: Path, base_accepted: int) -> tuple[bool, bool]:
    """(lost, duplicated) of the command's own result after the next command."""
    directory = _project_dir(data_dir)
    if not (directory / "project.sqlite3").exists():
        return True, False
    store = ProjectStore(directory)
    if command == "plot":
        return store.plot() is None, False
    if command == "accept":  # the killed beat is canon once; the rerun may accept the next one
        n = store.count_beats("accepted")
        return n < base_accepted + 1, n > base_accepted + 2
    if command == "write":
        last = store.last_accepted()
        return last is None or not last.prose or not complete_prose(last.prose), False
    return False, False


def run_trial(command: str, step: str, template: Path, work: Path,
              server: OpenAIServer) -> Trial:
    """One kill at ``step`` of ``command`` on a copy of ``template``, then the next command."""
    data_dir = work / "aizac-data"
    if template.exists():
        shutil.copytree(template, data_dir, symlinks=True)
    env = model_env(server, data_dir)
    base = _accepted(data_dir)
    killed = aizac(COMMAND[command], env, kill_at=step)
    was_killed = killed.returncode == -9
    failure = _next(command, env)
    lost, duplicated = _outcome(command, data_dir, base)
    report = check_project(_project_dir(data_dir), complete_prose=complete_prose)
    note = failure.strip().splitlines()[-1] if failure.strip() else ""
    if not was_killed:
        note = f"step not reached (exit {killed.returncode}) {note}".strip()
    return Trial(step, was_killed, lost or report.lost or bool(failure), duplicated
                 or report.duplicated, report, note)


def make_templates(server: OpenAIServer, root: Path) -> dict[str, Path]:
    """A data directory per command holding the state that command starts from."""
    from chromadb.api.client import SharedSystemClient

    from aizac.llm.embeddings import HashingEmbeddings
    from aizac.settings import Settings
    from aizac.writer.project_dirs import release_project
    from aizac.writer.service import Studio

    spec = f"openai-compatible:{server.base_url}:{server.model}"
    templates: dict[str, Path] = {}
    for command, setup in SETUP.items():
        data_dir = root / f"template-{command}"
        data_dir.mkdir(parents=True)
        settings = Settings(data_dir=data_dir, language="ko", planner_model=spec,
                            writer_model=spec, extractor_model=spec)
        studio = Studio(settings, embeddings=HashingEmbeddings())
        if setup:
            agent = studio.create(NAME, "회귀, 복수", genre="현대판타지", language="ko")
            if "plot" in setup:
                agent.plan()
            if "accept" in setup:
                agent.accept(agent.next_beat().id)
            if "beat" in setup:
                agent.next_beat()
            release_project(agent.store.directory)
        SharedSystemClient.clear_system_cache()  # children open it afresh
        templates[command] = data_dir
    return templates


def run_all(server: OpenAIServer, root: Path, trials: int = 1,
            commands: Sequence[str] = tuple(COMMAND)) -> list[Trial]:
    templates = make_templates(server, root)
    results: list[Trial] = []
    for command in commands:
        for step in STEPS[command]:
            for n in range(trials):
                work = root / f"{step.replace(':', '-')}-{n}"
                results.append(run_trial(command, step, templates[command], work, server))
    return results


def table(results: Sequence[Trial]) -> str:
    rows = ["| step | trials | killed | lost | duplicated |", "| --- | --- | --- | --- | --- |"]
    steps = list(dict.fromkeys(r.step for r in results))
    for step in steps:
        mine = [r for r in results if r.step == step]
        rows.append(
            f"| {step} | {len(mine)} | {sum(r.killed for r in mine)} | "
            f"{sum(r.lost for r in mine)} | {sum(r.duplicated for r in mine)} |"
        )
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=3, help="kills per named step")
    args = parser.parse_args()
    with OpenAIServer(KoreanStory()) as server, tempfile.TemporaryDirectory() as tmp:
        results = run_all(server, Path(tmp), args.trials)
    print(table(results))
    for r in results:
        if r.lost or r.duplicated or not r.killed:
            print(f"- {r.step}: {r.note} {r.report.problems}")


if __name__ == "__main__":
    main()
