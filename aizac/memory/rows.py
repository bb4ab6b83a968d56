"""The Chroma row gateway shared by commits, reads and keyed lookups (the thin adapter).

:class:`Rows` owns the Chroma collection, the exact-key index beside it and the lock that
serialises read-modify-write sequences. Everything that reads or writes memory rows goes through
it, so errors are translated once (:meth:`Rows.chroma`) and the key index is kept a superset of
what Chroma holds (hints raised before a write that raises ``live_until``, lowered after).
"""

from __future__ import annotations

import contextlib
import functools
import logging
import threading
import time
import uuid
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from aizac.errors import EmbeddingError, InvalidInputError, NotFoundError, StorageError
from aizac.llm.embeddings import embedding_fingerprint as embedding_fingerprint
from aizac.memory.chroma_client import SERVER_DOWN_HINT, is_transport_failure
from aizac.memory.chroma_health import chroma_damage, diagnosed, forget_system, safe_cause
from aizac.memory.key_index import CURRENT_FLOOR, KeyIndex, live_hint
from aizac.memory.records import NEVER, Where
from aizac.text import Text

log = logging.getLogger(__name__)

FINGERPRINT_KEY = "aizac_embedding"
GET_PAGE = 500
"""Rows per Chroma ``get`` when reading many memories. Chroma 1.5 holds on to what one get
allocated: reading 20k memories in pages of 5,000 left a process ~550 MB larger, in pages of
500 ~30 MB (and no slower), so a read of every memory costs about what raw Chroma's rows do."""
SCAN_LIMIT = 256
INCLUDE = ["documents", "metadatas"]
WITH_VECTORS = ["embeddings", "documents", "metadatas"]
SYNC_THRESHOLD = 100
"""Writes between two persists of Chroma's HNSW index. Until a persist, every write replays
the writes logged since the last one, so with Chroma's default (1000) the cost of each add or
update grows for ~250 beats (measured: 12 ms -> 72 ms per one-row add after 300 writes); at
100 it stays flat, for one index persist every ~25 beats."""
HNSW = {"space": "cosine", "sync_threshold": SYNC_THRESHOLD}


def open_collection(
    path: str | Path | None, collection: str, client: Any
) -> tuple[Any, Any, str]:
    """The Chroma client, the memory collection and its name (in memory, on disk at ``path``,
    or on the caller's ``client``)."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    settings = ChromaSettings(anonymized_telemetry=False)
    name = collection
    embedded = Path(path) if client is None and path is not None else None
    if embedded is not None:
        # A store that lost chroma.sqlite3 would be made anew, empty: the memory silently gone.
        found = chroma_damage(embedded)
        if found is not None:
            raise found.error()
    try:
        if client is None:
            if path is None:
                client = chromadb.EphemeralClient(settings=settings)
                # Ephemeral clients share one in-process store: keep each memory separate.
                name = f"{collection}-{uuid.uuid4().hex[:12]}"
            else:
                Path(path).mkdir(parents=True, exist_ok=True)
                client = chromadb.PersistentClient(path=str(path), settings=settings)
        coll = client.get_or_create_collection(
            name, embedding_function=None, configuration={"hnsw": dict(HNSW)}
        )
    except (ValueError, TypeError) as e:
        if embedded is not None:
            forget_system(embedded)
        raise InvalidInputError("error.memory.collection_open", collection=collection,
                                cause=safe_cause(e)) from e
    except Exception as e:
        if embedded is not None:
            forget_system(embedded)
            found = diagnosed(embedded, e)
            if found is not None:
                raise found.error() from e
        raise StorageError("error.memory.open", path=str(path or "memory"),
                           cause=safe_cause(e)) from e
    keep_log_short(coll)
    return client, coll, name


def keep_log_short(coll: Any, tries: int = 3) -> None:
    """Give a collection created with Chroma's default sync threshold aizac's (see
    :data:`SYNC_THRESHOLD`); best effort: a store that refuses keeps working as it was, and
    the log says why. A refusal is tried again after a moment (a busy moment of the store's
    SQLite file under load left an old store with Chroma's default once in a full test run)."""
    last: Exception | None = None
    for attempt in range(tries):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)  # Chroma's, about its config
                hnsw = (coll.configuration or {}).get("hnsw") or {}
                if hnsw and hnsw.get("sync_threshold") != SYNC_THRESHOLD:
                    coll.modify(configuration={"hnsw": {"sync_threshold": SYNC_THRESHOLD}})
            return
        except Exception as e:  # never fail an open over it
            last = e
            time.sleep(0.2 * (attempt + 1))
    log.warning("could not shorten the index log of %s: %s", getattr(coll, "name", "?"), last)


def embedding_error(error: BaseException) -> EmbeddingError:
    """What the writer reads when the embeddings failed: nothing was saved, and whether trying
    again helps (a 503, a timeout: the server is busy for a moment) or the setting needs a look.
    """
    from aizac.llm.errors import is_transient, summarize
    key = "error.llm.embedding_unavailable" if is_transient(error) else (
        "error.llm.embedding_failed")
    return EmbeddingError(key, cause=summarize(error))


def embed_texts(embeddings: Any, texts: Sequence[str]) -> list[list[float]]:
    """Vectors of ``texts`` in ONE call to ``embeddings`` (one HTTP request, one batch of a
    local model), checked: as many as texts, as floats.

    Raises:
        EmbeddingError: the embeddings failed (:func:`embedding_error`: nothing was saved).
        StorageError: the embeddings returned the wrong number of vectors.
    """
    if not texts:
        return []
    try:
        vectors = [[float(x) for x in v] for v in embeddings.embed_documents(list(texts))]
    except Exception as e:
        raise embedding_error(e) from e
    if len(vectors) != len(texts):
        raise StorageError("error.memory.embed_count", vectors=len(vectors), texts=len(texts))
    return vectors


def stored_fingerprint(collection: Any) -> str:
    """The embedding fingerprint a collection records (``""`` for a new one)."""
    stored = (collection.metadata or {}).get(FINGERPRINT_KEY)
    return stored if isinstance(stored, str) else ""


def check_fingerprint(collection: Any, fingerprint: str) -> None:
    """Refuse a store written with other embeddings; record the fingerprint on a new one.

    Raises:
        StorageError: ``AIZAC_EMBEDDING`` changed since the project was written.
    """
    stored = stored_fingerprint(collection)
    if stored and stored != fingerprint:
        raise StorageError(
            "error.memory.embedding_changed", written=stored, configured=fingerprint,
        )
    if not stored:
        with contextlib.suppress(Exception):
            merged = {**(collection.metadata or {}), FINGERPRINT_KEY: fingerprint}
            collection.modify(metadata=merged)


class Rows:
    """Rows of one memory collection.

    Args:
        collection: the Chroma collection.
        index: the exact-key index, or ``None`` (keyed reads then use Chroma filters).
    """

    def __init__(self, collection: Any, index: KeyIndex | None) -> None:
        self.collection = collection
        self.index = index
        self.lock = threading.RLock()
        self.page_size = GET_PAGE  # rows per Chroma get when reading many memories
        self.scan_limit = SCAN_LIMIT  # filtered recalls matching at most this many: exact scan
        self.version = 0
        """Bumped on every write; read caches compare it (see ``Lookups.characters``)."""
        self.hints_current = False
        """Whether every current row's index hint is at least :data:`CURRENT_FLOOR` (the
        store's state says so once its rows were written or upgraded that way): then a
        slot's holders are asked without its superseded versions."""
        self.folder: Path | None = None
        """The embedded store's folder (``None``: in memory, or a server's): a failure there
        is looked into, so a damaged file is named (:mod:`aizac.memory.chroma_health`)."""

    def chroma(self, call: Callable[[], Any], what: str = "error.memory.what.store") -> Any:
        """Run a Chroma call, translating its errors into aizac's."""
        try:
            return call()
        except (NotFoundError, InvalidInputError):
            raise
        except (ValueError, TypeError) as e:
            raise InvalidInputError("error.memory.rejected", cause=safe_cause(e)) from e
        except Exception as e:
            if is_transport_failure(e):  # a Chroma server (AIZAC_CHROMA_HOST) did not answer
                raise StorageError("error.memory.no_answer", what=Text(what), cause=str(e),
                                   hint=SERVER_DOWN_HINT) from e
            if self.folder is not None:
                found = diagnosed(self.folder, e)
                if found is not None:
                    raise found.error() from e
            raise StorageError("error.memory.failed", what=Text(what),
                               cause=safe_cause(e)) from e

    def count(self) -> int:
        return int(self.chroma(self.collection.count))

    def fetch(self, ids: Sequence[str], include: list[str] | None = None) -> dict[str, Any]:
        """Chroma get of ``ids`` in the given order; every id must exist."""
        ids = list(dict.fromkeys(ids))
        res = self.chroma(lambda: self.collection.get(ids=ids, include=include or INCLUDE))
        pos = {mid: n for n, mid in enumerate(res["ids"])}
        missing = [i for i in ids if i not in pos]
        if missing:
            raise NotFoundError("error.memory.unknown_ids", ids=", ".join(map(str, missing[:5])))
        order = [pos[i] for i in ids]
        out: dict[str, Any] = {"ids": ids}
        for key in include or INCLUDE:
            values = res.get(key)
            out[key] = [values[n] for n in order] if values is not None else [None] * len(ids)
        return out

    def get_paged(self, where: Where | None) -> dict[str, Any]:
        """Chroma get in pages (one unpaged get of ~30k+ rows exceeds SQLite's variable limit)."""
        out: dict[str, Any] = {"ids": [], "documents": [], "metadatas": []}
        offset = 0
        while True:
            page = self.chroma(
                functools.partial(
                    self.collection.get, where=where, include=INCLUDE,
                    limit=self.page_size, offset=offset,
                )
            )
            for key in out:
                out[key].extend(page[key] or [])
            if len(page["ids"]) < self.page_size:
                return out
            offset += self.page_size

    def by_ids(self, ids: Sequence[str], include: list[str]) -> dict[str, Any]:
        """Chroma get of existing ``ids`` (missing ones are skipped), in pages."""
        out: dict[str, Any] = {"ids": [], **{key: [] for key in include}}
        for start in range(0, len(ids), self.page_size):
            chunk = list(ids[start : start + self.page_size])
            page = self.chroma(functools.partial(self.collection.get, ids=chunk, include=include))
            out["ids"].extend(page["ids"])
            for key in include:
                out[key].extend(page[key] if page[key] is not None else [])
        return out

    def indexed(
        self, equal: Mapping[str, Any], include: list[str], turn: int, limit: int | None = None
    ) -> dict[str, Any] | None:
        """Live memories whose keys equal ``equal``, via the key index and re-checked in
        Chroma; ``None`` if there is no index or more than ``limit`` candidates.

        ``equal`` may use the derived keys ``slot``, ``subject`` and ``fp`` (index only); they
        are not re-checked in Chroma, which does not store them.
        """
        if self.index is None:
            return None
        ids = self.index.ids(equal, live_from=float(turn))
        if limit is not None and len(ids) > limit:
            return None
        got = self.by_ids(ids, include)
        stored = {k: v for k, v in equal.items() if k not in ("slot", "subject", "fp")}
        keep = [
            n
            for n, meta in enumerate(got["metadatas"])
            if float(meta.get("live_until", NEVER)) >= turn
            and all(meta.get(key) == value for key, value in stored.items())
        ]
        return {key: [values[n] for n in keep] for key, values in got.items()}

    def holder_floor(self) -> float | None:
        """``live_from`` that finds every current holder of a slot through the index."""
        return CURRENT_FLOOR if self.hints_current else None

    def raise_current_hints(self) -> None:
        """Raise the hints of current rows below :data:`CURRENT_FLOOR` (forgotten or struck
        ones an older aizac hinted as superseded): one filtered read, once per store."""
        if self.index is None:
            return
        low = self.get_paged({"$and": [{"superseded_by": ""},
                                       {"live_until": {"$lt": CURRENT_FLOOR}}]})
        self.raise_hints(dict.fromkeys(low["ids"], CURRENT_FLOOR))

    def sync_index(self) -> None:
        """Rebuild the key index if it lacks rows (new file, or written without an index)."""
        if self.index is None or self.index.count() >= self.count():
            return
        res = self.get_paged(None)
        self.index.clear()
        self.index.add(zip(res["ids"], res["metadatas"], res["documents"], strict=True))

    def raise_hints(self, lives: Mapping[str, float]) -> None:
        """Before a Chroma write that may raise ``live_until``: raise the index hints (never
        lower them: a write that fails must leave the index a superset)."""
        if self.index is not None and lives:
            self.index.raise_live(lives)

    def lower_hints(self, lives: Mapping[str, float] | None, drop: Sequence[str] = ()) -> None:
        """After a Chroma write: lower hints / drop rows (a failure only leaves a superset)."""
        if self.index is None:
            return
        with contextlib.suppress(StorageError):
            if lives:
                self.index.set_live(lives)
            if drop:
                self.index.delete(drop)

    # ------------------------------------------------------------------------ writes
    def add(
        self,
        ids: list[str],
        vectors: Sequence[Sequence[float]],
        metas: list[dict[str, Any]],
        docs: list[str],
    ) -> None:
        """Add rows (index first, so it stays a superset); a failed add leaves nothing."""
        self.version += 1
        if self.index is not None:
            self.index.add(zip(ids, metas, docs, strict=True))
        try:
            self.chroma(
                lambda: self.collection.add(
                    ids=ids, embeddings=[list(v) for v in vectors], metadatas=metas,
                    documents=docs,
                ),
                "memory write",
            )
        except Exception:
            with contextlib.suppress(Exception):  # in case the store kept part of it
                self.collection.delete(ids=ids)
            self.lower_hints(None, drop=ids)
            raise

    def update(
        self, changes: Mapping[str, Mapping[str, Any]], *, rises: bool | None = None
    ) -> None:
        """Merge metadata ``changes`` (id -> fields, with ``live_until``) into existing rows;
        rows whose index keys change (``foreshadow``, ``aspect``: the slot) are re-indexed.

        ``rises=True`` (reinforcement) says every ``live_until`` goes up: the hints are set
        before the write only; ``False``: down, set after only; ``None``: either.
        """
        if not changes:
            return
        self.version += 1
        ids = list(changes)
        metas = [dict(changes[i]) for i in ids]
        lives = {i: live_hint(float(m["live_until"]), bool(m.get("superseded_by")))
                 for i, m in zip(ids, metas, strict=True) if "live_until" in m}
        if rises is not False:
            self.raise_hints(lives)
        self.chroma(lambda: self.collection.update(ids=ids, metadatas=metas),
                    "error.memory.what.write")
        if rises is not True:
            self.lower_hints(lives)
        rekey = [i for i in ids if "foreshadow" in changes[i] or "aspect" in changes[i]]
        if rekey and self.index is not None:
            got = self.fetch(rekey, INCLUDE)
            with contextlib.suppress(StorageError):
                self.index.add(zip(got["ids"], got["metadatas"], got["documents"], strict=True))

    def delete(self, ids: Iterable[str]) -> None:
        ids = list(ids)
        if not ids:
            return
        self.version += 1
        self.chroma(lambda: self.collection.delete(ids=ids), "error.memory.what.write")
        self.lower_hints(None, drop=ids)
