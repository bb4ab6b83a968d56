"""Recall and strength changes: similarity reads, reinforcement, pins, forget and restore.

:class:`Recall` is WriterMemory's collaborator for everything that reads by similarity or
changes a memory's strength or liveness. Forgetting math is pure (:mod:`aizac.memory.forgetting`);
rows go through the shared :class:`~aizac.memory.rows.Rows` gateway.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from aizac.errors import InvalidInputError
from aizac.memory.forgetting import reinforced
from aizac.memory.key_index import simple_equalities
from aizac.memory.lookups import Lookups
from aizac.memory.records import (
    MemoryHit,
    Metadata,
    Where,
    and_where,
    check_tag,
    decay_fields,
    live_until,
    state_where,
    to_hit,
    top_k_cosine,
)
from aizac.memory.rows import WITH_VECTORS, Rows


class Recall:
    """Similarity reads and strength changes of one memory collection.

    Args:
        rows: the row gateway.
        lookups: keyed reads (builds hits).
        embed_query: query text -> vector.
        turn: the current story turn.
        threshold: the forgetting threshold.
    """

    def __init__(
        self,
        rows: Rows,
        lookups: Lookups,
        *,
        embed_query: Callable[[str], list[float]],
        turn: Callable[[], int],
        threshold: float,
    ) -> None:
        self.rows = rows
        self.lookups = lookups
        self.embed_query = embed_query
        self.turn = turn
        self.threshold = threshold
        self.collection = rows.collection

    @property
    def _lock(self) -> Any:
        return self.rows.lock

    @property
    def scan_limit(self) -> int:
        return self.rows.scan_limit

    def _update(self, memory_id: str, change: Callable[[Mapping[str, Any]], Metadata]) -> None:
        with self._lock:
            meta = self.rows.fetch([memory_id], ["metadatas"])["metadatas"][0]
            new = change(meta)
            new["live_until"] = live_until({**meta, **new})
            self.rows.update({memory_id: new})

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
        return decay_fields(
            meta, last_turn=self.turn(), strength=strength, threshold=self.threshold
        )

    def reinforce(self, ids: Sequence[str]) -> list[MemoryHit]:
        """Recall effect without a query: strength += 1 and time restarts. Returns the hits."""
        ids = list(dict.fromkeys(ids))
        if not ids:
            return []
        with self._lock:
            res = self.rows.fetch(ids)
            res["metadatas"] = self._reinforce_rows(list(res["ids"]), res["metadatas"])
            return self.lookups.hits(res)


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
            raise InvalidInputError("error.memory.empty_query")
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise InvalidInputError("error.memory.k", got=repr(k))
        if where is not None and not isinstance(where, Mapping):
            raise InvalidInputError("error.memory.where", got=repr(where))
        vector = self.embed_query(query)
        with self._lock:
            now = self.turn()
            full = and_where(
                where,
                {"tag": check_tag(tag)} if tag else None,
                state_where(
                    now,
                    include_forgotten=include_forgotten,
                    include_superseded=include_superseded,
                ),
            )
            found = None
            equal = simple_equalities(and_where(where, {"tag": tag} if tag else None))
            if equal and not include_forgotten and not include_superseded:
                got = self.rows.indexed(equal, WITH_VECTORS, now, limit=self.scan_limit)
                found = self._rank(got, vector, k) if got is not None else None
            if found is None and (where or tag):
                found = self._scan(full, vector, k)
            if found is None:
                res = self.rows.chroma(
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
            return [to_hit(i, doc, m, now, d) for i, doc, m, d in rows]

    def _scan(self, where: Where | None, vector: list[float], k: int) -> dict[str, Any] | None:
        """Exact top-k over a small filtered set, or ``None`` if more than ``scan_limit`` match.

        Chroma's filtered ``query`` costs several times a filtered ``get`` on a large store,
        so a selective filter (a character, a keyword) is answered by fetching its few matches
        and ranking them here; the result is exact rather than approximate.
        """
        if self.scan_limit <= 0:
            return None
        got = self.rows.chroma(
            lambda: self.collection.get(
                where=where, include=WITH_VECTORS, limit=self.scan_limit + 1
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
        self.rows.update(dict(zip(ids, changes, strict=True)), rises=True)
        return [{**m, **c} for m, c in zip(metas, changes, strict=True)]

    # ----------------------------------------------------------- keyed reads (Lookups)

