"""Re-embedding a project's memory in place: atomically, resumably (``aizac reindex``).

Vectors of two embeddings cannot be compared, and their dimensions usually differ (the hash has
256, e5 384), so a Chroma collection cannot be converted row by row. A reindex therefore writes
a second collection beside the first, named from the target embedding's fingerprint, then
switches the project to it in one atomic step:

1. **copy** every row (same id, document and metadata; the new vector), in batches of one
   embedding call each, with ``upsert``: a row copied twice is one row. A resumed copy skips
   rows already there unchanged, re-copies rows whose document or metadata changed since, and
   drops rows the source no longer has (an undo in between);
2. **journal**: the commit journal's records (undo and redo put back the vectors they hold) are
   re-embedded under the new collection's name;
3. **state**: the story turn and short-term memory (collection metadata) are copied;
4. **switch**: the pointer file ``collections.json`` in the memory folder names the new
   collection (written to a temporary file, fsynced, renamed over the old one: a reader sees
   the old pointer or the new one, never half of one);
5. **clean up** the old collection, its journal records and key-index rows (idempotent; a
   resumed reindex finishes it, and the new collection records what it replaced).

A reindex killed before step 4 leaves the project on its old collection and embedding, intact;
the next ``aizac reindex`` goes on from the rows already copied. Killed after it, the project is
already on the new one. The caller holds the project (one writer per project).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from langchain_core.embeddings import Embeddings

from aizac.errors import StorageError
from aizac.llm.embeddings import embedding_fingerprint
from aizac.memory.journal import CommitJournal
from aizac.memory.key_index import KeyIndex
from aizac.memory.rows import FINGERPRINT_KEY, HNSW, INCLUDE, Rows, embed_texts

POINTER_FILE = "collections.json"
REPLACES_KEY = "aizac_replaces"
BATCH = 64
Progress = Callable[[int, int], None]
"""``(rows copied so far, rows in all)``."""


class VectorsOnly(Embeddings):
    """Stands for the embeddings a memory was written with when they cannot be built here (an
    API model no longer configured, a package not installed): the memory opens with them to be
    read or re-embedded (its stored vectors and documents are all a reindex needs), and any
    new embedding is refused, saying to run ``aizac reindex``.

    Args:
        fingerprint: the fingerprint the memory records (what it stands for).
    """

    def __init__(self, fingerprint: str) -> None:
        self.aizac_fingerprint = fingerprint

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        raise StorageError("error.memory.vectors_only", written=self.aizac_fingerprint)

    def embed_query(self, text: str) -> list[float]:
        raise StorageError("error.memory.vectors_only", written=self.aizac_fingerprint)


def any_embedding(fingerprint: str) -> Embeddings:
    """``adopt`` for a memory opened to be read or re-embedded whatever it was written with:
    :class:`VectorsOnly` of its fingerprint."""
    return VectorsOnly(fingerprint)


def active_collection(path: str | Path | None, logical: str) -> str:
    """The Chroma collection that holds the memory called ``logical`` in the memory folder
    ``path`` (``logical`` itself until a reindex switched it)."""
    if path is None:
        return logical
    where = Path(path) / POINTER_FILE
    try:
        raw = where.read_text(encoding="utf-8")
    except FileNotFoundError:
        return logical
    except OSError as e:
        raise StorageError("error.memory.pointer_unreadable", where=str(where), cause=str(e)) from e
    try:
        pointers = json.loads(raw)
    except json.JSONDecodeError as e:
        raise StorageError("error.memory.pointer_unreadable", where=str(where), cause=str(e)) from e
    found = pointers.get(logical) if isinstance(pointers, dict) else None
    return found if isinstance(found, str) and found else logical


def switch_collection(path: Path, logical: str, physical: str) -> None:
    """Point ``logical`` at ``physical`` in one atomic rename (see the module docstring)."""
    target = path / POINTER_FILE
    try:
        pointers = json.loads(target.read_text(encoding="utf-8")) if target.exists() else {}
    except (OSError, json.JSONDecodeError):
        pointers = {}
    pointers = pointers if isinstance(pointers, dict) else {}
    pointers[logical] = physical
    tmp = target.with_suffix(f".{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(pointers, f, ensure_ascii=False)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
        with contextlib.suppress(OSError):  # the rename itself, on filesystems that allow it
            fd = os.open(path, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
    except OSError as e:
        raise StorageError(
            "error.memory.reindex_failed", cause=f"{target}: {e}"
        ) from e


def target_name(logical: str, fingerprint: str) -> str:
    """The collection a reindex of ``logical`` to ``fingerprint`` writes (pure; the same on a
    resumed run)."""
    return f"{logical}-e{hashlib.sha256(fingerprint.encode()).hexdigest()[:10]}"


@dataclass(frozen=True)
class ReindexReport:
    """What a reindex did.

    Attributes:
        rows: memories in the project.
        embedded: rows embedded by this run (a resumed run embeds only what was missing).
        source, target: the fingerprints before and after.
        switched: the project moved to another collection (``False``: it was already there).
    """

    rows: int
    embedded: int
    source: str
    target: str
    switched: bool


class _Journaled(Protocol):
    @property
    def journal(self) -> CommitJournal:
        """Where each commit is recorded."""


class Reindexable(Protocol):
    """What a reindex reads of a memory (a :class:`~aizac.memory.store.WriterMemory`, which
    opens its collection through :func:`active_collection` here, so this module names it only
    through this Protocol)."""

    @property
    def path(self) -> Path | None:
        """The memory folder (``None``: in memory only, nothing to switch)."""

    @property
    def logical_name(self) -> str:
        """The memory's name in the pointer file."""

    @property
    def tables(self) -> Any:
        """The server database rows of the key index and journal (``None``: files in
        :attr:`path`)."""

    @property
    def fingerprint(self) -> str:
        """The fingerprint of the embeddings the rows were written with."""

    @property
    def client(self) -> Any:
        """The Chroma client holding the collections."""

    @property
    def collection(self) -> Any:
        """The Chroma collection in use."""

    @property
    def rows(self) -> Rows:
        """The row layer over :attr:`collection` (its lock serialises writers)."""

    @property
    def commits(self) -> _Journaled:
        """The commits, with their journal."""


def reindex(
    memory: Reindexable,
    embeddings: Embeddings,
    *,
    progress: Progress | None = None,
    batch: int = BATCH,
) -> ReindexReport:
    """Re-embed ``memory``'s rows and journal with ``embeddings`` and switch the project to them.

    ``memory`` must be a persistent store (a memory folder); the caller opened it (recovering
    any commit a crash left pending) and holds the project. After a switch ``memory`` is stale:
    open the project again.

    Raises:
        StorageError: the store or the embeddings failed (nothing switched; run it again).
    """
    if memory.path is None:
        raise StorageError("error.memory.reindex_in_memory")
    source_print = memory.fingerprint
    target_print = embedding_fingerprint(embeddings)
    client, logical, path = memory.client, memory.logical_name, Path(memory.path)
    source = memory.collection
    rows_at: Any = memory.tables or path  # the journal's and the index's rows
    if target_print == source_print:
        _clean_replaced(client, rows_at, source)
        return ReindexReport(memory.rows.count(), 0, source_print, target_print, False)
    name = target_name(logical, target_print)
    with memory.rows.lock:
        _drop_orphans(client, rows_at, logical, keep={source.name, name})
        try:
            target = client.get_or_create_collection(
                name, embedding_function=None, configuration={"hnsw": dict(HNSW)},
                metadata={FINGERPRINT_KEY: target_print, REPLACES_KEY: source.name},
            )
        except Exception as e:
            raise StorageError("error.memory.reindex_failed", cause=str(e)) from e
        embedded, rows = _copy_rows(memory, target, embeddings, progress, batch)
        _copy_journal(memory, rows_at, name, embeddings)
        meta = {k: v for k, v in (source.metadata or {}).items() if k != FINGERPRINT_KEY}
        _chroma(lambda: target.modify(metadata={
            **meta, FINGERPRINT_KEY: target_print, REPLACES_KEY: source.name,
        }), "saving the story turn in the new collection")
        _verify(memory, target)
        switch_collection(path, logical, name)
    _clean_replaced(client, rows_at, target)
    return ReindexReport(rows, embedded, source_print, target_print, True)


def _chroma(call: Callable[[], Any], what: str) -> Any:
    """``call()``, a failure of the store (``what`` it was doing, for the log) as the reindex's
    keyed error."""
    try:
        return call()
    except StorageError:
        raise
    except Exception as e:
        raise StorageError("error.memory.reindex_failed", cause=f"{what}: {e}") from e


def _copy_rows(
    memory: Reindexable, target: Any, embeddings: Embeddings, progress: Progress | None,
    batch: int,
) -> tuple[int, int]:
    """Rows of the source into ``target`` (module docstring, step 1); ``(embedded, rows)``."""
    rows = memory.rows.get_paged(None)
    ids: list[str] = rows["ids"]
    wanted = {mid: (doc, meta) for mid, doc, meta in
              zip(ids, rows["documents"], rows["metadatas"], strict=True)}
    have: dict[str, tuple[str, dict[str, Any]]] = {}
    offset = 0
    while True:
        page = _chroma(functools.partial(target.get, include=INCLUDE, limit=5000, offset=offset),
                       "reading the new collection")
        for mid, doc, meta in zip(page["ids"], page["documents"], page["metadatas"], strict=True):
            have[mid] = (doc, meta)
        if len(page["ids"]) < 5000:
            break
        offset += 5000
    extra = [mid for mid in have if mid not in wanted]
    if extra:  # rows the source no longer has (undone since the killed run)
        _chroma(lambda: target.delete(ids=extra), "dropping rows the project no longer has")
    todo = [mid for mid in ids if have.get(mid) != wanted[mid]]
    stale_meta = [mid for mid in todo if mid in have and have[mid][0] == wanted[mid][0]]
    if stale_meta:  # same text, changed metadata (a recall since): the vector stays valid
        _chroma(lambda: target.update(ids=stale_meta,
                                      metadatas=[wanted[m][1] for m in stale_meta]),
                "updating changed rows")
    todo = [mid for mid in todo if mid not in set(stale_meta)]
    done = len(ids) - len(todo)
    if progress is not None:
        progress(done, len(ids))
    for start in range(0, len(todo), max(1, batch)):
        chunk = todo[start : start + batch]
        docs = [wanted[m][0] for m in chunk]
        vectors = embed_texts(embeddings, docs)
        _chroma(functools.partial(
            target.upsert, ids=chunk, embeddings=vectors, documents=docs,
            metadatas=[wanted[m][1] for m in chunk],
        ), "writing re-embedded rows")
        done += len(chunk)
        if progress is not None:
            progress(done, len(ids))
    return len(todo), len(ids)


def _copy_journal(memory: Reindexable, where: Any, name: str, embeddings: Embeddings) -> None:
    """The commit journal's records under the new collection, with new vectors (step 2)."""
    journal = CommitJournal(where, name)
    try:
        done = {snap.batch: (_without_vectors(snap), status) for snap, status in journal.records()}
        source = memory.commits.journal.records()
        for snap, status in source:
            if done.get(snap.batch) == (_without_vectors(snap), status):
                continue  # copied by a run that was killed later
            if snap.documents:
                snap.embeddings = embed_texts(embeddings, list(snap.documents))
            journal.put(snap, status)
        for batch in set(done) - {snap.batch for snap, _ in source}:
            journal.drop(batch)  # pruned or dropped since
    finally:
        journal.close()


def _without_vectors(snap: Any) -> str:
    return json.dumps({k: v for k, v in snap.__dict__.items() if k != "embeddings"},
                      ensure_ascii=False, sort_keys=True)


def _verify(memory: Reindexable, target: Any) -> None:
    """Every row of the source is in ``target``, once (before the switch)."""
    source_ids = set(memory.rows.get_paged(None)["ids"])
    got = _chroma(lambda: target.get(include=[]), "checking the new collection")["ids"]
    if len(got) != len(set(got)) or set(got) != source_ids:
        raise StorageError("error.memory.reindex_unfinished", got=len(got), rows=len(source_ids))


def _drop_orphans(client: Any, where: Any, logical: str, keep: set[str]) -> None:
    """Drop the collections earlier reindexes of ``logical`` began and never switched to (a
    reindex to one embedding killed, then one to another run), with their journal and key
    rows: every ``<logical>-e...`` collection but those in ``keep`` (best effort)."""
    prefix = f"{logical}-e"
    try:
        names = [getattr(c, "name", c) for c in client.list_collections()]
    except Exception:
        return
    for orphan in names:
        if isinstance(orphan, str) and orphan.startswith(prefix) and orphan not in keep:
            _drop_collection(client, where, orphan)


def _drop_collection(client: Any, where: Any, name: str) -> None:
    """Drop the collection ``name`` with its journal records and key-index rows."""
    with contextlib.suppress(Exception):
        client.delete_collection(name)
    with contextlib.suppress(StorageError):
        journal = CommitJournal(where, name)
        try:
            journal.clear()
        finally:
            journal.close()
    with contextlib.suppress(StorageError):
        index = KeyIndex(where, name)
        try:
            index.clear()
        finally:
            index.close()


def _clean_replaced(client: Any, where: Any, current: Any) -> None:
    """Drop the collection ``current`` replaced, with its journal and key rows (step 5)."""
    old = (current.metadata or {}).get(REPLACES_KEY)
    if not isinstance(old, str) or not old or old == current.name:
        return
    _drop_collection(client, where, old)
