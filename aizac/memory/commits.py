"""Committing staged candidates atomically, and undoing a commit (WriterMemory's write side).

A commit validates everything first, then writes the new memories in one Chroma ``add`` and
marks what they supersede in one ``update``; if the second write fails the first is deleted
again, so a commit is all or nothing. ``undo_commit`` deletes what a commit added and makes the
versions it superseded current again (the web app's undo of an accepted beat).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from aizac.errors import InvalidInputError, StorageError
from aizac.memory.key_index import KeyIndex
from aizac.memory.records import NEVER, Metadata, build_metadata, decay_fields, live_until
from aizac.memory.staging import Candidate


class CommitMixin:
    """Mixin for :class:`~aizac.memory.store.WriterMemory`, which provides the helpers below."""

    _lock: threading.RLock
    _turn: int
    _index: KeyIndex | None
    threshold: float
    clock: Callable[[], float] | None
    collection: Any

    def _fetch(
        self, ids: Sequence[str], include: list[str] | None = None
    ) -> dict[str, Any]:  # pragma: no cover - provided by WriterMemory
        raise NotImplementedError

    def _chroma(
        self, call: Callable[[], Any], what: str = "memory store"
    ) -> Any:  # pragma: no cover - provided by WriterMemory
        raise NotImplementedError

    def _raise_hints(self, lives: Mapping[str, float]) -> None:  # pragma: no cover
        raise NotImplementedError

    def _lower_hints(
        self, lives: Mapping[str, float] | None, drop: Sequence[str] = ()
    ) -> None:  # pragma: no cover - provided by WriterMemory
        raise NotImplementedError

    def commit_candidates(self, candidates: Sequence[Candidate]) -> list[str]:
        """Write ``candidates`` atomically (used by :class:`CandidateBatch`)."""
        if not candidates:
            return []
        with self._lock:
            turn = self._turn
            targets = [c.supersedes for c in candidates if c.supersedes]
            olds = self._fetch(targets, ["metadatas"]) if targets else {"ids": [], "metadatas": []}
            old_meta = dict(zip(olds["ids"], olds["metadatas"], strict=True))
            metas: list[Metadata] = []
            for c in candidates:
                if c.supersedes and old_meta[c.supersedes].get("superseded_by"):
                    raise InvalidInputError(
                        f"Memory {c.supersedes} was superseded meanwhile; nothing was written.",
                        hint="Stage the change again against the latest version.",
                    )
                meta = dict(c.metadata) or build_metadata(
                    c.tag, turn=turn, threshold=self.threshold, **c.fields
                )
                meta["supersedes"] = c.supersedes
                if self.clock is not None:
                    meta["created_at"] = self.clock()
                meta["created_turn"] = turn
                meta.update(
                    decay_fields(
                        meta,
                        last_turn=turn,
                        strength=float(meta["memory_strength"]),
                        threshold=self.threshold,
                    )
                )
                metas.append(meta)
            ids = [c.id for c in candidates]
            if self._index is not None:
                self._index.add(zip(ids, metas, strict=True))
            try:
                self._chroma(
                    lambda: self.collection.add(
                        ids=ids,
                        embeddings=[c.vector for c in candidates],
                        metadatas=metas,
                        documents=[c.text for c in candidates],
                    ),
                    "memory write",
                )
            except Exception:
                with contextlib.suppress(Exception):  # in case the store kept part of it
                    self.collection.delete(ids=ids)
                self._lower_hints(None, drop=ids)
                raise
            if targets:
                updates = []
                for c in candidates:
                    if c.supersedes:
                        merged = {**old_meta[c.supersedes], "superseded_by": c.id}
                        updates.append({"superseded_by": c.id, "live_until": live_until(merged)})
                try:
                    self._chroma(
                        lambda: self.collection.update(
                            ids=targets,
                            metadatas=updates,
                        ),
                        "memory write",
                    )
                except Exception:
                    self._rollback_add(ids)
                    self._lower_hints(None, drop=ids)
                    raise
                self._lower_hints({t: NEVER for t in targets})
            return ids

    def _rollback_add(self, ids: list[str]) -> None:
        try:
            self.collection.delete(ids=ids)
        except Exception as e:  # the store is now inconsistent: say so loudly
            raise StorageError(
                f"A failed commit could not be rolled back ({e}); ids {ids} may be half-written.",
                hint="Delete those ids with mem.undo_commit(ids) once the store is reachable.",
            ) from e

    def undo_commit(self, ids: Sequence[str]) -> None:
        """Delete memories a commit added and make what they superseded current again.

        Raises:
            NotFoundError: an id does not exist (nothing is changed).
            InvalidInputError: a memory to undo was itself superseded by a later change.
        """
        ids = list(dict.fromkeys(ids))
        if not ids:
            return
        with self._lock:
            gone = self._fetch(ids, ["documents", "metadatas", "embeddings"])
            undone = set(ids)
            restore_ids: list[str] = []
            restore_meta: list[Metadata] = []
            for mid, meta in zip(gone["ids"], gone["metadatas"], strict=True):
                later = meta.get("superseded_by")
                if later and later not in undone:
                    raise InvalidInputError(
                        f"Memory {mid} was superseded later by {later}; undo that change first."
                    )
                prev = str(meta.get("supersedes") or "")
                if prev and prev not in undone:
                    restore_ids.append(prev)
            if restore_ids:
                prev_res = self._fetch(restore_ids, ["metadatas"])
                for pmeta in prev_res["metadatas"]:
                    merged = {**pmeta, "superseded_by": ""}
                    restore_meta.append({"superseded_by": "", "live_until": live_until(merged)})
                restore_ids = list(prev_res["ids"])
                self._raise_hints(
                    {
                        i: float(m["live_until"])
                        for i, m in zip(restore_ids, restore_meta, strict=True)
                    }
                )
            self._chroma(lambda: self.collection.delete(ids=list(gone["ids"])), "memory undo")
            if restore_ids:
                try:
                    self._chroma(
                        lambda: self.collection.update(
                            ids=restore_ids,
                            metadatas=restore_meta,
                        ),
                        "memory undo",
                    )
                except Exception:
                    self.collection.add(
                        ids=list(gone["ids"]),
                        embeddings=gone["embeddings"],
                        metadatas=gone["metadatas"],
                        documents=gone["documents"],
                    )
                    raise
            self._lower_hints(None, drop=list(gone["ids"]))
