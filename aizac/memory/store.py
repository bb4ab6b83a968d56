"""WriterMemory: the four-tag long-term memory in Chroma (the thin adapter around the pure core).

One Chroma collection holds every memory; the story turn and the short-term buffer live in the
collection's own metadata, so they persist (and are restored) with the store wherever it lives:
in memory, on disk (``PersistentClient``) or on a Chroma server (``client=``).

Moving the story on (:meth:`WriterMemory.advance`) rewrites no memory: liveness is the single
range filter ``live_until >= turn`` (see :mod:`aizac.memory.records`). A recall rewrites only
the rows it returns (reinforcement). A lock serialises read-modify-write sequences.

Keyed reads (a relation, a character's state, the cast, open foreshadowing, and recalls filtered
by character/tag/pair) go through :class:`~aizac.memory.key_index.KeyIndex`, a SQLite cache of
exact keys beside an embedded store, then fetch by id — Chroma 1.5's filtered ``get``/``query``
cost grows with the whole collection, its ``get(ids=...)`` does not. Other filters go to Chroma.
"""

from __future__ import annotations

import contextlib
import functools
import json
import re
import threading
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import chromadb
from chromadb.config import Settings as ChromaSettings
from langchain_core.embeddings import Embeddings

from aizac.errors import InvalidInputError, NotFoundError, StorageError
from aizac.memory.commits import CommitMixin
from aizac.memory.forgetting import check_strength, check_threshold, reinforced
from aizac.memory.key_index import KeyIndex, simple_equalities
from aizac.memory.lookups import KeyedLookups
from aizac.memory.records import (
    NEVER,
    MemoryHit,
    Metadata,
    Where,
    and_where,
    check_tag,
    decay_fields,
    live_until,
    recency_key,
    split_aliases,
    state_where,
    to_hit,
    top_k_cosine,
)
from aizac.memory.short_term import ShortTermMemory
from aizac.memory.staging import CandidateBatch
from aizac.settings import Settings, get_settings

STATE_KEY = "aizac_state"
GET_PAGE = 5000
SCAN_LIMIT = 256
_COLLECTION_NAME = re.compile(r"[a-zA-Z0-9][a-zA-Z0-9._-]{1,490}[a-zA-Z0-9]")
_INCLUDE = ["documents", "metadatas"]
_WITH_VECTORS = ["embeddings", "documents", "metadatas"]


def _chroma_settings() -> ChromaSettings:
    return ChromaSettings(anonymized_telemetry=False)


class WriterMemory(CommitMixin, KeyedLookups):
    """Story memory with a forgetting curve, pins, superseded facts and staged candidates.

    Args:
        path: directory of an embedded persistent store; ``None`` keeps it in memory.
        collection: Chroma collection name (3-512 characters of ``[a-zA-Z0-9._-]``).
        embeddings: a LangChain ``Embeddings``; ``None`` builds ``settings.embedding``
            (offline ``HashingEmbeddings`` by default). Chroma never embeds by itself.
        threshold: forgetting threshold; ``None`` -> ``settings.memory_threshold``.
        client: a ready Chroma client (e.g. ``chromadb.HttpClient``), instead of ``path``.
        settings: aizac settings (tag strengths, short-term budget); default ``get_settings()``.
        clock: optional wall clock (``() -> float``); when given, memories carry ``created_at``.
            Story time is turns, never the wall clock.
    """

    def __init__(
        self,
        path: str | Path | None = None,
        collection: str = "novel",
        embeddings: Embeddings | None = None,
        threshold: float | None = None,
        client: Any = None,
        settings: Settings | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        if not isinstance(collection, str) or not _COLLECTION_NAME.fullmatch(collection):
            raise InvalidInputError(
                f"Invalid memory collection name {collection!r}.",
                hint="Use 3-500 letters, digits, '.', '_' or '-', starting and ending with a "
                "letter or digit.",
            )
        self.settings = settings if settings is not None else get_settings()
        self.threshold = check_threshold(
            self.settings.memory_threshold if threshold is None else threshold
        )
        if embeddings is None:
            from aizac.llm.embeddings import embeddings_from_spec

            embeddings = embeddings_from_spec(self.settings.embedding, self.settings)
        self.embeddings = embeddings
        self.clock = clock
        self._lock = threading.RLock()
        self.page_size = GET_PAGE  # rows per Chroma get when reading many memories
        self.scan_limit = SCAN_LIMIT  # filtered recalls matching at most this many: exact scan
        self._ephemeral = client is None and path is None
        client_given = client is not None
        name = collection
        try:
            if client is None:
                if path is None:
                    client = chromadb.EphemeralClient(settings=_chroma_settings())
                    # Ephemeral clients share one in-process store: keep each memory separate.
                    name = f"{collection}-{uuid.uuid4().hex[:12]}"
                else:
                    Path(path).mkdir(parents=True, exist_ok=True)
                    client = chromadb.PersistentClient(path=str(path), settings=_chroma_settings())
            self.client = client
            self.collection = client.get_or_create_collection(
                name, embedding_function=None, configuration={"hnsw": {"space": "cosine"}}
            )
        except (ValueError, TypeError) as e:
            raise InvalidInputError(
                f"Cannot open memory collection {collection!r}: {e}",
                hint="Use 3-512 characters of letters, digits, '.', '_' or '-'.",
            ) from e
        except Exception as e:
            raise StorageError(f"Cannot open the memory store at {path or 'memory'}: {e}") from e
        # Exact-key index beside an embedded store; with a caller's client (e.g. a server that
        # other processes write to) keyed reads use Chroma filters instead.
        self._index = KeyIndex(path, name) if (client_given is False or path) else None
        state = self._load_state()
        self._sync_index()
        self._turn = int(state.get("turn", 0))
        self.short_term = ShortTermMemory(self.settings.short_term_tokens, state.get("short", []))
        self.short_term.on_change = self._save_state

    # ----------------------------------------------------------------- state and time

    def _load_state(self) -> dict[str, Any]:
        raw = (self.collection.metadata or {}).get(STATE_KEY)
        if not raw:
            return {}
        try:
            state = json.loads(str(raw))
        except json.JSONDecodeError as e:
            raise StorageError(f"The memory store's state record is corrupt: {e}") from e
        return state if isinstance(state, dict) else {}

    def _save_state(self) -> None:
        with self._lock:
            state = {"version": 1, "turn": self._turn, "short": self.short_term.items()}
            payload = json.dumps(state, ensure_ascii=False)
            try:
                self.collection.modify(metadata={STATE_KEY: payload})
            except Exception as e:
                raise StorageError(
                    f"Could not save the story turn and short-term memory: {e}"
                ) from e

    @property
    def turn(self) -> int:
        """The current story turn (persisted with the store)."""
        return self._turn

    def advance(self, turns: int = 1) -> int:
        """Move the story on by ``turns``; rewrites no memory. Returns the new turn."""
        if isinstance(turns, bool) or not isinstance(turns, int) or turns < 0:
            raise InvalidInputError(f"advance() takes a whole number of turns >= 0, got {turns!r}.")
        return self.set_turn(self._turn + turns)

    def set_turn(self, turn: int) -> int:
        """Set the story turn (e.g. rewind after undoing an accepted beat)."""
        if isinstance(turn, bool) or not isinstance(turn, int) or turn < 0:
            raise InvalidInputError(f"The story turn must be a whole number >= 0, got {turn!r}.")
        with self._lock:
            previous, self._turn = self._turn, turn
            try:
                self._save_state()
            except StorageError:
                self._turn = previous
                raise
            return self._turn

    # ----------------------------------------------------------------- helpers

    def embed(self, text: str, *, query: bool = False) -> list[float]:
        """The vector for a document (or, with ``query=True``, a query) ``text``."""
        try:
            if query:
                return list(self.embeddings.embed_query(text))
            return list(self.embeddings.embed_documents([text])[0])
        except Exception as e:
            raise StorageError(f"Embedding failed: {e}", hint="Check AIZAC_EMBEDDING.") from e

    def default_strength(self, tag: str, strength: float | None = None) -> float:
        """``strength`` if given, else the tag's default from settings."""
        if strength is not None:
            return check_strength(strength)
        return self.settings.tag_strengths()[check_tag(tag)]

    def _hits(self, res: Mapping[str, Any]) -> list[MemoryHit]:
        docs = res.get("documents") or [None] * len(res["ids"])
        metas = res.get("metadatas") or [{}] * len(res["ids"])
        rows = zip(res["ids"], docs, metas, strict=True)
        return [to_hit(i, d, m or {}, self._turn) for i, d, m in rows]

    def _fetch(self, ids: Sequence[str], include: list[str] | None = None) -> dict[str, Any]:
        """Chroma get of ``ids`` in the given order; every id must exist."""
        ids = list(dict.fromkeys(ids))
        res = self._chroma(lambda: self.collection.get(ids=ids, include=include or _INCLUDE))
        found = set(res["ids"])
        missing = [i for i in ids if i not in found]
        if missing:
            raise NotFoundError(f"Unknown memory id(s): {', '.join(map(str, missing[:5]))}.")
        return dict(res)

    def _get_paged(self, where: Where | None) -> dict[str, Any]:
        """Chroma get in pages (one unpaged get of ~30k+ rows exceeds SQLite's variable limit)."""
        out: dict[str, Any] = {"ids": [], "documents": [], "metadatas": []}
        offset = 0
        while True:
            page = self._chroma(
                functools.partial(
                    self.collection.get,
                    where=where,
                    include=_INCLUDE,
                    limit=self.page_size,
                    offset=offset,
                )
            )
            for key in out:
                out[key].extend(page[key] or [])
            if len(page["ids"]) < self.page_size:
                return out
            offset += self.page_size

    def _sync_index(self) -> None:
        """Rebuild the key index if it lacks rows (new file, or written without an index)."""
        if self._index is None or self._index.count() >= len(self):
            return
        res = self._get_paged(None)
        self._index.clear()
        self._index.add(zip(res["ids"], res["metadatas"], strict=True))

    def _raise_hints(self, lives: Mapping[str, float]) -> None:
        """Before a Chroma write that may raise ``live_until``: raise the index hints."""
        if self._index is not None and lives:
            self._index.set_live(lives)

    def _lower_hints(self, lives: Mapping[str, float] | None, drop: Sequence[str] = ()) -> None:
        """After a Chroma write: lower hints / drop rows (a failure only leaves a superset)."""
        if self._index is None:
            return
        with contextlib.suppress(StorageError):
            if lives:
                self._index.set_live(lives)
            if drop:
                self._index.delete(drop)

    def _by_ids(self, ids: Sequence[str], include: list[str]) -> dict[str, Any]:
        """Chroma get of existing ``ids`` (missing ones are skipped), in pages."""
        out: dict[str, Any] = {"ids": [], **{key: [] for key in include}}
        for start in range(0, len(ids), self.page_size):
            chunk = list(ids[start : start + self.page_size])
            page = self._chroma(functools.partial(self.collection.get, ids=chunk, include=include))
            out["ids"].extend(page["ids"])
            for key in include:
                out[key].extend(page[key] if page[key] is not None else [])
        return out

    def _indexed(
        self, equal: Mapping[str, Any], include: list[str], limit: int | None = None
    ) -> dict[str, Any] | None:
        """Live memories whose keys equal ``equal``, via the key index and re-checked in
        Chroma; ``None`` if there is no index or more than ``limit`` candidates."""
        if self._index is None:
            return None
        ids = self._index.ids(equal, live_from=float(self._turn))
        if limit is not None and len(ids) > limit:
            return None
        got = self._by_ids(ids, include)
        keep = [
            n
            for n, meta in enumerate(got["metadatas"])
            if float(meta.get("live_until", NEVER)) >= self._turn
            and all(meta.get(key) == value for key, value in equal.items())
        ]
        return {key: [values[n] for n in keep] for key, values in got.items()}

    def _chroma(self, call: Callable[[], Any], what: str = "memory store") -> Any:
        try:
            return call()
        except (NotFoundError, InvalidInputError):
            raise
        except (ValueError, TypeError) as e:
            raise InvalidInputError(f"Chroma rejected the request: {e}") from e
        except Exception as e:
            raise StorageError(f"The {what} failed: {e}") from e

    # ----------------------------------------------------------------- writing

    def remember(
        self,
        text: str,
        tag: str,
        *,
        character_name: str | None = None,
        character1: str | None = None,
        character2: str | None = None,
        keyword: str = "",
        chapter: int = 0,
        beat: int = 0,
        strength: float | None = None,
        pinned: bool = False,
        aliases: Iterable[str] | None = None,
        foreshadow: bool = False,
        extra: Mapping[str, object] | None = None,
    ) -> str:
        """Store one fact now and return its id (validated first; nothing half-written).

        Raises:
            InvalidInputError: unknown tag, empty text, missing or misplaced character fields,
                a relation of a character with itself, bad numbers or extra metadata.
        """
        batch = CandidateBatch(self)
        batch.remember(
            text,
            tag,
            character_name=character_name,
            character1=character1,
            character2=character2,
            keyword=keyword,
            chapter=chapter,
            beat=beat,
            strength=strength,
            pinned=pinned,
            aliases=aliases,
            foreshadow=foreshadow,
            extra=extra,
        )
        return batch.commit()[0]

    def supersede(self, memory_id: str, text: str, **changes: Any) -> str:
        """Replace a fact by a new version (keeps the old one as history). Returns the new id.

        ``changes`` may set ``chapter``, ``beat``, ``strength``, ``keyword``, ``pinned``,
        ``aliases`` and ``extra``; the tag and characters carry over from the old version.
        """
        batch = CandidateBatch(self)
        batch.supersede(memory_id, text, **changes)
        return batch.commit()[0]

    def stage(self) -> CandidateBatch:
        """A new candidate batch: staged memories stay invisible until ``commit()``."""
        return CandidateBatch(self)

    def successor_fields(
        self,
        old: Mapping[str, Any],
        *,
        chapter: int | None = None,
        beat: int | None = None,
        strength: float | None = None,
        keyword: str | None = None,
        pinned: bool | None = None,
        aliases: Iterable[str] | None = None,
        extra: Mapping[str, object] | None = None,
    ) -> dict[str, Any]:
        """The fields of a new version of the memory whose metadata is ``old``."""
        if old.get("superseded_by"):
            raise InvalidInputError(
                f"This memory was already superseded by {old['superseded_by']}.",
                hint="Supersede the latest version (see mem.history(id)).",
            )
        tag = str(old["tag"])
        return dict(
            character_name=old.get("character_name") or None,
            character1=old.get("character1") or None,
            character2=old.get("character2") or None,
            keyword=str(old.get("keyword", "")) if keyword is None else keyword,
            chapter=int(old.get("chapter", 0)) if chapter is None else chapter,
            beat=int(old.get("beat", 0)) if beat is None else beat,
            pinned=bool(old.get("pinned")) if pinned is None else pinned,
            aliases=split_aliases(old.get("aliases")) if aliases is None else list(aliases),
            extra=dict(extra) if extra else None,
            strength=self.default_strength(tag, strength)
            if strength is not None
            else max(float(old.get("memory_strength", 0)), self.default_strength(tag)),
        )

    def _update(self, memory_id: str, change: Callable[[Mapping[str, Any]], Metadata]) -> None:
        with self._lock:
            meta = self._fetch([memory_id], ["metadatas"])["metadatas"][0]
            new = change(meta)
            new["live_until"] = live_until({**meta, **new})
            rises = float(new["live_until"]) > float(meta.get("live_until", NEVER))
            if rises:
                self._raise_hints({memory_id: float(new["live_until"])})
            self._chroma(lambda: self.collection.update(ids=[memory_id], metadatas=[new]))
            if not rises:
                self._lower_hints({memory_id: float(new["live_until"])})

    def pin(self, memory_id: str) -> None:
        """Make a memory core: never forgotten (until unpinned); a forgotten one comes back."""
        self._update(memory_id, lambda m: {"pinned": True, "forgotten": False})

    def unpin(self, memory_id: str) -> None:
        """Return a pinned memory to normal decay, starting from the current turn."""
        self._update(
            memory_id,
            lambda m: {"pinned": False, **self._decay(m, float(m["memory_strength"]))},
        )

    def forget(self, memory_id: str) -> None:
        """Stop serving a memory now (it stays on disk; :meth:`restore` brings it back)."""
        self._update(memory_id, lambda m: {"forgotten": True})

    def restore(self, memory_id: str) -> None:
        """Serve a forgotten or decayed memory again, as if it had just been recalled."""
        self._update(
            memory_id,
            lambda m: {"forgotten": False, **self._decay(m, reinforced(m["memory_strength"]))},
        )

    def _decay(self, meta: Mapping[str, Any], strength: float) -> Metadata:
        return decay_fields(meta, last_turn=self._turn, strength=strength, threshold=self.threshold)

    def reinforce(self, ids: Sequence[str]) -> list[MemoryHit]:
        """Recall effect without a query: strength += 1 and time restarts. Returns the hits."""
        ids = list(dict.fromkeys(ids))
        if not ids:
            return []
        with self._lock:
            res = self._fetch(ids)
            res["metadatas"] = self._reinforce_rows(list(res["ids"]), res["metadatas"])
            return self._hits(res)

    def close(self) -> None:
        """Release an in-memory store (persistent stores need no closing)."""
        if self._ephemeral:
            with contextlib.suppress(Exception):
                self.client.delete_collection(self.collection.name)
            if self._index is not None:
                self._index.close()

    # ----------------------------------------------------------------- reading

    def recall(
        self,
        query: str,
        k: int = 5,
        where: Where | None = None,
        reinforce: bool = True,
        include_forgotten: bool = False,
        include_superseded: bool = False,
        tag: str | None = None,
    ) -> list[MemoryHit]:
        """The ``k`` memories most similar to ``query`` among those served now.

        ``where`` is a Chroma filter on the metadata (``tag``, ``character_name``, ``chapter``,
        ``last_turn``, ``memory_strength``, ``pinned``...), ANDed with the live filter. Returned
        hits are reinforced (unless ``reinforce=False``) and show the state after that.
        """
        if not isinstance(query, str) or not query.strip():
            raise InvalidInputError("recall() needs a non-empty query.")
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise InvalidInputError(f"k must be a positive integer, got {k!r}.")
        if where is not None and not isinstance(where, Mapping):
            raise InvalidInputError(f"where must be a dict (a Chroma filter), got {where!r}.")
        vector = self.embed(query, query=True)
        with self._lock:
            full = and_where(
                where,
                {"tag": check_tag(tag)} if tag else None,
                state_where(
                    self._turn,
                    include_forgotten=include_forgotten,
                    include_superseded=include_superseded,
                ),
            )
            found = None
            equal = simple_equalities(and_where(where, {"tag": tag} if tag else None))
            if equal and not include_forgotten and not include_superseded:
                got = self._indexed(equal, _WITH_VECTORS, limit=self.scan_limit)
                found = self._rank(got, vector, k) if got is not None else None
            if found is None and (where or tag):
                found = self._scan(full, vector, k)
            if found is None:
                res = self._chroma(
                    lambda: self.collection.query(
                        query_embeddings=[vector],
                        n_results=k,
                        where=full,
                        include=["documents", "metadatas", "distances"],
                    ),
                    "recall",
                )
                found = {key: list(res[key][0]) for key in ("ids", "documents", "metadatas")}
                found["distances"] = [float(d) for d in res["distances"][0]]
            if not found["ids"]:
                return []
            if reinforce:
                found["metadatas"] = self._reinforce_rows(found["ids"], found["metadatas"])
            cols = ("ids", "documents", "metadatas", "distances")
            rows = zip(*(found[c] for c in cols), strict=True)
            return [to_hit(i, doc, m, self._turn, d) for i, doc, m, d in rows]

    def _scan(self, where: Where | None, vector: list[float], k: int) -> dict[str, Any] | None:
        """Exact top-k over a small filtered set, or ``None`` if more than ``scan_limit`` match.

        Chroma's filtered ``query`` costs several times a filtered ``get`` on a large store,
        so a selective filter (a character, a keyword) is answered by fetching its few matches
        and ranking them here; the result is exact rather than approximate.
        """
        if self.scan_limit <= 0:
            return None
        got = self._chroma(
            lambda: self.collection.get(
                where=where, include=_WITH_VECTORS, limit=self.scan_limit + 1
            ),
            "recall",
        )
        if len(got["ids"]) > self.scan_limit:
            return None
        return self._rank(got, vector, k)

    @staticmethod
    def _rank(got: Mapping[str, Any], vector: list[float], k: int) -> dict[str, Any]:
        order = top_k_cosine(vector, got["embeddings"], k)
        return {
            "ids": [got["ids"][i] for i, _ in order],
            "documents": [got["documents"][i] for i, _ in order],
            "metadatas": [got["metadatas"][i] for i, _ in order],
            "distances": [d for _, d in order],
        }

    def _reinforce_rows(self, ids: list[str], metas: list[Mapping[str, Any]]) -> list[Metadata]:
        """Reinforce rows already read (one write); returns their updated metadata."""
        changes = [self._decay(m, reinforced(m["memory_strength"])) for m in metas]
        self._raise_hints({i: float(c["live_until"]) for i, c in zip(ids, changes, strict=True)})
        self._chroma(lambda: self.collection.update(ids=ids, metadatas=changes), "reinforcement")
        return [{**m, **c} for m, c in zip(metas, changes, strict=True)]

    def get(self, memory_id: str) -> MemoryHit:
        """One memory in whatever state it is (raises :class:`NotFoundError` if unknown)."""
        with self._lock:
            return self._hits(self._fetch([memory_id]))[0]

    def get_where(
        self,
        where: Where | None,
        limit: int | None = None,
        *,
        include_forgotten: bool = False,
        include_superseded: bool = False,
    ) -> list[MemoryHit]:
        """Exact metadata lookup (no similarity, no reinforcement), served memories only by
        default; newest first (chapter, beat, creation turn)."""
        if where is not None and not isinstance(where, Mapping):
            raise InvalidInputError(f"where must be a dict (a Chroma filter), got {where!r}.")
        with self._lock:
            equal = simple_equalities(where)
            res = None
            if equal is not None and not include_forgotten and not include_superseded:
                res = self._indexed(equal, _INCLUDE)
            if res is None:
                full = and_where(
                    where,
                    state_where(
                        self._turn,
                        include_forgotten=include_forgotten,
                        include_superseded=include_superseded,
                    ),
                )
                res = self._get_paged(full)
            hits = sorted(self._hits(res), key=recency_key, reverse=True)
        return hits[:limit] if limit is not None else hits

    def all(
        self, include_forgotten: bool = True, include_superseded: bool = True
    ) -> list[MemoryHit]:
        """Every stored memory (for the inspector), newest first."""
        return self.get_where(
            None, include_forgotten=include_forgotten, include_superseded=include_superseded
        )

    def __len__(self) -> int:
        """Number of stored memories, including forgotten and superseded ones."""
        return int(self._chroma(self.collection.count))

    def __repr__(self) -> str:
        return f"WriterMemory(collection={self.collection.name!r}, turn={self._turn})"
