"""The fast crash trials: ``aizac autopilot`` killed with SIGKILL inside the commit (named kill
points) and at a random event, then ``--resume``: nothing lost, nothing duplicated, finished.
The 30-trial version is ``python -m tests.autopilot.crashtrials --trials 30``."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.autopilot import crashtrials as ct

EPISODES = 1


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ct.OpenAIServer, Path]]:
    root = tmp_path_factory.mktemp("autopilot-crash")
    with ct.OpenAIServer(ct.KoreanStory()) as server:
        yield server, ct.make_template(server, root)


def _resume_and_check(server: ct.OpenAIServer, data_dir: Path) -> None:
    project = data_dir / "projects" / ct.NAME
    env = ct.child_env(server, data_dir)
    killed, output = ct.run_until(["autopilot", "--resume"], env, project, None,
                                  random.Random(0))
    assert not killed and "finished" in output, output[-800:]
    report = ct.check_project(project, complete_prose=ct.complete_prose)
    assert report.problems == []
    from aizac.writer.project import ProjectStore

    store = ProjectStore(project)
    positions = [(b.episode, b.index) for b in store.beats(status="accepted")]
    assert positions == [(e, i) for e in range(1, EPISODES + 1) for i in range(1, ct.BEATS + 1)]
    assert all(b.prose for b in store.beats(status="accepted"))


@pytest.mark.parametrize("step", ["accept:committed", "autopilot:prose-saved"])
def test_killed_inside_the_commit_then_resumed(
    world: tuple[ct.OpenAIServer, Path], tmp_path: Path, step: str
) -> None:
    server, template = world
    data_dir = tmp_path / "data"
    ct.shutil.copytree(template, data_dir)
    env = {**ct.child_env(server, data_dir), "AIZAC_KILL_AT": step}
    child = ct._spawn(["autopilot", "--episodes", str(EPISODES)], env)
    out, err = child.communicate(timeout=600)
    assert child.returncode == -9, (out + err)[-800:]  # killed exactly there
    _resume_and_check(server, data_dir)


def test_killed_at_a_random_event_then_resumed(
    world: tuple[ct.OpenAIServer, Path], tmp_path: Path
) -> None:
    server, template = world
    # A kill drawn among the first 12 of a run's ~17 events: a later draw can land after the
    # child has already finished (no kill at all, and the test would check nothing).
    trial = ct.run_trial(template, tmp_path, server, EPISODES, total_events=12,
                         rng=random.Random(3), max_kills=1)
    assert trial.kills and trial.finished, trial.problems
    assert not trial.lost and not trial.duplicated, trial.problems
