"""Is the dict-backed test memory worth keeping? The writer tests' scenario on each memory.

The same scenario as a typical writer test (a fresh memory and agent, the plot, three beats
designed and accepted) runs on tests.fakes.DictMemory with its context builder and on
the real WriterMemory (Chroma on a temporary directory, or in memory) with the real context
builder; models are the tests' fake chat models. Prints the median wall time per scenario and
the ratio to DictMemory.

    python bench/fake_memory.py            # 5 runs each
    python bench/fake_memory.py --runs 9
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aizac.cliches import ClicheDB
from aizac.llm.embeddings import HashingEmbeddings
from aizac.llm.router import ModelRouter
from aizac.memory import WriterMemory
from aizac.settings import Settings
from aizac.writer.agent import WriterAgent
from aizac.writer.project import ProjectStore
from tests.fakes import DictMemory, fake_context, fake_models

Setup = Callable[[Path, Settings], tuple[Any, Any]]


def dict_memory(tmp: Path, settings: Settings) -> tuple[Any, Any]:
    return DictMemory(), fake_context


def chroma_on_disk(tmp: Path, settings: Settings) -> tuple[Any, Any]:
    memory = WriterMemory(tmp / "memory", embeddings=HashingEmbeddings(), settings=settings)
    return memory, None


def chroma_in_memory(tmp: Path, settings: Settings) -> tuple[Any, Any]:
    return WriterMemory(None, embeddings=HashingEmbeddings(), settings=settings), None


def scenario(setup: Setup, cliches: ClicheDB) -> tuple[float, float]:
    """(seconds to build the memory, seconds for plot + three accepted beats)."""
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        settings = Settings(data_dir=tmp / "data", language="en", structured_retries=1)
        store = ProjectStore.create(tmp / "projects", "novel", language="en",
                                    genre="modern fantasy", keywords=["회귀", "복수"])
        t0 = time.perf_counter()
        memory, context = setup(tmp, settings)
        t1 = time.perf_counter()
        router = ModelRouter(settings, models=dict(fake_models()))
        agent = WriterAgent(store, memory, router, cliches, settings=settings,
                            context_builder=context)
        agent.plan()
        for _ in range(3):
            agent.accept(agent.next_beat().id)
        t2 = time.perf_counter()
        return t1 - t0, t2 - t1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    from smoke import parse_args  # bench/smoke.py: the --smoke size

    args = parse_args(parser, runs=1)
    cliches = ClicheDB(embeddings=HashingEmbeddings())
    setups: dict[str, Setup] = {
        "DictMemory (fake)": dict_memory,
        "WriterMemory, tmp dir": chroma_on_disk,
        "WriterMemory, in memory": chroma_in_memory,
    }
    scenario(dict_memory, cliches)  # warm imports and the cliché DB
    scenario(chroma_in_memory, cliches)
    rows = []
    for name, setup in setups.items():
        runs = [scenario(setup, cliches) for _ in range(args.runs)]
        build = statistics.median(r[0] for r in runs)
        total = statistics.median(r[0] + r[1] for r in runs)
        rows.append((name, build, total))
    base = rows[0][2]
    print(f"median of {args.runs} runs: build memory, then plot + 3 accepted beats (fake models)")
    print(f"{'memory':<26}{'build s':>10}{'scenario s':>12}{'x fake':>9}")
    for name, build, total in rows:
        print(f"{name:<26}{build:>10.3f}{total:>12.3f}{total / base:>9.2f}")


if __name__ == "__main__":
    main()
