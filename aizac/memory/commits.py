"""Committing staged candidates atomically; undo, redo and crash recovery of a commit.

A commit validates everything first, records itself in the :class:`CommitJournal`, then writes
the new memories in one Chroma ``add`` and every change to existing rows (supersede marks,
reinforced restatements, paid-off foreshadowing) in one ``update``. If a write fails what was
written is removed again; if the process dies between the two writes, :meth:`Commits.recover`
re-applies the update (it is absolute, so twice is the same as once).

Supersession is resolved here, against the store as it is at commit time: a candidate whose fact
has a slot (:func:`aizac.memory.facts.fact_slot`) supersedes the slot's current holder(s), or the
previous candidate of the same slot in this batch.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from aizac.errors import InvalidInputError, NotFoundError, StorageError
from aizac.memory.facts import fact_slot
from aizac.memory.forgetting import reinforced
from aizac.memory.journal import (
    DONE,
    KEEP,
    PENDING,
    UNDONE,
    CommitJournal,
    CommitSnapshot,
    prior_values,
)
from aizac.memory.lookups import Lookups
from aizac.memory.records import NEVER, Metadata, build_metadata, decay_fields, live_until
from aizac.memory.rows import Rows
from aizac.memory.staging import Candidate

PRUNE_EVERY = 20
"""Commits between two prunings of the journal."""
Decay = Callable[[Mapping[str, Any], float], Metadata]
EmbedMany = Callable[[list[str]], list[list[float]]]


class Commits:
    """The write side of a memory: commit, undo, redo, recover.

    Args:
        rows: the row gateway.
        lookups: keyed reads (slot holders at commit time).
        journal: where each commit is recorded.
        embed_many: texts -> vectors, one call for a whole commit.
        turn: the current story turn.
        threshold: the forgetting threshold.
        clock: optional wall clock; new memories then carry ``created_at``.
    """

    def __init__(
        self,
        rows: Rows,
        lookups: Lookups,
        journal: CommitJournal,
        *,
        embed_many: EmbedMany,
        turn: Callable[[], int],
        threshold: float,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.rows = rows
        self.lookups = lookups
        self.journal = journal
        self.embed_many = embed_many
        self.turn = turn
        self.threshold = threshold
        self.clock = clock
        self._commits = 0

    def _decay(self, meta: Mapping[str, Any], strength: float) -> Metadata:
        return decay_fields(
            meta, last_turn=self.turn(), strength=strength, threshold=self.threshold
        )

    # -------------------------------------------------------------------------- commit
    def commit(
        self,
        candidates: Sequence[Candidate],
        *,
        batch: str,
        reinforce: Sequence[str] = (),
        paid_off: Mapping[str, str] | None = None,
        edits: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> list[str]:
        """Write ``candidates`` and the batch's changes atomically; returns the new ids.

        ``edits``: memory id -> metadata fields to set on an existing current memory (how the
        writer settles a flagged pair: a supersede mark, an aspect, a cleared flag), journaled
        like the rest so undo puts the old values back."""
        paid_off = dict(paid_off or {})
        edits = {k: dict(v) for k, v in (edits or {}).items()}
        if not candidates and not reinforce and not paid_off and not edits:
            return []
        with self.rows.lock:
            missing = [c for c in candidates if c.vector is None]
            if missing:
                vectors = self.embed_many([c.text for c in missing])
                for cand, vector in zip(missing, vectors, strict=True):
                    cand.vector = list(vector)
            snap = self._plan(candidates, batch, reinforce, paid_off, edits)
            self.journal.put(snap, PENDING)
            try:
                if snap.ids:
                    self.rows.add(snap.ids, snap.embeddings, snap.metadatas, snap.documents)
            except Exception:
                self.journal.drop(batch)
                raise
            try:
                self.rows.update(snap.updates)
            except Exception:
                self._rollback_add(snap.ids)
                self.journal.drop(batch)
                raise
            self.journal.set_status(batch, DONE)
            self._commits += 1
            if self._commits % PRUNE_EVERY == 0:
                self.journal.prune(KEEP)
            return list(snap.ids)

    def _plan(
        self,
        candidates: Sequence[Candidate],
        batch: str,
        reinforce: Sequence[str],
        paid_off: Mapping[str, str],
        edits: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> CommitSnapshot:
        turn = self.turn()
        snap = CommitSnapshot(batch=batch, turn=turn)
        current: dict[str, dict[str, Any]] = {}  # metadata of existing rows this commit changes

        def change(mid: str, fields: dict[str, Any], meta: Mapping[str, Any]) -> None:
            current.setdefault(mid, dict(meta))
            snap.prior.setdefault(mid, {})
            for key, value in prior_values(current[mid], fields).items():
                snap.prior[mid].setdefault(key, value)
            snap.updates.setdefault(mid, {}).update(fields)
            current[mid].update(fields)

        last_in_slot: dict[str, int] = {}
        for cand in candidates:
            meta = dict(cand.metadata) or build_metadata(
                cand.tag, cand.fields, turn=turn, threshold=self.threshold
            )
            slot = fact_slot(meta)
            targets = self._targets(cand, meta, slot, last_in_slot, snap)
            meta.update(supersedes=targets[0][0] if targets else "", batch=batch,
                        created_turn=turn, superseded_by="")
            if self.clock is not None:
                meta["created_at"] = self.clock()
            meta.update(self._decay_at(meta, turn))
            ended = {"superseded_by": cand.id, "live_until": NEVER, "ended_turn": turn}
            for mid, old in targets:
                if mid in snap.ids:  # an earlier candidate of this batch
                    snap.metadatas[snap.ids.index(mid)].update(ended)
                else:
                    change(mid, dict(ended), old)
            late = [i for i in cand.outdates if i not in {m for m, _ in targets}
                    and i not in snap.ids]
            if late:  # facts the extractor said this one makes untrue (by reference)
                got = self.rows.by_ids(late, ["metadatas"])
                for mid, old in zip(got["ids"], got["metadatas"], strict=True):
                    if not current.get(mid, old).get("superseded_by"):
                        change(mid, dict(ended), old)
            if slot:
                last_in_slot[slot] = len(snap.ids)
            snap.ids.append(cand.id)
            snap.documents.append(cand.text)
            snap.metadatas.append(meta)
            snap.embeddings.append(list(cand.vector or []))
        edits = edits or {}
        if edits:
            got = self.rows.fetch(list(edits), ["metadatas"])  # every id must exist
            for mid, meta in zip(got["ids"], got["metadatas"], strict=True):
                edit = dict(edits[mid])
                edit["live_until"] = live_until({**meta, **edit})
                change(mid, edit, meta)
        touched = [i for i in dict.fromkeys([*reinforce, *paid_off]) if i not in current]
        if touched:
            # A memory to reinforce may be gone (an undone commit): it is skipped, not an error.
            got = self.rows.by_ids(touched, ["metadatas"])
            missing = [i for i in paid_off if i in touched and i not in got["ids"]]
            if missing:
                raise NotFoundError("error.memory.unknown_ids", ids=", ".join(missing[:5]))
            for mid, meta in zip(got["ids"], got["metadatas"], strict=True):
                if meta.get("superseded_by"):
                    continue
                fields: dict[str, Any] = {}
                if mid in reinforce:
                    fields.update(self._decay(meta, reinforced(meta["memory_strength"])))
                if mid in paid_off and meta.get("foreshadow"):
                    fields.update(foreshadow=False, paid_off=paid_off[mid])
                    fields["live_until"] = live_until({**meta, **fields})  # no longer held
                if fields:
                    change(mid, fields, meta)
        return snap

    def _decay_at(self, meta: Mapping[str, Any], turn: int) -> Metadata:
        return decay_fields(
            meta, last_turn=turn, strength=float(meta["memory_strength"]),
            threshold=self.threshold,
        )

    def _targets(
        self,
        cand: Candidate,
        meta: Mapping[str, Any],
        slot: str,
        last_in_slot: Mapping[str, int],
        snap: CommitSnapshot,
    ) -> list[tuple[str, Mapping[str, Any]]]:
        """What ``cand`` supersedes: ``(id, metadata)`` pairs, the main predecessor first."""
        if slot and slot in last_in_slot:
            n = last_in_slot[slot]
            return [(snap.ids[n], snap.metadatas[n])]
        if cand.supersedes:
            old = self.rows.fetch([cand.supersedes], ["metadatas"])["metadatas"][0]
            if not old.get("superseded_by"):
                return [(cand.supersedes, old)]
            if not slot:
                raise InvalidInputError("error.memory.superseded_meanwhile", id=cand.supersedes)
        if not slot:
            return []
        return [(h.id, h.metadata) for h in self.lookups.slot_holders(meta)]

    def _rollback_add(self, ids: list[str]) -> None:
        try:
            self.rows.delete(ids)
        except Exception as e:  # the store is now inconsistent: say so loudly
            raise StorageError("error.memory.rollback", cause=str(e), ids=str(ids)) from e

    # ------------------------------------------------------------------ recover / undo / redo
    def recover(self) -> int:
        """Finish or drop commits a crash interrupted; returns how many were finished."""
        finished = 0
        with self.rows.lock:
            for snap in self.journal.with_status(PENDING):
                present = self.rows.by_ids(snap.ids, ["metadatas"])["ids"] if snap.ids else []
                if snap.ids and len(present) < len(snap.ids):
                    self.rows.delete(present)  # the add never completed: as if never made
                    self.journal.drop(snap.batch)
                    continue
                self.rows.update(snap.updates)
                self.journal.set_status(snap.batch, DONE)
                finished += 1
        return finished

    def batch_of(self, ids: Sequence[str]) -> str:
        """The commit that added ``ids`` (``""`` for memories written before commits had ids)."""
        if not ids:
            return ""
        meta = self.rows.fetch([ids[0]], ["metadatas"])["metadatas"][0]
        return str(meta.get("batch") or "")

    def undo(self, target: str | Sequence[str]) -> CommitSnapshot:
        """Undo a commit (by batch id, or by the ids it added); see ``WriterMemory.undo_commit``."""
        with self.rows.lock:
            ids = [target] if isinstance(target, str) else list(dict.fromkeys(target))
            found = self.journal.get(target) if isinstance(target, str) else None
            if found is None and ids:
                self.rows.fetch(ids, ["metadatas"])  # every id must exist
                batch = self.batch_of(ids)
                found = self.journal.get(batch) if batch else None
                if found is not None and set(found[0].ids) != set(ids):
                    found = None  # not one whole commit: undo just these memories
            if found is None:
                return self._undo_unjournaled(ids)
            snap, status = found
            batch = snap.batch
            if status == UNDONE:
                raise InvalidInputError("error.memory.already_undone", batch=batch)
            rows = self.rows.fetch(snap.ids, ["metadatas"]) if snap.ids else {"metadatas": []}
            for mid, meta in zip(snap.ids, rows["metadatas"], strict=True):
                later = meta.get("superseded_by")
                if later and later not in snap.ids:
                    raise InvalidInputError("error.memory.superseded_later", id=mid, later=later)
            restores = self._restores(snap.prior)
            self.rows.delete(snap.ids)
            self.rows.update(restores)
            self.journal.set_status(batch, UNDONE)
            return snap

    def _restores(self, prior: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
        if not prior:
            return {}
        got = self.rows.by_ids(list(prior), ["metadatas"])
        out: dict[str, dict[str, Any]] = {}
        for mid, meta in zip(got["ids"], got["metadatas"], strict=True):
            fields = {k: v for k, v in prior[mid].items() if k != "live_until"}
            fields["live_until"] = live_until({**meta, **fields})
            out[mid] = fields
        return out

    def _undo_unjournaled(self, ids: list[str]) -> CommitSnapshot:
        """Undo of a commit made before the journal existed: delete and un-supersede."""
        if not ids:
            return CommitSnapshot(batch="", turn=self.turn())
        gone = self.rows.fetch(ids, ["documents", "metadatas", "embeddings"])
        prior: dict[str, dict[str, Any]] = {}
        for mid, meta in zip(gone["ids"], gone["metadatas"], strict=True):
            later = meta.get("superseded_by")
            if later and later not in ids:
                raise InvalidInputError("error.memory.superseded_later", id=mid, later=later)
            prev = str(meta.get("supersedes") or "")
            if prev and prev not in ids:
                prior[prev] = {"superseded_by": ""}
        restores = self._restores(prior)
        self.rows.delete(ids)
        self.rows.update(restores)
        return CommitSnapshot(
            batch="", turn=self.turn(), ids=list(gone["ids"]), documents=gone["documents"],
            metadatas=gone["metadatas"],
            embeddings=[[float(x) for x in v] for v in gone["embeddings"]],
            prior=prior,
        )

    def redo(self, batch: str) -> list[str]:
        """Put back exactly what undone commit ``batch`` wrote; returns its ids (no model or
        embedding call)."""
        with self.rows.lock:
            found = self.journal.get(batch)
            if found is None or found[1] != UNDONE:
                raise InvalidInputError("error.memory.nothing_to_redo", batch=batch)
            snap = found[0]
            self.journal.set_status(batch, PENDING)  # recovery finishes a redo cut short
            if snap.ids:
                self.rows.add(snap.ids, snap.embeddings, snap.metadatas, snap.documents)
            self.rows.update(snap.updates)
            self.journal.set_status(batch, DONE)
            return list(snap.ids)
