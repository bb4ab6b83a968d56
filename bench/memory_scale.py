"""WriterMemory at 1k / 10k / 100k memories, measured side by side with raw Chroma.

Run:  python bench/memory_scale.py                  # 1k, 10k, 100k (about 10-15 minutes)
      python bench/memory_scale.py --sizes 1000,5000  # quick
      python bench/memory_scale.py --cache          # build each store once, reuse it later
      python bench/memory_scale.py --before DIR     # also WriterMemory from the tree DIR

Each size runs fresh worker processes on the same deterministic synthetic story (same texts,
vectors, metadata), one after the other: ``raw`` (plain ``chromadb`` with the metadata
WriterMemory writes, plus the seed design's per-turn aging) and ``ours`` (WriterMemory; with
``--before DIR`` a second ``ours`` imports ``aizac`` from ``DIR``). Both use an embedded
``PersistentClient``: in a temporary directory, or with ``--cache`` in a folder per side and
size that is built once (its ``built.json`` keeps the build's figures) and reused by later runs.

What is timed, and what is not:
* Embeddings are precomputed with the default ``HashingEmbeddings`` outside every timing and
  handed to both sides (WriterMemory gets them through a lookup ``Embeddings``); the embedding
  time is printed separately. Queries are embedded inside the recall timing.
* Ingest: batches of 1,000 memories (``stage()`` + ``commit()`` vs ``collection.add``), the story
  turn moving 100 turns per batch (10 memories per turn) so ages spread as in a real run.
* ``advance()``: median and p95 of 200 calls; documents written is checked by comparing the
  metadata of 2,000 memories before and after. Seed design: one turn of ``time += 1`` on every
  document (read every ``time`` and write it back, in pages of 500).
* Recall: median and p95 of N queries ``recall(q, k=5, where={"character_name": c},
  tag="Story")`` with reinforcement on (the default) and off, at the story's last turn;
  ``relation(a, b)`` of pairs that have a live relation, and ``character_state(c)``. Raw
  Chroma answers the same question with its filtered ``query``.
* Peak RSS (``ru_maxrss``) of each worker: "built" once the store is built (a reused store:
  the figure of the run that built it), "served" after ``advance()`` and the recalls (an open
  of the built store and its serving). Checks that read the whole store run after it is read;
  then ``all()`` (the inspector's read of every memory) and the peak after it ("all()").
  The growth per 1,000 memories between the smallest and the largest size is printed for
  both sides (issue 41: aizac's within 1.3x raw Chroma's).
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
DEFAULT_CACHE = "~/.cache/aizac-bench/memory_scale"
ADVANCES = 200
"""``advance()`` calls timed per size (enough for a p95 that is not the slowest call)."""
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


SAMPLE = 2000
"""Memories whose metadata is compared before and after ``advance()`` (read in pages of 500:
the check reads no more than it needs, so it does not weigh on RSS or time at 100k+)."""


def _tree() -> str:
    import aizac

    return str(Path(aizac.__file__).resolve().parents[1])


def _sample_digests(col: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for offset in range(0, SAMPLE, 500):
        got = col.get(limit=500, offset=offset, include=["metadatas"])
        out.update({i: _digest(m) for i, m in zip(got["ids"], got["metadatas"] or [], strict=True)})
    return out


def _cached(cache: str | None, label: str, n: int) -> tuple[Path | None, dict[str, Any] | None]:
    """The store folder of ``label`` at ``n`` under ``cache`` and what its build measured
    (``None`` until one build finished there); without ``cache``: ``(None, None)``."""
    if not cache:
        return None, None
    folder = Path(cache).expanduser() / f"{label}-{n}"
    marker = folder / "built.json"
    return folder, (json.loads(marker.read_text()) if marker.exists() else None)


def _built(folder: Path | None, figures: dict[str, Any]) -> None:
    if folder is not None:
        (folder / "built.json").write_text(json.dumps(figures))


def _raw_metas(items: list[dict[str, Any]], start: int, batch: int) -> list[dict[str, Any]]:
    from aizac.memory.records import MemoryFields, build_metadata
    from aizac.settings import Settings

    strengths = Settings().tag_strengths()
    metas = []
    for it in items[start : start + BATCH]:
        fields = {k: v for k, v in it.items() if k not in ("text", "tag")}
        metas.append(build_metadata(it["tag"], MemoryFields.of(strengths[it["tag"]], **fields),
                                    turn=batch * TURNS_PER_BATCH, threshold=1.0))
    return metas


def worker_raw(n: int, queries: int, cache: str | None, label: str) -> dict[str, Any]:
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    from aizac.llm.embeddings import HashingEmbeddings

    items = story(n)
    folder, built = _cached(cache, label, n)
    with tempfile.TemporaryDirectory() as tmp:
        path = folder or Path(tmp)
        client = chromadb.PersistentClient(
            path=str(path), settings=ChromaSettings(anonymized_telemetry=False)
        )
        col = client.get_or_create_collection(
            "raw-bench", embedding_function=None, configuration={"hnsw": {"space": "cosine"}}
        )
        if built is None:
            if col.count():
                client.delete_collection("raw-bench")  # a build cut short: start again
                col = client.create_collection(
                    "raw-bench", embedding_function=None,
                    configuration={"hnsw": {"space": "cosine"}},
                )
            vectors = Vectors(items)
            ingest_s = 0.0
            for b, start in enumerate(range(0, n, BATCH)):
                chunk = items[start : start + BATCH]
                metas = _raw_metas(items, start, b)
                ids = [f"r{start + j}" for j in range(len(chunk))]
                embs = [vectors.get(it["text"]) for it in chunk]
                docs = [it["text"] for it in chunk]
                t = time.perf_counter()
                col.add(ids=ids, embeddings=embs, metadatas=metas, documents=docs)  # type: ignore[arg-type]
                ingest_s += time.perf_counter() - t
            built = {"embed_s": vectors.seconds, "ingest_s": ingest_s, "rss_build": _rss_mb()}
            del vectors
            _built(folder, built)
        cached = _rss_mb()
        # Serving: the same filtered question as ours (a character's live Story memories),
        # asked of raw Chroma with its own filter.
        emb = HashingEmbeddings()
        turn = (n // BATCH) * TURNS_PER_BATCH
        rng = random.Random(11)
        rec = []
        for _ in range(queries):
            c = rng.choice(CAST)
            q = f"what did {c} do with {rng.choice(OBJECTS)} at the {rng.choice(PLACES)}?"
            t = time.perf_counter()
            where: Any = {"$and": [{"character_name": c}, {"tag": "Story"},
                                   {"live_until": {"$gte": turn}}]}
            col.query(query_embeddings=[emb.embed_one(q)], n_results=5, where=where,  # type: ignore[arg-type]
                      include=["documents", "metadatas", "distances"])
            rec.append(time.perf_counter() - t)
        rss_serve = _rss_mb()
        # The seed design (after RSS is read): every turn, every document's `time` goes up by
        # one (pages of 500; in a cached store the times only go on growing).
        t = time.perf_counter()
        for start in range(0, n, 500):
            got = col.get(limit=500, offset=start, include=["metadatas"])
            times = [int(m.get("time", 0) or 0) + 1 for m in got["metadatas"] or []]  # type: ignore[arg-type]
            col.update(ids=got["ids"], metadatas=[{"time": v} for v in times])
        seed_s = time.perf_counter() - t
    return {
        "n": n, **built, "cached": cached, "seed_s": seed_s, "tree": _tree(),
        "query_ms": statistics.median(rec) * 1000, "query_p95_ms": _p95(rec) * 1000,
        "rss_serve": rss_serve,
    }


def worker_ours(n: int, queries: int, cache: str | None, label: str) -> dict[str, Any]:
    from langchain_core.embeddings import Embeddings

    from aizac.llm.embeddings import HashingEmbeddings
    from aizac.memory import WriterMemory

    items = story(n)
    folder, built = _cached(cache, label, n)
    fallback = HashingEmbeddings()
    vectors: Vectors | None = None

    class Precomputed(Embeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            found = [vectors.get(t) if vectors is not None else None for t in texts]
            return [v or fallback.embed_one(t) for v, t in zip(found, texts, strict=True)]

        def embed_query(self, text: str) -> list[float]:
            return fallback.embed_one(text)

    with tempfile.TemporaryDirectory() as tmp:
        path = folder or Path(tmp)
        if built is None and folder is not None and folder.exists():
            import shutil

            shutil.rmtree(folder)  # a build cut short: start again
        mem = WriterMemory(path=path, collection="ours-bench", embeddings=Precomputed())
        if built is None:
            vectors = Vectors(items)
            in_chroma = [0.0]
            real_add = mem.collection.add

            def timed_add(*args: Any, **kwargs: Any) -> Any:
                t = time.perf_counter()
                try:
                    return real_add(*args, **kwargs)
                finally:
                    in_chroma[0] += time.perf_counter() - t

            mem.collection.add = timed_add  # bench only: how much of ingest is Chroma's add
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
            mem.collection.add = real_add
            built = {"embed_s": vectors.seconds, "ingest_s": ingest_s,
                     "own_s": ingest_s - in_chroma[0], "rss_build": _rss_mb()}
            vectors = None
            _built(folder, built)
        cached = _rss_mb()
        before = _sample_digests(mem.collection)
        turn0 = mem.turn
        adv = []
        for _ in range(ADVANCES):
            t = time.perf_counter()
            mem.advance(1)
            adv.append(time.perf_counter() - t)
        after = _sample_digests(mem.collection)
        written = sum(1 for mid, meta in before.items() if after.get(mid) != meta)
        mem.set_turn(turn0)
        rng = random.Random(11)
        pairs = sorted(  # relations of the last batch: written at the last turns, live
            {(it["character1"], it["character2"]) for it in items[-BATCH:]
             if it["tag"] == "CharacterRelation"}
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
            if pairs:
                a, b = rng.choice(pairs)  # a pair that has a live relation
                t = time.perf_counter()
                found = mem.relation(b, a)
                rel.append(time.perf_counter() - t)
                assert found is not None
            t = time.perf_counter()
            mem.character_state(c)
            state.append(time.perf_counter() - t)
        rss_serve = _rss_mb()
        stored = len(mem)
        # After the serving RSS is read: the inspector's read of every memory, and its peak.
        mem.all()
        rss_all = _rss_mb()
        live = len(mem.get_where(None))
        mem.close()
    return {
        "n": n, **built, "cached": cached, "tree": _tree(),
        "stored": stored,
        "live": live,
        "advance_ms": statistics.median(adv) * 1000,
        "advance_p95_ms": _p95(adv) * 1000,
        "advance_written": written,
        "recall_ms": statistics.median(rec) * 1000,
        "recall_p95_ms": _p95(rec) * 1000,
        "recall_plain_ms": statistics.median(rec_plain) * 1000,
        "recall_hits": statistics.mean(sizes),
        "relation_ms": statistics.median(rel) * 1000 if rel else float("nan"),
        "state_ms": statistics.median(state) * 1000,
        "rss_serve": rss_serve,
        "rss_all": rss_all,
    }


def _run_worker(kind: str, n: int, args: argparse.Namespace, aizac: str = "") -> dict[str, Any]:
    label = kind + ("-before" if aizac else "")
    cmd = [sys.executable, __file__, "--worker", kind, "--n", str(n), "--queries",
           str(args.queries), "--label", label, "--cache", args.cache or ""]
    if aizac:
        cmd += ["--aizac", aizac]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise SystemExit(f"worker {label} {n} failed:\n{out.stderr}")
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def _growth(rows: list[tuple[int, dict[str, Any]]], key: str) -> float:
    """MB per 1,000 memories between the smallest and the largest size."""
    (n0, first), (n1, last) = rows[0], rows[-1]
    return float((last[key] - first[key]) / ((n1 - n0) / 1000))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,10000,100000", help="comma-separated sizes")
    ap.add_argument("--queries", type=int, default=30, help="recall queries per size")
    ap.add_argument("--cache", nargs="?", const=DEFAULT_CACHE, default="",
                    help="build each store once into this folder (default "
                         f"{DEFAULT_CACHE}) and reuse it on later runs")
    ap.add_argument("--before", default="", metavar="DIR",
                    help="also run WriterMemory from the aizac tree in DIR (a checkout: "
                         "DIR/aizac), side by side")
    ap.add_argument("--worker", choices=["raw", "ours"], help=argparse.SUPPRESS)
    ap.add_argument("--n", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--label", default="", help=argparse.SUPPRESS)
    ap.add_argument("--aizac", default="", help=argparse.SUPPRESS)
    from smoke import parse_args  # bench/smoke.py: the --smoke size

    args = parse_args(ap, sizes="300", queries=3)
    if args.worker:
        work = worker_raw if args.worker == "raw" else worker_ours
        print(json.dumps(work(args.n, args.queries, args.cache or None, args.label)))
        return
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    before = str(Path(args.before).resolve()) if args.before else ""
    rows: list[tuple[int, dict[str, Any], dict[str, Any], dict[str, Any] | None]] = []
    t0 = time.perf_counter()
    for n in sizes:
        raw = _run_worker("raw", n, args)
        ours = _run_worker("ours", n, args)
        old = _run_worker("ours", n, args, before) if before else None
        rows.append((n, raw, ours, old))
        print(f"... {n} done ({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
    old0 = rows[0][3]
    trees = {"aizac": rows[0][2]["tree"]} | ({"before": old0["tree"]} if old0 else {})
    print("aizac imported from: " + ", ".join(f"{k} {v}" for k, v in trees.items()))
    if args.cache:
        print(f"stores cached in {Path(args.cache).expanduser()} (a reused store: its build "
              "figures are those of the run that built it)\n")
    head = (
        "| memories | live | advance() ms | docs written (of 2,000) | seed time+=1 s "
        "| seed/advance | ingest ours/s | ingest raw/s | overhead | own work "
        "| recall ms (char+tag) | same, no reinforce ms | relation() ms "
        "| character_state() ms | embed s |"
    )
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for n, raw, ours, _old in rows:
        ours_rate = n / ours["ingest_s"]
        raw_rate = n / raw["ingest_s"]
        print(
            f"| {n:,} | {ours['live']:,} | {ours['advance_ms']:.2f} | {ours['advance_written']} "
            f"| {raw['seed_s']:.2f} | {raw['seed_s'] * 1000 / ours['advance_ms']:,.0f}x "
            f"| {ours_rate:,.0f} | {raw_rate:,.0f} | {(raw_rate / ours_rate - 1) * 100:+.1f}% "
            f"| {ours['own_s'] / raw['ingest_s'] * 100:.1f}% "
            f"| {ours['recall_ms']:.2f} | {ours['recall_plain_ms']:.2f} "
            f"| {ours['relation_ms']:.2f} | {ours['state_ms']:.2f} | {ours['embed_s']:.1f} |"
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
    # issue 41 goal 3: RSS side by side. "built": the peak of the process that built the store
    # (same vectors, hash embeddings); "served": the peak once advance() and recalls ran
    # (the whole-store checks run after it is read).
    old_cols = " | before: built / served / all() MB" if before else ""
    print(f"\n| memories | raw Chroma: built / served MB | aizac: built / served / all() MB"
          f"{old_cols} |")
    print("|---|---|---|" + ("---|" if before else ""))
    for n, raw, ours, old in rows:
        extra = (f" | {old['rss_build']:.0f} / {old['rss_serve']:.0f} / "
                 f"{old.get('rss_all', 0):.0f}") if old else ""
        print(f"| {n:,} | {raw['rss_build']:.0f} / {raw['rss_serve']:.0f} "
              f"| {ours['rss_build']:.0f} / {ours['rss_serve']:.0f} / {ours['rss_all']:.0f}"
              f"{extra} |")
    if len(rows) > 1:
        def per_k(side: int, key: str) -> float:
            return _growth([(r[0], r[side]) for r in rows], key)  # type: ignore[misc]

        for key, what in (("rss_build", "built"), ("rss_serve", "served")):
            raw_k, ours_k = per_k(1, key), per_k(2, key)
            line = (f"peak RSS per 1,000 memories, {what} ({rows[0][0]:,} -> {rows[-1][0]:,}): "
                    f"aizac {ours_k:.1f} MB, raw Chroma {raw_k:.1f} MB, "
                    f"{ours_k / raw_k if raw_k > 0 else float('inf'):.2f}x (target <= 1.3x)")
            if before:
                old_k = per_k(3, key)
                line += f"; before {old_k:.1f} MB, {old_k / raw_k if raw_k > 0 else 0:.2f}x"
            print(line)
    old_cols = " | before: advance p50 / p95 | before: recall p50 / p95" if before else ""
    print(f"\n| memories | advance() p50 / p95 ms | recall p50 / p95 ms "
          f"| raw Chroma filtered query p50 / p95 ms{old_cols} |")
    print("|---|---|---|---|" + ("---|---|" if before else ""))
    for n, raw, ours, old in rows:
        extra = (f" | {old['advance_ms']:.2f} / {old['advance_p95_ms']:.2f} "
                 f"| {old['recall_ms']:.2f} / {old['recall_p95_ms']:.2f}") if old else ""
        print(f"| {n:,} | {ours['advance_ms']:.2f} / {ours['advance_p95_ms']:.2f} "
              f"| {ours['recall_ms']:.2f} / {ours['recall_p95_ms']:.2f} "
              f"| {raw['query_ms']:.2f} / {raw['query_p95_ms']:.2f}{extra} |")
    print("(targets: advance() p95 <= 5 ms, recall p95 <= 150 ms)")
    print(f"total bench time {time.perf_counter() - t0:.0f} s")


def _aizac_tree() -> str:
    """The tree whose ``aizac`` a worker imports: ``--aizac DIR`` (``--before``), else this
    checkout's."""
    if "--aizac" in sys.argv:
        return str(Path(sys.argv[sys.argv.index("--aizac") + 1]).resolve())
    return str(Path(__file__).resolve().parents[1])


if __name__ == "__main__":
    sys.path.insert(0, _aizac_tree())
    main()
