"""Candidate memory: facts a draft beat implies, held back until the writer accepts the beat.

Nothing staged is visible to ``recall`` until :meth:`CandidateBatch.commit`, which writes every
candidate or none. Each candidate is validated when it is staged (so a bad extraction fails at
once) and again at commit time against the store as it is then.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aizac.errors import InvalidInputError, NotFoundError
from aizac.memory.records import Metadata, build_metadata, check_tag, check_text

if TYPE_CHECKING:
    from aizac.memory.store import WriterMemory


@dataclass
class Candidate:
    """One staged memory: a new fact, or a new version of an existing one (``supersedes``)."""

    id: str
    text: str
    tag: str
    fields: dict[str, Any]
    vector: list[float] = field(repr=False)
    supersedes: str = ""
    metadata: Metadata = field(default_factory=dict, repr=False)
    """Validated metadata as of staging; turn fields are refreshed at commit."""


def new_id() -> str:
    """A fresh memory id."""
    return uuid.uuid4().hex


class CandidateBatch:
    """Staged memories for one beat; ``commit()`` or ``discard()`` them together.

    Created by :meth:`WriterMemory.stage`. The ``remember`` and ``supersede`` methods take the
    same arguments as the memory's and return the id the memory will have once committed.
    """

    def __init__(self, memory: WriterMemory) -> None:
        self._memory = memory
        self._candidates: list[Candidate] = []
        self.state = "open"
        self.committed_ids: list[str] = []

    def _check_open(self) -> None:
        if self.state != "open":
            raise InvalidInputError(
                f"This candidate batch is already {self.state}.",
                hint="Call mem.stage() for a new batch.",
            )

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
        """Stage a new memory (see :meth:`WriterMemory.remember`); returns its future id."""
        self._check_open()
        text = check_text(text)
        fields: dict[str, Any] = dict(
            character_name=character_name,
            character1=character1,
            character2=character2,
            keyword=keyword,
            chapter=chapter,
            beat=beat,
            pinned=pinned,
            aliases=list(aliases) if aliases is not None else None,
            foreshadow=foreshadow,
            extra=dict(extra) if extra else None,
            strength=self._memory.default_strength(check_tag(tag), strength),
        )
        meta = self._validate(tag, fields)
        cand = Candidate(new_id(), text, tag, fields, self._memory.embed(text), "", meta)
        self._candidates.append(cand)
        return cand.id

    def supersede(
        self,
        memory_id: str,
        text: str,
        *,
        chapter: int | None = None,
        beat: int | None = None,
        strength: float | None = None,
        keyword: str | None = None,
        pinned: bool | None = None,
        aliases: Iterable[str] | None = None,
        extra: Mapping[str, object] | None = None,
    ) -> str:
        """Stage a new version of committed memory ``memory_id``; returns the new id."""
        self._check_open()
        text = check_text(text)
        if any(c.id == memory_id for c in self._candidates):
            raise InvalidInputError(
                f"{memory_id} is a staged candidate, not a committed memory.",
                hint="Drop the candidate and stage the corrected fact instead.",
            )
        if any(c.supersedes == memory_id for c in self._candidates):
            raise InvalidInputError(f"This batch already supersedes {memory_id}.")
        old = self._memory.get(memory_id)
        fields = self._memory.successor_fields(
            old.metadata,
            chapter=chapter,
            beat=beat,
            strength=strength,
            keyword=keyword,
            pinned=pinned,
            aliases=aliases,
            extra=extra,
        )
        meta = self._validate(old.tag, fields)
        cand = Candidate(new_id(), text, old.tag, fields, self._memory.embed(text), memory_id, meta)
        self._candidates.append(cand)
        return cand.id

    def _validate(self, tag: str, fields: dict[str, Any]) -> Metadata:
        return build_metadata(
            tag, turn=self._memory.turn, threshold=self._memory.threshold, **fields
        )

    def drop(self, candidate_id: str) -> None:
        """Remove one staged candidate (the writer rejected that fact)."""
        self._check_open()
        before = len(self._candidates)
        self._candidates = [c for c in self._candidates if c.id != candidate_id]
        if len(self._candidates) == before:
            raise NotFoundError(f"No staged candidate {candidate_id!r} in this batch.")

    @property
    def candidates(self) -> list[Candidate]:
        """The staged candidates, in staging order."""
        return list(self._candidates)

    def __len__(self) -> int:
        return len(self._candidates)

    def commit(self) -> list[str]:
        """Write every candidate or none; returns the committed ids in staging order."""
        self._check_open()
        self.committed_ids = self._memory.commit_candidates(self._candidates)
        self.state = "committed"
        return list(self.committed_ids)

    def discard(self) -> None:
        """Drop every candidate; nothing is written."""
        self._check_open()
        self._candidates.clear()
        self.state = "discarded"

    def revert(self) -> None:
        """Undo a commit: delete what it added and restore what it superseded."""
        if self.state != "committed":
            raise InvalidInputError("Only a committed batch can be reverted.")
        self._memory.undo_commit(self.committed_ids)
        self.state = "reverted"

    def __enter__(self) -> CandidateBatch:
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        """Commit on a clean exit, discard when the block raised (if still open)."""
        if self.state == "open":
            if exc_type is None:
                self.commit()
            else:
                self.discard()


__all__ = ["Candidate", "CandidateBatch", "new_id"]
