"""Character-name resolution: aliases, Korean and romanised names, spacing and case (pure).

A character is known by a canonical name plus aliases (``memory.characters()`` gives
``{canonical: [aliases...]}``). Names are compared after NFKC normalisation, case folding and
removal of spaces and joining punctuation, so "Lee Young-min", "lee youngmin" and "LeeYoungmin"
are the same key, and "이영민" resolves through an alias. When no full name matches, a unique
partial match is accepted: one word of a multi-word name ("Youngmin") or the given name of a
three- or four-syllable Hangul name ("영민" for "이영민"). Ambiguous partial matches are refused.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from typing import Protocol

from aizac.errors import UnknownCharacterError
from aizac.memory.facts import name_key
from aizac.text.particles import name_stems

_HANGUL_NAME = re.compile(r"^[\uac00-\ud7af]{3,4}$")
_HANGUL_LAST = re.compile(r"[\uac00-\ud7af]\Z")


class _HasCharacters(Protocol):
    def characters(self) -> dict[str, list[str]]: ...


def normalize_name(name: str) -> str:
    """Comparison key of a name: the memory's one rule (:func:`aizac.memory.facts.name_key`):
    NFKC, case-folded, without spaces or punctuation."""
    return name_key(name)


def _partial_keys(name: str) -> set[str]:
    norm = unicodedata.normalize("NFKC", name).casefold().strip()
    keys = {normalize_name(w) for w in re.split(r"\s+", norm) if w}
    compact = normalize_name(name)
    if _HANGUL_NAME.match(compact):
        keys.add(compact[1:])  # given name without the one-syllable family name
    keys.discard(compact)
    return {k for k in keys if len(k) >= 2}


class AliasResolver:
    """Maps any known name or alias to the character's canonical name."""

    def __init__(self, characters: Mapping[str, Iterable[str]] | None = None) -> None:
        self._exact: dict[str, set[str]] = {}
        self._partial: dict[str, set[str]] = {}
        self._canonical: set[str] = set()
        for canonical, aliases in (characters or {}).items():
            self.add(canonical, aliases)

    @classmethod
    def from_memory(cls, memory: _HasCharacters, extra_names: Iterable[str] = ()) -> AliasResolver:
        """Resolver over ``memory.characters()`` plus names without a profile (e.g. relations)."""
        resolver = cls(memory.characters())
        for name in extra_names:
            if resolver.resolve(name) is None:
                resolver.add(name)
        return resolver

    def add(self, canonical: str, aliases: Iterable[str] = ()) -> None:
        """Register a character under its canonical name and aliases."""
        canonical = canonical.strip()
        if not canonical:
            return
        self._canonical.add(canonical)
        for name in (canonical, *aliases):
            if not name or not name.strip():
                continue
            self._exact.setdefault(normalize_name(name), set()).add(canonical)
            for key in _partial_keys(name):
                self._partial.setdefault(key, set()).add(canonical)

    @property
    def names(self) -> frozenset[str]:
        """Canonical names of every known character."""
        return frozenset(self._canonical)

    def __len__(self) -> int:
        return len(self._canonical)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.resolve(name) is not None

    def candidates(self, name: str) -> set[str]:
        """Every canonical name ``name`` could denote (empty when unknown).

        A Hangul name that matches nobody is tried again without what a name copied out of a
        sentence carries (:func:`aizac.text.particles.name_stems`: "이영민과" -> "이영민",
        "진도준님이" -> "진도준").
        """
        key = normalize_name(name)
        if not key:
            return set()
        found = self._lookup(key)
        if found or not _HANGUL_LAST.search(key):
            return found
        for name in name_stems(key):
            if len(name) >= 2:
                found = self._lookup(name)
                if found:
                    return found
        return set()

    def _lookup(self, key: str) -> set[str]:
        exact = self._exact.get(key)
        if exact:
            # A canonical name spelled exactly wins over someone else's alias.
            direct = {c for c in exact if normalize_name(c) == key}
            return direct if len(direct) == 1 else set(exact)
        return set(self._partial.get(key, set()))

    def resolve(self, name: str) -> str | None:
        """The canonical name for ``name``, or None when unknown or ambiguous."""
        found = self.candidates(name)
        return next(iter(found)) if len(found) == 1 else None

    def canonical(self, name: str) -> str:
        """Like :meth:`resolve` but raises :class:`UnknownCharacterError` instead of None."""
        found = self.candidates(name)
        if len(found) == 1:
            return next(iter(found))
        if found:
            raise UnknownCharacterError("error.filter.ambiguous_name", name=name,
                                        candidates=", ".join(sorted(found)))
        raise UnknownCharacterError("error.filter.unknown_name", name=name)
