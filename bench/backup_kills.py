"""`aizac backup` and `aizac restore` killed with SIGKILL at random moments (issue 37): what each
kill left, counted.

One embedded project (SQLite rows, embedded Chroma, hash embeddings, no model) is made with
``--memories`` memories and backed up (backup A); more memories are then written (state B).

* **backup**: ``aizac backup`` runs in a child process that is killed a random time into its
  run (0 to 1.1 times an unkilled run); after each kill the project's files are compared byte
  for byte with before, and every backup file there is verified against its manifest.
* **restore**: ``aizac restore A`` runs over state B in a child killed the same way; after each
  kill the next Studio looks (it finishes a restore killed after its commit), and the project
  must be exactly A or exactly B, the backup file unchanged. A trial that ends at A is followed
  by an (unkilled) restore of B's backup.

Usage::

    python bench/backup_kills.py [--kills 20] [--memories 600] [--seed N]

Prints one table: per command, kills sent, the outcomes, and the harms (every harm column must
be 0). Exits 1 when a harm was seen.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _fingerprint(folder: Path) -> dict[str, str]:
    """Every file's digest; lock files, shared-memory files and empty write-ahead logs aside
    (what a reader killed with the file open leaves: no content)."""
    out: dict[str, str] = {}
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or path.name in (".lock", ".owner", ".owner.lock",
                                               ".damaged.json"):
            continue
        if path.name.endswith("-shm") or (path.name.endswith("-wal")
                                          and path.stat().st_size == 0):
            continue
        out[str(path.relative_to(folder))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def _settle(folder: Path) -> None:
    """Drop this process's handles to the project's files (another process replaces them)."""
    from chromadb.api.shared_system_client import SharedSystemClient

    from aizac.storage.database import forget_folder

    gc.collect()
    forget_folder(folder)
    SharedSystemClient.clear_system_cache()


def _studio(data: Path) -> Any:
    from aizac.cliches import ClicheDB
    from aizac.llm.embeddings import HashingEmbeddings
    from aizac.settings import Settings
    from aizac.writer.service import Studio

    settings = Settings(data_dir=data, language="en", embedding="hash")
    return Studio(settings, embeddings=HashingEmbeddings(),
                  cliches=ClicheDB(data / "cliches", embeddings=HashingEmbeddings()))


def _write(data: Path, first: int, count: int) -> None:
    """``count`` memories more in project ``saga`` (made when ``first`` is 0)."""
    from aizac.llm.embeddings import HashingEmbeddings
    from aizac.memory import WriterMemory
    from aizac.settings import Settings
    from aizac.writer.project import ProjectStore

    settings = Settings(data_dir=data, language="en", embedding="hash")
    if first == 0:
        store = ProjectStore.create(data / "projects", "saga", language="en", keywords=["gate"])
    else:
        store = ProjectStore.open(data / "projects", "saga")
    memory = WriterMemory(store.memory_dir, embeddings=HashingEmbeddings(), settings=settings)
    for start in range(first, first + count, 60):
        batch = memory.stage()
        for i in range(start, min(first + count, start + 60)):
            batch.note(f"Fact {i}: the Jade Gate opened at dawn for the heir.", "Story")
        batch.commit()
    memory.release()
    del memory, store
    _settle(data / "projects" / "saga")


def _state(data: Path) -> tuple[bool, int] | None:
    """(whether every store reads whole, memories) of the project; ``None`` when it is not
    listed. (The invariant checker's findings aside: memories written without beats are
    orphans to it, in A and in B alike.)"""
    studio = _studio(data)
    if [i.name for i in studio.projects()] != ["saga"]:
        return None
    ok = all(f.kind == "invariant" for f in studio.check("saga").findings)
    agent = studio.open("saga")
    count = len(agent.memory.all())
    studio.close()
    del agent, studio
    _settle(data / "projects" / "saga")
    return ok, count


def _aizac(args: list[str], data: Path, kill_after: float | None) -> tuple[int, float]:
    """Run ``aizac *args`` in a child, SIGKILLed ``kill_after`` seconds in if still running;
    (its exit status, seconds)."""
    env = {**os.environ, "AIZAC_DATA_DIR": str(data), "AIZAC_EMBEDDING": "hash",
           "AIZAC_DISCOVER": "false", "PYTHONPATH": str(ROOT)}
    started = time.monotonic()
    child = subprocess.Popen([sys.executable, "-c", "from aizac.cli import main; main()", *args],
                             env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if kill_after is not None:
        try:
            child.wait(timeout=kill_after)
        except subprocess.TimeoutExpired:
            child.send_signal(signal.SIGKILL)
    _, err = child.communicate(timeout=600)
    if child.returncode not in (0, -signal.SIGKILL):
        sys.stderr.write(err.decode(errors="replace"))
    return child.returncode, time.monotonic() - started


def _backup_trials(data: Path, kills: int, rng: random.Random) -> Counter[str]:
    from aizac.errors import AizacError
    from aizac.upkeep.archive import verify
    from aizac.upkeep.layout import backups, backups_dir

    folder = data / "projects" / "saga"
    before = _fingerprint(folder)
    status, took = _aizac(["backup", "-p", "saga"], data, None)
    assert status == 0
    seen: Counter[str] = Counter()
    for _ in range(kills):
        count = len(backups(folder))
        status, _ = _aizac(["backup", "-p", "saga"], data, rng.uniform(0.0, took * 1.1))
        seen["killed" if status == -signal.SIGKILL else "finished" if status == 0
             else "failed"] += 1
        seen["a whole new backup" if len(backups(folder)) > count else "no new backup"] += 1
        for found in backups(folder):
            try:
                verify(found)
            except AizacError:
                seen["HARM: a broken backup"] += 1
        if _fingerprint(folder) != before:
            seen["HARM: the project changed"] += 1
    _aizac(["backup", "-p", "saga"], data, None)  # cleans what killed ones left
    if [p for p in backups_dir(folder).iterdir() if p.name.startswith(".")]:
        seen["HARM: leftovers after a next backup"] += 1
    return seen


def _restore_trials(data: Path, older: Path, newer: Path, states: tuple[Any, Any],
                    kills: int, rng: random.Random) -> Counter[str]:
    from aizac.upkeep.archive import digest

    sha = digest(older)
    old_state, new_state = states
    folder = data / "projects" / "saga"
    status, took = _aizac(["restore", str(older)], data, None)
    assert status == 0 and _state(data) == old_state
    _aizac(["restore", str(newer)], data, None)
    assert _state(data) == new_state
    seen: Counter[str] = Counter()
    for _ in range(kills):
        status, _ = _aizac(["restore", str(older)], data, rng.uniform(0.0, took * 1.1))
        seen["killed" if status == -signal.SIGKILL else "finished" if status == 0
             else "failed"] += 1
        now = _state(data)
        if now == old_state:
            seen["as the backup (all)"] += 1
            _aizac(["restore", str(newer)], data, None)
        elif now == new_state:
            seen["as it was (nothing)"] += 1
        else:
            seen[f"HARM: a mix or a loss {now}"] += 1
            break
        if digest(older) != sha:
            seen["HARM: the backup changed"] += 1
        _settle(folder)
    left = [p.name for p in (data / "projects").iterdir()
            if p.name.startswith(".restore.") and not p.name.endswith(".lock")]
    if left:
        seen["HARM: staging left after a next look"] += 1
    return seen


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n", 1)[0])
    parser.add_argument("--kills", type=int, default=20, help="kills per command")
    parser.add_argument("--memories", type=int, default=600)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    from smoke import parse_args  # bench/smoke.py: the --smoke size

    args = parse_args(parser, kills=1, memories=60)
    rng = random.Random(args.seed)
    data = Path(tempfile.mkdtemp(prefix="aizac-bench-kills-"))
    try:
        _write(data, 0, args.memories)
        studio = _studio(data)
        older = studio.backup("saga").path
        studio.close()
        _settle(data / "projects" / "saga")
        old_state = _state(data)
        _write(data, args.memories, 120)
        newer = _studio(data).backup("saga").path
        _settle(data / "projects" / "saga")
        new_state = _state(data)
        assert old_state != new_state and old_state and new_state and old_state[0]
        backed = _backup_trials(data, args.kills, rng)
        restored = _restore_trials(data, older, newer, (old_state, new_state), args.kills, rng)
    finally:
        shutil.rmtree(data, ignore_errors=True)
    harms = sum(n for c in (backed, restored) for k, n in c.items() if k.startswith("HARM"))
    print(f"\nseed {args.seed}; {args.memories} memories; load {os.getloadavg()[0]:.1f}\n")
    print("| command | kills sent | outcomes | harms |")
    print("|---|---|---|---|")
    for name, seen in (("backup", backed), ("restore", restored)):
        outcomes = ", ".join(f"{k}: {n}" for k, n in sorted(seen.items())
                             if not k.startswith("HARM"))
        harmed = ", ".join(f"{k[6:]}: {n}" for k, n in seen.items() if k.startswith("HARM"))
        print(f"| {name} | {args.kills} | {outcomes} | {harmed or 0} |")
    sys.exit(1 if harms else 0)


if __name__ == "__main__":
    main()
