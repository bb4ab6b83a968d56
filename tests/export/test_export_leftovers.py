"""A killed export leaves its hidden temporary file beside the target; the next export of that
file removes it (issue 37, item 5), and never a temporary file of an export still running."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from aizac.cliches import ClicheDB
from aizac.export.files import clean_leftovers
from aizac.llm.embeddings import HashingEmbeddings
from tests.writer.test_service_cli import studio_for


def test_the_next_export_removes_what_a_killed_one_left(tmp_path: Path) -> None:
    studio = studio_for(tmp_path / "data", ClicheDB(embeddings=HashingEmbeddings()))
    agent = studio.create("saga", "회귀", language="en")
    agent.plan()
    agent.accept(agent.next_beat().id)
    "".join(agent.write_prose())
    studio.close()
    out = tmp_path / "out"
    env = {**os.environ, "AIZAC_DATA_DIR": str(tmp_path / "data")}
    command = [sys.executable, "-c", "from aizac.cli import main; main()", "export", "-p", "saga",
               "-o", str(out / "saga.txt")]
    killed = subprocess.run(command, env={**env, "AIZAC_KILL_AT": "export:written"},
                            capture_output=True, text=True, timeout=300)
    assert killed.returncode == -9, killed.stderr
    left = [p.name for p in out.iterdir()]
    assert len(left) == 1 and left[0].startswith(".saga.txt.") and left[0].endswith(".tmp")
    (out / ".saga.txt.k3j_x9qa.tmp").write_bytes(b"an older version's leftover")
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in out.iterdir()) == ["saga.txt"]


def test_a_running_exports_temporary_file_is_left_alone(tmp_path: Path) -> None:
    target = tmp_path / "saga.txt"
    mine = tmp_path / f".saga.txt.{os.getpid()}-abc123xy.tmp"  # this process: running
    mine.write_bytes(b"half")
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        theirs = tmp_path / f".saga.txt.{sleeper.pid}-abc123xy.tmp"  # another one, running
        theirs.write_bytes(b"half")
        gone = subprocess.run([sys.executable, "-c", "pass"])  # a process that has ended
        dead = tmp_path / f".saga.txt.{os.getpid() + 400000}-abc123xy.tmp"
        dead.write_bytes(b"half")
        other = tmp_path / ".notes.txt.zzzzzzzz.tmp"  # another file's: not this export's
        other.write_bytes(b"x")
        assert gone.returncode == 0
        removed = clean_leftovers(target)
        assert removed == [dead]
        assert mine.exists() and theirs.exists() and other.exists()
    finally:
        sleeper.kill()
        sleeper.wait()
