"""Candidate memory: facts a draft beat implies, held back until the writer accepts the beat.

Nothing staged is visible to ``recall`` until :meth:`CandidateBatch.commit`, which writes every
candidate or none. Each candidate is validated when it is staged (so a bad extraction fails at
once) and again at commit time against the store as it is then.

:meth:`CandidateBatch.note` is how a pipeline states a fact: a fact already held (same subject,
same or near-same text) is reinforced instead of stored again, and a changing fact (a slot, see
:mod:`aizac.memory.facts`) supersedes the fact it replaces — decided here at staging and checked
again at commit. :meth:`CandidateBatch.pay_off` closes planted foreshadowing. Texts are embedded
at commit, all in one call.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from aizac.errors import InvalidInputError, NotFoundError
from aizac.memory.facts import (
    ADDRESS,
    LINEAGE_KEY,
    LISTENER_KEY,
    PROFILE,
    RULE,
    SPEAKER_KEY,
    fact_slot,
    fact_subject,
    name_key,
    same_text,
)
from aizac.memory.records import (
    MemoryFields,
    Metadata,
    build_metadata,
    check_tag,
    check_text,
    normalize_name,
    split_aliases,
)

if TYPE_CHECKING:
    from aizac.memory.lookups import Lookups
    from aizac.memory.records import MemoryHit


@dataclass
class Candidate:
    """One staged memory: a new fact, or a new version of an existing one (``supersedes``)."""

    id: str
    text: str
    tag: str
    fields: MemoryFields
    vector: list[float] | None = field(repr=False)
    """Embedded at commit (one call for the whole batch) when ``None``."""
    supersedes: str = ""
    metadata: Metadata = field(default_factory=dict, repr=False)
    """Validated metadata as of staging; turn fields are refreshed at commit."""
    outdates: list[str] = field(default_factory=list)
    """Current memories the extractor said this fact makes untrue (``replaces``), besides its
    slot's holder: superseded by it at commit too."""


class Committer(Protocol):
    """Writes a batch (:class:`~aizac.memory.commits.Commits`, which imports :class:`Candidate`
    from here)."""

    def commit(
        self, candidates: Sequence[Candidate], *, batch: str, reinforce: Sequence[str] = (),
        paid_off: Mapping[str, str] | None = None,
    ) -> list[str]:
        """Write ``candidates`` and the batch's changes atomically; returns the new ids."""


class StagingMemory(Protocol):
    """What a batch reads and writes through: the memory's reads (:class:`Lookups`), its
    commits, the story turn and the tag strengths. :class:`~aizac.memory.store.WriterMemory`
    is one; it imports this module to stage, so this module knows it only by this Protocol."""

    @property
    def lookups(self) -> Lookups:
        """Keyed and filtered reads of the stored rows."""

    @property
    def commits(self) -> Committer:
        """Where :meth:`CandidateBatch.commit` writes."""

    @property
    def turn(self) -> int:
        """The current story turn."""

    @property
    def threshold(self) -> float:
        """The forgetting threshold (validated metadata carries it)."""

    def default_strength(self, tag: str, strength: float | None = None) -> float:
        """``strength`` if given, else the tag's default from settings."""

    def get(self, memory_id: str) -> MemoryHit:
        """One memory in whatever state it is."""

    def characters(self) -> dict[str, list[str]]:
        """Canonical name -> aliases of the live cast."""

    def undo_commit(self, target: str | Sequence[str]) -> object:
        """Undo one commit (by its batch id)."""


def new_id() -> str:
    """A fresh memory id."""
    return uuid.uuid4().hex


class CandidateBatch:
    """Staged memories for one beat; ``commit()`` or ``discard()`` them together.

    Created by :meth:`WriterMemory.stage`. The ``remember`` and ``supersede`` methods take the
    same arguments as the memory's and return the id the memory will have once committed.
    """

    def __init__(self, memory: StagingMemory) -> None:
        self._memory = memory
        self._candidates: list[Candidate] = []
        self.reinforced: list[str] = []
        """Committed memories this batch restates (reinforced at commit)."""
        self.paid_off: dict[str, str] = {}
        """Open foreshadowing this batch pays off: memory id -> ``"<chapter>-<beat>"``."""
        self.state = "open"
        self.committed_ids: list[str] = []
        self.batch_id = new_id()

    def _check_open(self) -> None:
        if self.state != "open":
            raise InvalidInputError("error.memory.batch_state", state=self.state)

    def remember(self, text: str, tag: str, *, strength: float | None = None,
                 **fields: Any) -> str:
        """Stage a new memory; returns its future id.

        ``fields`` are those of :class:`~aizac.memory.records.MemoryFields` (the one home of a
        memory's fields): ``character_name``, ``character1``/``character2``, ``keyword``,
        ``chapter``, ``beat``, ``pinned``, ``aliases``, ``foreshadow``, ``aspect``,
        ``conflicts``, ``extra``, ``lineage``, ``flag``; ``strength`` defaults to the tag's
        (settings). A world rule without a ``lineage`` starts one: its own id.
        """
        self._check_open()
        text = check_text(text)
        given = MemoryFields.of(self._memory.default_strength(check_tag(tag), strength), **fields)
        mid = new_id()
        if given.aspect == RULE and not given.lineage:
            given.lineage = mid
        meta = self._validate(tag, given)
        cand = Candidate(mid, text, tag, given, None, "", meta)
        self._candidates.append(cand)
        return cand.id

    def note(self, text: str, tag: str, *, outdates: Iterable[str] = (),
             **fields: Any) -> str | None:
        """State a fact (same arguments as :meth:`remember`).

        Returns the id of the new memory (a new fact, or a new version of a changing fact,
        which supersedes the current one of its slot at commit), the id of a candidate of this
        batch that already states it, or ``None`` when a committed memory already states it
        (that memory is reinforced at commit instead).

        ``outdates``: ids of current memories the fact makes untrue besides its slot's holder
        (what the extractor said it ``replaces``): superseded by it at commit.
        """
        self._check_open()
        text = check_text(text)
        strength = self._memory.default_strength(check_tag(tag), fields.pop("strength", None))
        meta = self._validate(tag, MemoryFields.of(strength, **fields))
        slot, subject = fact_slot(meta), fact_subject(meta)
        gone = [i for i in dict.fromkeys(outdates) if i]
        for cand in reversed(self._candidates):
            same_key = (slot and fact_slot(cand.metadata) == slot) or (
                not slot and cand.tag == tag and fact_subject(cand.metadata) == subject
            )
            if same_key and same_text(cand.text, text):
                cand.outdates.extend(i for i in gone if i not in cand.outdates)
                return cand.id
            if slot and same_key:
                break  # a later version of this slot: it supersedes the staged one at commit
        else:
            held = self._memory.lookups.slot_holders(meta) if slot else []
            found = held[0] if held and same_text(held[0].text, text) else None
            if not slot:
                found = self._memory.lookups.restated(meta, text)
            if found is not None and not [i for i in gone if i != found.id]:
                if found.id not in self.reinforced:
                    self.reinforced.append(found.id)
                return None
        new = self.remember(text, tag, strength=strength, **fields)
        self._candidates[-1].outdates = [i for i in gone if i != new]
        return new

    def alias(self, name: str, alias: str) -> None:
        """Learn ``alias`` as another name of character ``name`` at commit: the character's
        profile (who they are) gets a new version that holds it; a character without one gets
        a profile that is just their name. Idempotent within a batch."""
        self._check_open()
        canonical = normalize_name(name)
        form = normalize_name(alias)
        if not canonical or not form or name_key(canonical) == name_key(form):
            return
        staged = next((c for c in self._candidates if c.tag == "Character"
                       and c.metadata.get("aspect") == PROFILE
                       and name_key(str(c.metadata.get("character_name"))) == name_key(
                           canonical)), None)
        if staged is not None:
            known = split_aliases(staged.metadata.get("aliases"))
            if name_key(form) not in {name_key(a) for a in known}:
                self._restage(staged, aliases=[*known, form])
            return
        held = self._memory.lookups.slot_holders(
            {"tag": "Character", "aspect": PROFILE, "character_name": canonical})
        if held:
            profile = held[0]
            if name_key(form) in {name_key(a) for a in profile.aliases}:
                return
            self.supersede(profile.id, profile.text, aliases=[*profile.aliases, form])
            return
        self.remember(canonical, "Character", character_name=canonical, aspect=PROFILE,
                      aliases=[form], chapter=0)

    def _restage(self, cand: Candidate, **changes: Any) -> None:
        """Change fields of a staged candidate (validated again)."""
        for key, value in changes.items():
            setattr(cand.fields, key, value)
        cand.metadata = self._validate(cand.tag, cand.fields)

    def pay_off(self, memory_id: str, *, chapter: int = 0, beat: int = 0) -> None:
        """Close the open foreshadowing ``memory_id`` at commit (paid off at chapter-beat)."""
        self._check_open()
        self.paid_off[memory_id] = f"{chapter}-{beat}"

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
            raise InvalidInputError("error.memory.staged_not_committed", id=memory_id)
        if any(c.supersedes == memory_id for c in self._candidates):
            raise InvalidInputError("error.memory.already_superseding", id=memory_id)
        old = self._memory.get(memory_id)
        fields = successor_fields(
            self._memory,
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
        cand = Candidate(new_id(), text, old.tag, fields, None, memory_id, meta)
        self._candidates.append(cand)
        return cand.id

    def _validate(self, tag: str, fields: MemoryFields) -> Metadata:
        return build_metadata(
            tag, fields, turn=self._memory.turn, threshold=self._memory.threshold
        )

    def drop(self, candidate_id: str) -> None:
        """Remove one staged candidate (the writer rejected that fact)."""
        self._check_open()
        before = len(self._candidates)
        self._candidates = [c for c in self._candidates if c.id != candidate_id]
        if len(self._candidates) == before:
            raise NotFoundError("error.memory.no_candidate", id=candidate_id)

    @property
    def candidates(self) -> list[Candidate]:
        """The staged candidates, in staging order."""
        return list(self._candidates)

    def __len__(self) -> int:
        return len(self._candidates)

    def commit(self) -> list[str]:
        """Write every candidate or none; returns the committed ids in staging order."""
        self._check_open()
        self.committed_ids = self._memory.commits.commit(
            self._candidates, batch=self.batch_id, reinforce=self.reinforced,
            paid_off=self.paid_off,
        )
        self.state = "committed"
        return list(self.committed_ids)

    def discard(self) -> None:
        """Drop every candidate; nothing is written."""
        self._check_open()
        self._candidates.clear()
        self.reinforced.clear()
        self.paid_off.clear()
        self.state = "discarded"

    def revert(self) -> None:
        """Undo a commit: delete what it added and restore what it superseded."""
        if self.state != "committed":
            raise InvalidInputError("error.memory.revert_uncommitted")
        self._memory.undo_commit(self.batch_id)
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


def successor_fields(
    memory: StagingMemory,
    old: Mapping[str, Any],
    *,
    chapter: int | None = None,
    beat: int | None = None,
    strength: float | None = None,
    keyword: str | None = None,
    pinned: bool | None = None,
    aliases: Iterable[str] | None = None,
    extra: Mapping[str, object] | None = None,
) -> MemoryFields:
    """The fields of a new version of the memory whose metadata is ``old``."""
    if old.get("superseded_by"):
        raise InvalidInputError("error.memory.already_superseded", later=old["superseded_by"])
    tag = str(old["tag"])
    if old.get("aspect") == ADDRESS:  # who speaks to whom is the fact's slot: it stays
        keep = {k: old[k] for k in (SPEAKER_KEY, LISTENER_KEY) if k in old}
        extra = {**keep, **(extra or {})}
    return MemoryFields(
        character_name=old.get("character_name") or None,
        character1=old.get("character1") or None,
        character2=old.get("character2") or None,
        keyword=str(old.get("keyword", "")) if keyword is None else keyword,
        chapter=int(old.get("chapter", 0)) if chapter is None else chapter,
        beat=int(old.get("beat", 0)) if beat is None else beat,
        pinned=bool(old.get("pinned")) if pinned is None else pinned,
        aliases=split_aliases(old.get("aliases")) if aliases is None else list(aliases),
        aspect=str(old.get("aspect") or "") or None,
        extra=dict(extra) if extra else None,
        lineage=str(old.get(LINEAGE_KEY) or ""),
        strength=memory.default_strength(tag, strength)
        if strength is not None
        else max(float(old.get("memory_strength", 0)), memory.default_strength(tag)),
    )


__all__ = ["Candidate", "CandidateBatch", "Committer", "StagingMemory", "new_id",
           "successor_fields"]
