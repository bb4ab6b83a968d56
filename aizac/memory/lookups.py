"""Keyed lookups over WriterMemory: exact metadata reads, never a similarity scan.

The relation of a pair, a character's current state, the cast with aliases, open foreshadowing
and the version history of a fact are answered by metadata ``where`` filters (``get``), so they
are exact and do not depend on how a question is phrased.
"""

from __future__ import annotations

import threading

from aizac.errors import InvalidInputError, NotFoundError
from aizac.memory.records import (
    CHARACTER,
    MemoryHit,
    Where,
    canonical_pair,
    clean_aliases,
    name_key,
    normalize_name,
)


class KeyedLookups:
    """Mixin for :class:`~aizac.memory.store.WriterMemory`, which provides the two reads."""

    _lock: threading.RLock

    def get(self, memory_id: str) -> MemoryHit:  # pragma: no cover - provided by WriterMemory
        raise NotImplementedError

    def get_where(
        self,
        where: Where | None,
        limit: int | None = None,
        *,
        include_forgotten: bool = False,
        include_superseded: bool = False,
    ) -> list[MemoryHit]:  # pragma: no cover - provided by WriterMemory
        raise NotImplementedError

    def relations(self, a: str, b: str) -> list[MemoryHit]:
        """Every live CharacterRelation of the pair ``a``-``b`` (either order), newest first."""
        c1, c2 = canonical_pair(a, b)
        return self.get_where({"$and": [{"character1": c1}, {"character2": c2}]})

    def relation(self, a: str, b: str) -> MemoryHit | None:
        """The latest live CharacterRelation of the pair (exact keyed lookup), or ``None``."""
        found = self.relations(a, b)
        return found[0] if found else None

    def character_state(self, name: str) -> list[MemoryHit]:
        """Live Character memories of ``name`` (or a character it is an alias of), newest first."""
        direct = normalize_name(name or "")
        if not direct:
            raise InvalidInputError("A character name cannot be empty.")
        hits = self.get_where({"$and": [{"tag": CHARACTER}, {"character_name": direct}]})
        if hits:
            return hits
        canonical = self.resolve_name(name)  # an alias: one scan of the live cast
        if canonical == direct:
            return []
        return self.get_where({"$and": [{"tag": CHARACTER}, {"character_name": canonical}]})

    def characters(self) -> dict[str, list[str]]:
        """Canonical name -> aliases, from the live Character memories."""
        out: dict[str, list[str]] = {}
        for hit in self.get_where({"tag": CHARACTER}):
            known = out.setdefault(hit.character_name, [])
            known.extend(a for a in hit.aliases if a not in known)
        return out

    def resolve_name(self, name: str) -> str:
        """The canonical character name for ``name`` or one of its aliases (else ``name``)."""
        key = name_key(name)
        if not key:
            raise InvalidInputError("A character name cannot be empty.")
        aliases = clean_aliases([name], "")
        for canonical, other in self.characters().items():
            if name_key(canonical) == key or any(name_key(a) == key for a in other):
                return canonical
        return aliases[0] if aliases else name

    def open_foreshadowing(self) -> list[MemoryHit]:
        """Foreshadowing still open: live, current, marked ``foreshadow=True``."""
        return self.get_where({"foreshadow": True})

    def history(self, memory_id: str) -> list[MemoryHit]:
        """Every version of the fact ``memory_id`` belongs to, oldest first."""
        with self._lock:
            chain = [self.get(memory_id)]
            seen = {memory_id}
            while (prev := str(chain[0].metadata.get("supersedes") or "")) and prev not in seen:
                seen.add(prev)
                try:
                    chain.insert(0, self.get(prev))
                except NotFoundError:
                    break
            while (nxt := str(chain[-1].metadata.get("superseded_by") or "")) and nxt not in seen:
                seen.add(nxt)
                chain.append(self.get(nxt))
            return chain
