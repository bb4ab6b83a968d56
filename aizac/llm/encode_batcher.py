"""A micro-batching front for an embedding engine: encodes asked for at once, from different
threads, share engine calls.

In ``aizac serve`` every writer's accept embeds its memories from its own thread. Without a
front each of those calls goes into the engine on its own; with :class:`EncodeBatcher` the
calls that arrive together wait in one queue, and a worker takes everything waiting of the same
kind (queries or passages, up to ``max_texts`` texts, gathering for at most ``max_wait_s`` after
the first) and makes one engine call of it. Each caller gets back its own rows, in its order; an
engine error reaches every caller of that engine call. Texts asked for twice in one batch are
embedded once.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import Any

from aizac.errors import EmbeddingError

Encode = Callable[[list[str], bool], Sequence[Any]]
"""An engine call: texts and whether they are queries, one row per text in their order."""


@dataclass
class _Request:
    texts: list[str]
    query: bool
    future: Future[list[Any]] = field(default_factory=Future)


_STOP = object()


class EncodeBatcher:
    """Encode requests from many threads coalesced into batched engine calls.

    Args:
        encode: the engine call (texts, is_query) -> rows, one row per text.
        max_texts: texts one engine call takes at most (a larger request is not split: it goes
            alone).
        max_wait_s: how long a worker gathers requests after the first one it took.
        workers: engine calls that may run at once (each worker makes one at a time).

    Workers start on the first request; :meth:`close` stops them.
    """

    def __init__(
        self, encode: Encode, *, max_texts: int = 64, max_wait_s: float = 0.005,
        workers: int = 1,
    ) -> None:
        self.encode = encode
        self.max_texts = max(1, max_texts)
        self.max_wait_s = max(0.0, max_wait_s)
        self.workers = max(1, workers)
        self.calls = 0
        """Engine calls made (for benches and tests)."""
        self._waiting: queue.Queue[Any] = queue.Queue()
        self._threads: list[threading.Thread] = []
        self._guard = threading.Lock()
        self._closed = False

    def __call__(
        self, texts: list[str], query: bool, timeout: float | None = None
    ) -> list[Any]:
        """The rows of ``texts``, from a batched engine call.

        Raises:
            EmbeddingError: the batcher is closed, ``timeout`` seconds passed first (the request
                is withdrawn if it has not reached the engine), or the engine call failed
                (chained).
        """
        if not texts:
            return []
        request = _Request(list(texts), query)
        with self._guard:
            if self._closed:
                raise EmbeddingError("error.embedding.batcher_closed")
            self._start()
            self._waiting.put(request)
        try:
            return request.future.result(timeout)
        except FutureTimeout as e:
            request.future.cancel()  # still waiting: the worker skips it
            raise EmbeddingError("error.embedding.batch_timeout",
                                 seconds=f"{timeout:g}") from e

    def close(self) -> None:
        """Finish the engine calls under way, fail the requests still waiting, stop the
        workers. Later calls raise :class:`EmbeddingError`."""
        with self._guard:
            if self._closed:
                return
            self._closed = True
            threads = list(self._threads)
            for _ in threads:
                self._waiting.put(_STOP)
        for thread in threads:
            thread.join()
        while True:  # whatever no worker took
            try:
                item = self._waiting.get_nowait()
            except queue.Empty:
                break
            if isinstance(item, _Request) and item.future.set_running_or_notify_cancel():
                item.future.set_exception(EmbeddingError("error.embedding.batcher_closed"))

    def _start(self) -> None:
        """The workers, started once (under ``_guard``)."""
        while len(self._threads) < self.workers:
            thread = threading.Thread(target=self._work, name="aizac-encode-batch", daemon=True)
            thread.start()
            self._threads.append(thread)

    def _work(self) -> None:
        held: _Request | None = None  # taken, but of the other kind or too big for the batch
        while True:
            first = held if held is not None else self._waiting.get()
            held = None
            if first is _STOP:
                return
            batch = [first]
            size = len(first.texts)
            stop = False
            deadline = time.monotonic() + self.max_wait_s
            while size < self.max_texts:
                try:
                    item = self._waiting.get(timeout=max(0.0, deadline - time.monotonic()))
                except queue.Empty:
                    break
                if item is _STOP:
                    stop = True
                    break
                if item.query != first.query or size + len(item.texts) > self.max_texts:
                    held = item  # the next batch starts with it
                    break
                batch.append(item)
                size += len(item.texts)
            self._run(batch)
            if stop:
                if held is not None:
                    self._run([held])
                return

    def _run(self, batch: list[_Request]) -> None:
        """One engine call for ``batch``; each request's rows (or the error) to its caller."""
        live = [r for r in batch if r.future.set_running_or_notify_cancel()]
        if not live:
            return
        unique = list(dict.fromkeys(t for r in live for t in r.texts))
        try:
            with self._guard:
                self.calls += 1
            rows = list(self.encode(unique, live[0].query))
            if len(rows) != len(unique):
                raise EmbeddingError("error.embedding.batch_rows", asked=len(unique),
                                     got=len(rows))
        except BaseException as e:  # every waiter of this call gets it
            for r in live:
                r.future.set_exception(e)
            if not isinstance(e, Exception):
                raise
            return
        by_text = dict(zip(unique, rows, strict=True))
        for r in live:
            r.future.set_result([by_text[t] for t in r.texts])
