"""How long `aizac check`, `aizac backup` and `aizac restore` take as a project grows (issue 37).

A project is made without a model: a plot row and ``N`` memories written through the real
``WriterMemory`` (hash embeddings, commits of 60) on embedded SQLite and Chroma; then, in this
process, the Studio's ``backup``, ``check`` and ``restore`` are timed (wall clock and CPU,
median of ``--runs``), with the backup's size and the project folder's. Usage::

    python bench/backup.py [--memories 300,3000] [--runs 3]

Prints one table (seconds; the load average beside it: the machine is shared).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _timed(work: Callable[[], object], runs: int) -> tuple[float, float]:
    walls, cpus = [], []
    for _ in range(runs):
        wall, cpu = time.perf_counter(), time.process_time()
        work()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def _project(data: Path, memories: int) -> Any:
    from aizac.cliches import ClicheDB
    from aizac.llm.embeddings import HashingEmbeddings
    from aizac.memory import WriterMemory
    from aizac.settings import Settings
    from aizac.writer.project import ProjectStore
    from aizac.writer.service import Studio

    settings = Settings(data_dir=data, language="en", embedding="hash")
    store = ProjectStore.create(data / "projects", "saga", language="en", keywords=["gate"])
    memory = WriterMemory(store.memory_dir, embeddings=HashingEmbeddings(), settings=settings)
    for start in range(0, memories, 60):
        batch = memory.stage()
        for i in range(start, min(memories, start + 60)):
            batch.note(f"Fact {i}: the Jade Gate opened at dawn for the heir.", "Story")
        batch.commit()
    memory.release()
    return Studio(settings, embeddings=HashingEmbeddings(),
                  cliches=ClicheDB(data / "cliches", embeddings=HashingEmbeddings()))


def _measure(count: int, runs: int) -> tuple[int, int, int, tuple[float, float],
                                             tuple[float, float], tuple[float, float]]:
    """(memories, folder bytes, backup bytes, backup, check, restore) of one project."""
    data = Path(tempfile.mkdtemp(prefix="aizac-bench-backup-"))
    try:
        studio = _project(data, count)
        folder = data / "projects" / "saga"
        made: list[Path] = []
        back = _timed(lambda: made.append(studio.backup("saga").path), runs)
        checked = _timed(lambda: studio.check("saga"), runs)
        restored = _timed(lambda: studio.restore(made[-1]), runs)
        return count, _size(folder), made[-1].stat().st_size, back, checked, restored
    finally:
        shutil.rmtree(data, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n", 1)[0])
    parser.add_argument("--memories", default="300,3000")
    parser.add_argument("--runs", type=int, default=3)
    from smoke import parse_args  # bench/smoke.py: the --smoke size

    args = parse_args(parser, memories="60", runs=1)
    rows = [_measure(int(n), args.runs) for n in args.memories.split(",")]
    load = os.getloadavg()[0]
    print(f"\nload {load:.1f}; median of {args.runs}; seconds wall (CPU)\n")
    print("| memories | folder MB | backup MB | backup | check | restore |")
    print("|---|---|---|---|---|---|")
    for count, folder_size, zipped, back, checked, restored in rows:
        print(f"| {count} | {folder_size / 1e6:.1f} | {zipped / 1e6:.1f} | "
              f"{back[0]:.2f} ({back[1]:.2f}) | {checked[0]:.2f} ({checked[1]:.2f}) | "
              f"{restored[0]:.2f} ({restored[1]:.2f}) |")


if __name__ == "__main__":
    main()
