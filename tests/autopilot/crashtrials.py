"""Crash trials: SIGKILL ``aizac autopilot`` at random points, ``--resume``, check the project.

Every role runs on the loopback OpenAI-compatible server (the real wire format, Korean
content). A trial copies a planned project, starts ``aizac autopilot --episodes N`` in a child
process and kills it with SIGKILL once the run has written a random number of events (plus a
random few milliseconds), so kills land all over the graph: inside model calls, between a
node's writes and its checkpoint, inside the commit's accept unit of work. Then
``aizac autopilot --resume`` runs (killed again in some trials) until it finishes, and the
project is checked (:func:`tests.acceptance.invariants.check_project`): nothing lost (every
episode's beats accepted once, with whole prose), nothing duplicated, the run finished.

As a script (from the repository root)::

    python -m tests.autopilot.crashtrials --trials 30
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the acceptance helpers' root

from acceptance.invariants import check_project
from acceptance.killtrials import model_env
from acceptance.openai_server import OpenAIServer
from acceptance.story import KoreanStory, complete_prose

NAME = "자동연재"
BEATS = 2


@dataclass
class Trial:
    kills: list[int] = field(default_factory=list)  # events seen at each kill
    nodes: list[str] = field(default_factory=list)  # "node:kind" of the last event at each kill
    finished: bool = False
    lost: bool = False
    duplicated: bool = False
    problems: list[str] = field(default_factory=list)


def child_env(server: OpenAIServer, data_dir: Path) -> dict[str, str]:
    env = model_env(server, data_dir)
    env["AIZAC_REVIEWER_MODEL"] = env["AIZAC_PLANNER_MODEL"]
    root = str(Path(__file__).resolve().parents[2])  # this checkout's aizac, from any cwd
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
    return env


def make_template(server: OpenAIServer, root: Path) -> Path:
    """A data directory holding a planned Korean project (built in this process)."""
    from chromadb.api.client import SharedSystemClient

    from aizac.llm.embeddings import HashingEmbeddings
    from aizac.settings import Settings
    from aizac.writer.project_dirs import release_project
    from aizac.writer.service import Studio

    spec = f"openai-compatible:{server.base_url}:{server.model}"
    data_dir = root / "template"
    data_dir.mkdir(parents=True)
    settings = Settings(data_dir=data_dir, language="ko", planner_model=spec, writer_model=spec,
                        extractor_model=spec, reviewer_model=spec)
    studio = Studio(settings, embeddings=HashingEmbeddings())
    agent = studio.create(NAME, "회귀, 복수", genre="현대판타지", language="ko",
                          beats_per_episode=BEATS)
    agent.plan()
    release_project(agent.store.directory)
    SharedSystemClient.clear_system_cache()
    return data_dir


def _events(project: Path) -> int:
    path = project / "autopilot_runs.sqlite3"
    if not path.exists():
        return 0
    try:
        with sqlite3.connect(path, timeout=1) as db:
            return int(db.execute("SELECT COUNT(*) FROM events").fetchone()[0])
    except sqlite3.Error:
        return 0


def _last_event(project: Path) -> str:
    """``node:kind`` of the run's newest event row (where a kill landed: after ``draft:start``
    the process died inside the draft node; after ``draft:end``, between it and the next)."""
    path = project / "autopilot_runs.sqlite3"
    if not path.exists():
        return "-"
    try:
        with sqlite3.connect(path, timeout=5) as db:
            row = db.execute("SELECT node, kind FROM events ORDER BY id DESC LIMIT 1").fetchone()
    except sqlite3.Error:
        return "?"
    return f"{row[0]}:{row[1]}" if row else "-"


def _has_run(project: Path) -> bool:
    path = project / "autopilot_runs.sqlite3"
    if not path.exists():
        return False
    with sqlite3.connect(path, timeout=5) as db:
        return bool(db.execute("SELECT COUNT(*) FROM runs").fetchone()[0])


def _spawn(args: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", "from aizac.cli import main; main()", *args],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def run_until(args: list[str], env: dict[str, str], project: Path, kill_after: int | None,
              rng: random.Random, timeout: float = 600) -> tuple[bool, str]:
    """Run ``aizac ARGS``; SIGKILL it once the run has ``kill_after`` events (if given).
    Returns (killed, output)."""
    child = _spawn(args, env)
    deadline = time.monotonic() + timeout
    while child.poll() is None and time.monotonic() < deadline:
        if kill_after is not None and _events(project) >= kill_after:
            time.sleep(rng.uniform(0, 0.15))
            if child.poll() is not None:
                break  # it ended before the kill: report its output, not a kill
            os.kill(child.pid, signal.SIGKILL)
            child.wait()
            return True, ""
        time.sleep(0.01)
    if child.poll() is None:
        child.kill()
    out, err = child.communicate()
    return False, out + err


def run_trial(template: Path, work: Path, server: OpenAIServer, episodes: int,
              total_events: int, rng: random.Random, max_kills: int = 2) -> Trial:
    data_dir = work / "aizac-data"
    shutil.copytree(template, data_dir, symlinks=True)
    project = data_dir / "projects" / NAME
    env = child_env(server, data_dir)
    trial = Trial()
    kills = rng.randint(1, max_kills)
    output = ""
    for attempt in range(kills + 3):
        args = (["autopilot", "--resume"] if _has_run(project)
                else ["autopilot", "--episodes", str(episodes)])
        seen = _events(project)
        target = rng.randint(seen + 1, max(seen + 1, total_events)) if attempt < kills else None
        killed, output = run_until(args, env, project, target, rng)
        if killed:
            trial.kills.append(target or 0)
            trial.nodes.append(_last_event(project))
            continue
        if "finished" in output:
            trial.finished = True
            break
    report = check_project(project, complete_prose=complete_prose)
    trial.problems = list(report.problems)
    expected = [(e, i) for e in range(1, episodes + 1) for i in range(1, BEATS + 1)]
    from aizac.writer.project import ProjectStore

    accepted = ProjectStore(project).beats(status="accepted")
    positions = [(b.episode, b.index) for b in accepted]
    trial.lost = report.lost or positions[: len(expected)] != expected or any(
        not b.prose for b in accepted)
    trial.duplicated = report.duplicated or len(positions) != len(set(positions))
    if not trial.finished:
        trial.problems.append("not finished: " + output.strip()[-300:])
    return trial


def baseline(template: Path, work: Path, server: OpenAIServer, episodes: int) -> int:
    """Events of an uninterrupted run (the range kills are drawn from)."""
    data_dir = work / "baseline"
    shutil.copytree(template, data_dir, symlinks=True)
    project = data_dir / "projects" / NAME
    _, output = run_until(["autopilot", "--episodes", str(episodes)],
                          child_env(server, data_dir), project, None, random.Random(0))
    if "finished" not in output:
        raise RuntimeError(f"the baseline run did not finish: {output[-500:]}")
    return _events(project)


def run_all(root: Path, trials: int, episodes: int, seed: int = 7) -> tuple[int, list[Trial]]:
    rng = random.Random(seed)
    with OpenAIServer(KoreanStory()) as server:
        template = make_template(server, root)
        total = baseline(template, root, server, episodes)
        print(f"events per uninterrupted run: {total}", flush=True)
        results = []
        for n in range(trials):
            trial = run_trial(template, root / f"trial-{n}", server, episodes, total, rng)
            results.append(trial)
            print(f"trial {n}: kills at events {trial.kills} {trial.nodes}, "
                  f"finished={trial.finished}, "
                  f"lost={trial.lost}, duplicated={trial.duplicated} {trial.problems}",
                  flush=True)
    return total, results


def table(total: int, results: list[Trial]) -> str:
    kills = [k for r in results for k in r.kills]
    where = Counter(n.split(":")[0] for r in results for n in r.nodes)
    return "\n".join([
        "| trials | kills | events per run | finished | lost | duplicated |",
        "| --- | --- | --- | --- | --- | --- |",
        f"| {len(results)} | {len(kills)} | {total} | {sum(r.finished for r in results)} | "
        f"{sum(r.lost for r in results)} | {sum(r.duplicated for r in results)} |",
        "",
        "kills by node (the node of the last event row written before the kill):",
        "| " + " | ".join(where) + " |",
        "|" + " --- |" * len(where),
        "| " + " | ".join(str(v) for v in where.values()) + " |",
    ])


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=30)
    parser.add_argument("--episodes", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        total, results = run_all(Path(tmp), args.trials, args.episodes, args.seed)
    print(table(total, results))
    print("kill points (events written before each kill, last event): " + ", ".join(
        f"{k} {n}" for r in results for k, n in zip(r.kills, r.nodes, strict=True)))
    for n, r in enumerate(results):
        if r.lost or r.duplicated or not r.finished:
            print(f"- trial {n}: {r.problems}")


if __name__ == "__main__":
    main()
