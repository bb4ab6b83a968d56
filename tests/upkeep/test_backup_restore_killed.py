"""`aizac backup` and `aizac restore` killed (SIGKILL) at random moments and at each named
step, in a child process, on both engines (issue 37, item 3): the project backed up is never
touched, a backup is whole or absent, and a restore is all or nothing — the project is as it
was or as the backup has it, never a mix, and the backup file is never changed."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from aizac.upkeep.archive import digest, verify
from aizac.upkeep.layout import backups, backups_dir
from aizac.writer.service import Studio
from tests.upkeep.conftest import fingerprint, settle, written

RANDOM_KILLS = int(os.environ.get("AIZAC_TEST_RANDOM_KILLS", "5"))
SEED = int(os.environ.get("AIZAC_TEST_KILL_SEED", str(int(time.time()))))


def _env(tmp_path: Path, database_url: str | None, **extra: str) -> dict[str, str]:
    env = {**os.environ, "AIZAC_DATA_DIR": str(tmp_path / "data"), **extra}
    if database_url is not None:
        env["AIZAC_DATABASE_URL"] = database_url
    return env


def _aizac(args: list[str], env: dict[str, str], kill_after: float | None = None
           ) -> tuple[int, str]:
    """Run ``aizac *args`` in a child; with ``kill_after``, SIGKILL it that many seconds in
    (if it is still running). Returns its exit status and stderr."""
    child = subprocess.Popen([sys.executable, "-c", "from aizac.cli import main; main()", *args],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if kill_after is not None:
        try:
            child.wait(timeout=kill_after)
        except subprocess.TimeoutExpired:
            child.send_signal(signal.SIGKILL)
    _, err = child.communicate(timeout=300)
    return child.returncode, err


def _timed(args: list[str], env: dict[str, str]) -> float:
    started = time.monotonic()
    status, err = _aizac(args, env)
    assert status == 0, err
    return time.monotonic() - started


def test_a_backup_killed_anywhere_leaves_the_project_and_only_whole_backups(
    tmp_path: Path, make_studio: Callable[..., Studio], database_url: str | None
) -> None:
    folder = written(make_studio(), "saga")
    before = fingerprint(folder)
    env = _env(tmp_path, database_url)
    took = _timed(["backup", "-p", "saga"], env)
    rng = random.Random(SEED)
    kills = [("backup:copied", None), ("backup:written", None)] + [
        ("", rng.uniform(0.0, took * 1.1)) for _ in range(RANDOM_KILLS)]
    for step, after in kills:
        trial = _env(tmp_path, database_url, AIZAC_KILL_AT=step) if step else env
        status, err = _aizac(["backup", "-p", "saga"], trial, kill_after=after)
        assert status in (0, -9), (step, after, SEED, err)
        assert "Traceback" not in err, err
        assert fingerprint(folder) == before, (step, after, SEED)  # the source is untouched
        for found in backups(folder):  # every backup there is whole
            manifest = verify(found)
            assert manifest.project == "saga"
    assert _aizac(["backup", "-p", "saga"], env)[0] == 0
    leftovers = [p.name for p in backups_dir(folder).iterdir() if p.name.startswith(".")]
    assert leftovers == [], leftovers  # a killed backup's temporary files are cleaned
    assert make_studio().check("saga").ok


def _state(studio: Studio, name: str) -> tuple[int, int, int]:
    """(accepted beats, memories, turn) of the project: what a half restore would mix."""
    report = studio.check(name)
    assert report.ok, [(f.kind, str(f.text)) for f in report.findings]
    agent = studio.open(name)
    state = (len(agent.store.beats(status="accepted")), len(agent.memory.all()),
             agent.memory.turn)
    studio.close()
    return state


def test_a_restore_killed_anywhere_is_all_or_nothing_and_never_harms_the_backup(
    tmp_path: Path, make_studio: Callable[..., Studio], database_url: str | None
) -> None:
    folder = written(make_studio(), "saga", beats=2)
    older = make_studio().backup("saga").path  # the state to restore: two beats
    moving = make_studio()
    agent = moving.open("saga")
    agent.accept(agent.next_beat().id)  # the project moves on: three beats
    moving.close()
    del agent
    newer = make_studio().backup("saga").path
    settle(folder)
    one = _state(make_studio(), "saga")
    settle(folder)
    sha = digest(older)
    env = _env(tmp_path, database_url)
    make_studio().restore(older)
    settle(folder)
    two = _state(make_studio(), "saga")
    assert two != one and two[0] == one[0] - 1
    make_studio().restore(newer)
    settle(folder)
    took = _timed(["restore", str(older)], env)
    make_studio().restore(newer)
    settle(folder)

    rng = random.Random(SEED)
    steps = ["restore:staged", "restore:committed", "restore:aside", "restore:swapped"]
    if database_url is not None:
        steps.append("restore:rows")
    kills = [(s, None) for s in steps] + [("", rng.uniform(0.0, took * 1.1))
                                          for _ in range(RANDOM_KILLS)]
    seen = set()
    for step, after in kills:
        trial = _env(tmp_path, database_url, AIZAC_KILL_AT=step) if step else env
        status, err = _aizac(["restore", str(older)], trial, kill_after=after)
        assert status in (0, -9), (step, after, SEED, err)
        assert "Traceback" not in err, err
        studio = make_studio()
        assert [i.name for i in studio.projects()] == ["saga"]  # finishes what was left
        settle(folder)
        now = _state(make_studio(), "saga")
        assert now in (one, two), (step, after, SEED, now, one, two)  # never a mix
        seen.add(now)
        assert digest(older) == sha  # the backup is only read
        settle(folder)
        if now == two:
            make_studio().restore(newer)  # the next trial starts from three beats again
            settle(folder)
    assert two in seen  # a restore killed after its commit is finished by the next look
    assert not [p for p in (tmp_path / "data" / "projects").iterdir()
                if p.name.startswith(".restore.") and not p.name.endswith(".lock")]
