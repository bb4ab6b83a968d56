"""WriterMemory at 1k / 10k / 100k memories, measured side by side with raw Chroma.

Run:  python bench/memory_scale.py                  # 1k, 10k, 100k (about 8-10 minutes)
      python bench/memory_scale.py --sizes 1000,5000  # quick

Each size runs two fresh worker processes on the same deterministic synthetic story (same
texts, vectors, metadata), one after the other: ``raw`` (plain ``chromadb`` with the metadata
WriterMemory writes, plus the seed design's per-turn aging) and ``ours`` (WriterMemory). Both use
an embedded ``PersistentClient`` in a temporary directory.

What is timed, and what is not:
* Embeddings are precomputed with the default ``HashingEmbeddings`` outside every timing and
  handed to both sides (WriterMemory gets them through a lookup ``Embeddings``); the embedding
  time is printed separately. Queries are embedded inside the recall timing.
* Ingest: batches of 1,000 memories (``stage()`` + ``commit()`` vs ``collection.add``), the story
  turn moving 100 turns per batch (10 memories per turn) so ages spread as in a real run.
* ``advance()``: median of 20 calls; documents written is checked by diffing the metadata of
  every memory before and after. Seed design: one turn of ``time += 1`` on every document
  (read every ``time`` and write it back, in Chroma's maximum batch size).
* Recall: median of N queries ``recall(q, k=5, where={"character_name": c}, tag="Story")`` with
  reinforcement on (the default) and off, at the story's last turn; ``relation(a, b)`` of pairs
  that have a live relation, and ``character_state(c)``. Keyed reads go through WriterMemory's
  exact-key index and fetch by id (Chroma's filtered reads grow with the collection).
* Peak RSS: ``ru_maxrss`` of the WriterMemory worker process.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BATCH = 1000
TURNS_PER_BATCH = 100
CAST = [
    f"{a}{b}"
    for a in ("Mi", "Ka", "Do", "Ri", "Se", "Ha", "Yu", "Jo", "Na", "Bo")
    for b in ("ra", "in", "hyun", "eun", "so")
]  # 50 characters
PLACES = ["harbour", "guild hall", "palace", "forest", "market", "tower", "gate", "cellar"]
VERBS = ["found", "lost", "stole", "burned", "hid", "sold", "guarded", "broke"]
OBJECTS = ["a map", "the key", "a letter", "the crown", "a sword", "the ledger", "a ring"]
ADJS = ["brave", "bitter", "quiet", "reckless", "loyal", "cunning", "wounded", "proud"]
REL = ["distrusts", "owes a debt to", "protects", "is engaged to", "hunts", "fears"]


def story(n: int, seed: int = 7) -> list[dict[str, Any]]:
    """``n`` synthetic memories (deterministic): 50% Story, 20% Character, 15% each other tag."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    for i in range(n):
        a, b = rng.sample(CAST, 2)
        place, obj, adj = rng.choice(PLACES), rng.choice(OBJECTS), rng.choice(ADJS)
        kind = i % 20
        common = {"chapter": i // 500, "beat": (i // 10) % 50, "pinned": i % 500 == 0}
        if kind < 10:
            text = f"{a} {rng.choice(VERBS)} {obj} at the {place} (event {i})."
            item = {"tag": "Story", "character_name": a, "keyword": place}
        elif kind < 14:
            text = f"{a} is {adj} and {rng.choice(ADJS)} since event {i}."
            item = {"tag": "Character", "character_name": a}
        elif kind < 17:
            text = f"{a} {rng.choice(REL)} {b} (event {i})."
            item = {"tag": "CharacterRelation", "character1": a, "character2": b}
        else:
            text = f"The {place} is {adj}; {obj} is kept there (fact {i})."
            item = {"tag": "NovelSetting", "keyword": place}
        out.append({"text": text, **item, **common})
    return out


class Vectors:
    """Precomputed vectors, kept as one float32 array (the harness should not dominate RSS)."""

    def __init__(self, items: list[dict[str, Any]]) -> None:
        import numpy as np

        from aizac.llm.embeddings import HashingEmbeddings

        t = time.perf_counter()
        emb = HashingEmbeddings()
        self.rows = {it["text"]: i for i, it in enumerate(items)}
        self.array = np.zeros((len(items), emb.dim), dtype=np.float32)
        for i, it in enumerate(items):
            self.array[i] = emb.embed_one(it["text"])
        self.seconds = time.perf_counter() - t

    def get(self, text: str) -> list[float] | None:
        row = self.rows.get(text)
        return None if row is None else self.array[row].tolist()


def _digest(meta: dict[str, Any]) -> int:
    return hash(tuple(sorted(meta.items())))


def _p95(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=20)[-1] if len(samples) > 1 else samples[0]


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def worker_raw(n: int) -> dict[str, Any]:
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    from aizac.memory.records import MemoryFields, build_metadata
    from aizac.settings import Settings

    items = story(n)
    vectors = Vectors(items)
    strengths = Settings().tag_strengths()
    with tempfile.TemporaryDirectory() as tmp:
        client = chromadb.PersistentClient(
            path=tmp, settings=ChromaSettings(anonymized_telemetry=False)
        )
        col = client.get_or_create_collection(
            "raw-bench", embedding_function=None, configuration={"hnsw": {"space": "cosine"}}
        )
        ingest_s = 0.0
        for b, start in enumerate(range(0, n, BATCH)):
            chunk = items[start : start + BATCH]
            metas = []
            for it in chunk:
                fields = {k: v for k, v in it.items() if k not in ("text", "tag")}
                metas.append(
                    build_metadata(
                        it["tag"],
                        MemoryFields.of(strengths[it["tag"]], **fields),
                        turn=b * TURNS_PER_BATCH,
                        threshold=1.0,
                    )
                )
            ids = [f"r{start + j}" for j in range(len(chunk))]
            embs = [vectors.get(it["text"]) for it in chunk]
            docs = [it["text"] for it in chunk]
            t = time.perf_counter()
            col.add(ids=ids, embeddings=embs, metadatas=metas, documents=docs)  # type: ignore[arg-type]
            ingest_s += time.perf_counter() - t
        # The seed design: every turn, every document's `time` goes up by one.
        limit = client.get_max_batch_size()
        t = time.perf_counter()
        for start in range(0, n, limit):
            got = col.get(limit=limit, offset=start, include=["metadatas"])
            metas_now = got["metadatas"] or []
            col.update(
                ids=got["ids"],
                metadatas=[{"time": int(m.get("time", 0) or 0) + 1} for m in metas_now],  # type: ignore[arg-type]
            )
        seed_s = time.perf_counter() - t
    return {
        "n": n,
        "embed_s": vectors.seconds,
        "ingest_s": ingest_s,
        "seed_s": seed_s,
        "rss": _rss_mb(),
    }


def worker_ours(n: int, queries: int) -> dict[str, Any]:
    from langchain_core.embeddings import Embeddings

    from aizac.llm.embeddings import HashingEmbeddings
    from aizac.memory import WriterMemory

    items = story(n)
    vectors = Vectors(items)
    fallback = HashingEmbeddings()

    class Precomputed(Embeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return [vectors.get(t) or fallback.embed_one(t) for t in texts]

        def embed_query(self, text: str) -> list[float]:
            return fallback.embed_one(text)

    with tempfile.TemporaryDirectory() as tmp:
        mem = WriterMemory(path=tmp, collection="ours-bench", embeddings=Precomputed())
        in_chroma = [0.0]
        real_add = mem.collection.add

        def timed_add(*args: Any, **kwargs: Any) -> Any:
            t = time.perf_counter()
            try:
                return real_add(*args, **kwargs)
            finally:
                in_chroma[0] += time.perf_counter() - t

        mem.collection.add = timed_add  # bench only: how much of ingest is Chroma's own add
        ingest_s = 0.0
        for start in range(0, n, BATCH):
            if start:
                mem.advance(TURNS_PER_BATCH)
            t = time.perf_counter()
            batch = mem.stage()
            for it in items[start : start + BATCH]:
                fields = {k: v for k, v in it.items() if k not in ("text", "tag")}
                batch.remember(it["text"], it["tag"], **fields)
            batch.commit()
            ingest_s += time.perf_counter() - t
        before = {h.id: _digest(h.metadata) for h in mem.all()}
        turn0 = mem.turn
        adv = []
        for _ in range(20):
            t = time.perf_counter()
            mem.advance(1)
            adv.append(time.perf_counter() - t)
        after = {h.id: _digest(h.metadata) for h in mem.all()}
        written = sum(1 for mid, meta in before.items() if after[mid] != meta)
        mem.set_turn(turn0)
        rng = random.Random(11)
        live = len(mem.get_where(None))
        pairs = sorted(
            {(h.metadata["character1"], h.metadata["character2"])
             for h in mem.get_where({"tag": "CharacterRelation"})}
        )  # fmt: skip
        rec, rec_plain, rel, state, sizes = [], [], [], [], []
        for _ in range(queries):
            c = rng.choice(CAST)
            q = f"what did {c} do with {rng.choice(OBJECTS)} at the {rng.choice(PLACES)}?"
            t = time.perf_counter()
            hits = mem.recall(q, k=5, where={"character_name": c}, tag="Story")
            rec.append(time.perf_counter() - t)
            t = time.perf_counter()
            mem.recall(q, k=5, where={"character_name": c}, tag="Story", reinforce=False)
            rec_plain.append(time.perf_counter() - t)
            sizes.append(len(hits))
            a, b = rng.choice(pairs)  # a pair that has a live relation
            t = time.perf_counter()
            found = mem.relation(b, a)
            rel.append(time.perf_counter() - t)
            assert found is not None
            t = time.perf_counter()
            mem.character_state(c)
            state.append(time.perf_counter() - t)
        stored = len(mem)
    return {
        "n": n,
        "stored": stored,
        "live": live,
        "embed_s": vectors.seconds,
        "ingest_s": ingest_s,
        "own_s": ingest_s - in_chroma[0],
        "advance_ms": statistics.median(adv) * 1000,
        "advance_p95_ms": _p95(adv) * 1000,
        "advance_written": written,
        "recall_ms": statistics.median(rec) * 1000,
        "recall_p95_ms": _p95(rec) * 1000,
        "recall_plain_ms": statistics.median(rec_plain) * 1000,
        "recall_hits": statistics.mean(sizes),
        "relation_ms": statistics.median(rel) * 1000,
        "state_ms": statistics.median(state) * 1000,
        "rss": _rss_mb(),
    }


def _run_worker(kind: str, n: int, queries: int) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--worker", kind, "--n", str(n), "--queries", str(queries)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise SystemExit(f"worker {kind} {n} failed:\n{out.stderr}")
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,10000,100000", help="comma-separated sizes")
    ap.add_argument("--queries", type=int, default=30, help="recall queries per size")
    ap.add_argument("--worker", choices=["raw", "ours"], help=argparse.SUPPRESS)
    ap.add_argument("--n", type=int, help=argparse.SUPPRESS)
    from smoke import parse_args  # bench/smoke.py: the --smoke size

    args = parse_args(ap, sizes="300", queries=3)
    if args.worker:
        res = worker_raw(args.n) if args.worker == "raw" else worker_ours(args.n, args.queries)
        print(json.dumps(res))
        return
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    rows = []
    t0 = time.perf_counter()
    for n in sizes:
        raw = _run_worker("raw", n, args.queries)
        ours = _run_worker("ours", n, args.queries)
        rows.append((n, raw, ours))
        print(f"... {n} done ({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
    head = (
        "| memories | live | advance() ms | docs written | seed time+=1 s | seed/advance "
        "| ingest ours/s | ingest raw/s | overhead | own work | recall ms (char+tag) "
        "| same, no reinforce ms | relation() ms | character_state() ms "
        "| embed s | peak RSS MB ours / raw |"
    )
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for n, raw, ours in rows:
        ours_rate = n / ours["ingest_s"]
        raw_rate = n / raw["ingest_s"]
        print(
            f"| {n:,} | {ours['live']:,} | {ours['advance_ms']:.2f} | {ours['advance_written']} "
            f"| {raw['seed_s']:.2f} | {raw['seed_s'] * 1000 / ours['advance_ms']:,.0f}x "
            f"| {ours_rate:,.0f} | {raw_rate:,.0f} | {(raw_rate / ours_rate - 1) * 100:+.1f}% "
            f"| {ours['own_s'] / raw['ingest_s'] * 100:.1f}% "
            f"| {ours['recall_ms']:.2f} | {ours['recall_plain_ms']:.2f} "
            f"| {ours['relation_ms']:.2f} | {ours['state_ms']:.2f} | {ours['embed_s']:.1f} "
            f"| {ours['rss']:.0f} / {raw['rss']:.0f} |"
        )
    if len(rows) > 1:
        first, last = rows[0], rows[-1]

        def ratio(key: str) -> float:
            return float(last[2][key] / first[2][key])

        print(
            f"\nmedian at {last[0]:,} vs {first[0]:,} (target < 3x): "
            f"recall {ratio('recall_ms'):.1f}x, recall without reinforcement "
            f"{ratio('recall_plain_ms'):.1f}x, relation() {ratio('relation_ms'):.1f}x, "
            f"character_state() {ratio('state_ms'):.1f}x"
        )
        # issue 41 goal 3: the growth of peak RSS per 1,000 memories, ours beside raw Chroma's
        grown = (last[0] - first[0]) / 1000
        ours_k = (last[2]["rss"] - first[2]["rss"]) / grown
        raw_k = (last[1]["rss"] - first[1]["rss"]) / grown
        print(
            f"peak RSS per 1,000 memories ({first[0]:,} -> {last[0]:,}): ours {ours_k:.1f} MB, "
            f"raw Chroma {raw_k:.1f} MB, {ours_k / raw_k if raw_k > 0 else float('inf'):.2f}x "
            "(target <= 1.3x)"
        )
    print("\n| memories | advance() p50 / p95 ms | recall p50 / p95 ms |")
    print("|---|---|---|")
    for n, _raw, ours in rows:
        print(f"| {n:,} | {ours['advance_ms']:.2f} / {ours['advance_p95_ms']:.2f} "
              f"| {ours['recall_ms']:.2f} / {ours['recall_p95_ms']:.2f} |")
    print(f"total bench time {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    main()
